"""`list --fields` never writes a column the list cannot fill (issue 25 §2): list items carry no rates,
departments, banned workers, documents (sites) or billing address (clients); an empty column of them,
imported back with `--on-existing update`, would clear them on every record. Moved from
tests/pages/test_list_fields.py to the fast layer (issue 46): a rendering question, asked of the run halves."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.pages.helpers import add_client
from wfctl.drivers.recordrun import (
    CreateOptions,
    GetOptions,
    ListOptions,
    ShowAgencyOptions,
    run_create,
    run_get,
    run_list,
    run_show_agency,
)

SITES = ("error: --fields rates,bannedWorkers: a site list does not carry them; use `wfctl sites export` "
         "(every field of every site) or `wfctl sites get <id>`")
CLIENTS = ("error: --fields billingAddress: a client list does not carry it; use `wfctl clients export` "
           "(every field of every client) or `wfctl clients get <id>`")


@pytest.mark.parametrize("output", ["table", "wide", "jsonl", "csv"])
def test_fields_a_list_item_lacks_are_refused_in_every_format(service: Any, run: Any, output: str) -> None:
    client_id, _ = add_client(service, 3)
    r = run(run_list, ListOptions, kind="site", parent=client_id, fields="id,name,rates,bannedWorkers", format=output)
    assert (r.exit_code, r.stdout, r.requests) == (2, "", 0), r
    if output == "jsonl":
        assert json.loads(r.stderr)["error"]["title"] == SITES.removeprefix("error: ")
    else:
        assert r.stderr.strip() == SITES
    r = run(run_list, ListOptions, kind="client", all_pages=True, fields="id,name,billingAddress", format=output)
    assert (r.exit_code, r.stdout) == (2, ""), r
    if output != "jsonl":
        assert r.stderr.strip() == CLIENTS


def test_fields_a_list_item_carries_still_work(service: Any, run: Any) -> None:
    client_id, _ = add_client(service, 3)
    r = run(run_list, ListOptions, kind="site", parent=client_id, fields="id,name,assessmentRequired", format="csv")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines()[0] == "id,name,assessmentRequired"
    assert len(r.stdout.splitlines()) == 4


# -- a field name the kind does not have (issue 30 §5) -----------------------------------------------
BRANCH_FIELDS = "id, name, address, phone, email, createdOn, updatedOn, modifiedOn"


@pytest.mark.parametrize("output", ["table", "json", "csv"])
def test_an_unknown_field_names_the_nearest_before_anything_is_asked(run: Any, output: str) -> None:
    r = run(run_list, ListOptions, kind="branch", fields="id,nme", format=output)
    assert r.exit_code == 2, r
    assert r.stdout == ""
    assert r.requests == 0  # no request was made
    message = f"--fields nme: unknown field; did you mean name? a branch's fields are {BRANCH_FIELDS}"
    if output == "json":
        assert json.loads(r.stderr)["error"]["title"] == message
    else:
        assert r.stderr == f"error: {message}\n"


def test_an_unknown_field_of_a_create_stops_it_before_it_is_sent(service: Any, run: Any) -> None:
    client_id, _ = add_client(service, 0)
    r = run(run_create, CreateOptions, kind="site", parent=client_id, changes={"name": "Fields check"},
            fields="id,adress")
    assert (r.exit_code, r.stdout, r.requests) == (2, "", 0), r
    assert r.stderr.startswith("error: --fields adress: unknown field; did you mean address? a site's fields are "
                               "id, clientId, name, address,"), r
    r = run(run_list, ListOptions, kind="site", parent=client_id, format="json")
    assert json.loads(r.stdout) == []  # nothing was created
    r = run(run_show_agency, ShowAgencyOptions, fields="workweek")
    assert r.exit_code == 2
    assert r.stderr == ("error: --fields workweek: unknown field; did you mean workWeekStart? the agency's fields are "
                        "name, email, phone, workWeekStart, calendarYearStart, holidayYearStart, holidayCapHours\n")


def test_field_names_match_as_import_headers_and_keep_the_services_spelling(service: Any, run: Any) -> None:
    client_id, sites = add_client(service, 2)
    r = run(run_list, ListOptions, kind="site", parent=client_id, fields="ID,Name,client id,Assessment_Required",
            format="csv")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines() == ["id,name,clientId,assessmentRequired",
                                     f"{sites[0]},Site 000000,{client_id},false",
                                     f"{sites[1]},Site 000001,{client_id},true"]
    r = run(run_get, GetOptions, kind="site", record_id=sites[1], format="json", fields="NAME,Rates")
    assert json.loads(r.stdout) == {"name": "Site 000001", "rates": [{"skill": "picker", "hourlyRate": 11.5}]}
    r = run(run_show_agency, ShowAgencyOptions, format="json", fields="Name,holidaycaphours")
    assert list(json.loads(r.stdout)) == ["name", "holidayCapHours"]
    r = run(run_list, ListOptions, kind="site", parent=client_id, fields="id,Rates")  # refused in the service's spelling
    assert (r.exit_code, r.stderr) == (2, "error: --fields rates: a site list does not carry it; use `wfctl sites "
                                          "export` (every field of every site) or `wfctl sites get <id>`\n"), r
