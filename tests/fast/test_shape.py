"""--sort-by and --columns on a list (issue 34 §2), asked of `sites list`'s run half. Moved from
tests/query/test_shape.py to the fast layer (issue 46): what a list shows, sorted and shaped, is a rendering
question; the query options travel in the run's options, not in a context."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from wfctl.drivers.recordrun import CreateOptions, ListOptions, run_create, run_list


@pytest.fixture
def agency_client(run: Any) -> str:
    """A client of its own with sites made for the query tests: names that sort naturally only, rates by
    skill, departments, banned workers (as tests/query/conftest.py makes them through the command line)."""
    r = run(run_create, CreateOptions, kind="client", parent="Manchester Central", format="json",
            changes={"name": f"Query {uuid.uuid4().hex[:8]}"})
    assert r.exit_code == 0, r
    client_id = str(json.loads(r.stdout)["id"])
    sites = [
        ("Site 10", ["Forklift Driver=13.25", "Picker=11.50"], ["Goods In:Ann Lee"], ["w-1", "w-2"], "0427"),
        ("Site 2", ["forklift driver=12.00"], [], ["w-3"], "yes"),
        ("site 1", [], ["Goods In:Bo Chan", "Dispatch:Cy Dee"], [], "1e3"),
    ]
    for site, rates, departments, banned, phone in sites:
        changes = {"name": site, "address": "1 Dock Rd", "phone": phone, "email": "",
                   "assessmentRequired": site == "Site 2", "rates": rates, "departments": departments,
                   "bannedWorkers": banned}
        r = run(run_create, CreateOptions, kind="site", parent=client_id, changes=changes, format="json")
        assert r.exit_code == 0, r
    return client_id


def test_sort_by_is_natural_as_the_service_compares_names_across_every_page(run: Any, agency_client: str) -> None:
    def names(sort_by: str) -> list[str]:
        r = run(run_list, ListOptions, kind="site", parent=agency_client, all_pages=True, page_size=1,
                format="json", shape={"sort_by": sort_by, "jq": "map(.name)"})
        assert r.exit_code == 0, r
        return list(json.loads(r.stdout))

    assert names("name") == ["site 1", "Site 2", "Site 10"]
    assert names("-name") == ["Site 10", "Site 2", "site 1"]
    assert names("assessmentRequired,-name") == ["Site 10", "site 1", "Site 2"]
    # a pseudo-column: the rate of a skill (any case), a site without one last either way
    assert names("rate:Forklift Driver") == ["Site 2", "Site 10", "site 1"]
    assert names("-rate:forklift driver") == ["Site 10", "Site 2", "site 1"]
    assert names("-banned:count") == ["Site 10", "Site 2", "site 1"]


def test_columns_with_the_staffing_pseudo_columns(run: Any, agency_client: str) -> None:
    columns = ("Site=name,Forklift=rate:Forklift Driver,Picker=rate:picker,Banned=banned:count,"
               "Goods In=dept:Goods In.contactPerson")
    shape = {"sort_by": "name", "columns": columns}

    def listed(**options: Any) -> Any:
        return run(run_list, ListOptions, kind="site", parent=agency_client, shape=shape, **options)

    r = listed()
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert r.stdout == ("Site     Forklift  Picker  Banned  Goods In\n"
                        f"{'site 1':9}{'':10}{'':8}{'0':8}Bo Chan\n"
                        f"{'Site 2':9}{'12.00':10}{'':8}1\n"
                        f"{'Site 10':9}{'13.25':10}{'11.50':8}{'2':8}Ann Lee\n")
    r = listed(format="csv")
    assert r.stdout == ("Site,Forklift,Picker,Banned,Goods In\n"
                        "site 1,,,0,Bo Chan\n"
                        "Site 2,12.00,,1,\n"
                        "Site 10,13.25,11.50,2,Ann Lee\n")
    r = listed(format="jsonl")
    assert r.stdout.splitlines()[1] == '{"Site":"Site 2","Forklift":12.0,"Picker":null,"Banned":1,"Goods In":null}'
    r = listed(tty=True, width=120)
    assert r.exit_code == 0, r
    lines = r.stdout.splitlines()
    assert any("Site 10" in line and "13.25" in line and "Ann Lee" in line for line in lines), r.stdout
    r = run(run_list, ListOptions, kind="site", parent=agency_client, shape={"columns": "Site=name,X=rate:"})
    assert (r.exit_code, r.stderr) == (2, "error: --columns rate:: unknown column; the pseudo-columns are "
                                          "rate:<skill>, banned:count and dept:<name>.<field> (e.g. dept:Goods "
                                          "In.contactPerson)\n"), r
