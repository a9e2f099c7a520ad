"""Every entry point that reads a whole list, on a list that changes while it is read (`churn-pages`: one
delete and one create between two pages, the count unchanged) and on a service that answers page 1 to
every page (`ignore-page-number`): every record there throughout is listed once, in order, or the
listing fails saying why; never exit 0 with a record missing or repeated."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.matrix.conftest import CHANGING_LISTS, IGNORED_PAGE_NUMBER, Deployment, Run
from wfctl.api.errors import PaginationError


def _sites(deployment: Deployment, count: int) -> tuple[str, list[str]]:
    client = deployment.client()
    for _ in range(count):
        deployment.site(client["id"])
    return client["id"], [row["id"] for row in deployment.all(f"/api/clients/{client['id']}/sites")]


def _check(got: list[str], before: list[str], after: list[str]) -> None:
    lasting = [i for i in before if i in set(after)]
    assert len(got) == len(set(got)), "listed twice"
    assert [i for i in got if i in set(lasting)] == lasting, "a record missing or out of order"
    assert before[0] not in after, "the deployment did not churn"


@pytest.mark.parametrize("deployment", CHANGING_LISTS, indirect=True)
@pytest.mark.parametrize("entry", ["list", "api", "sdk", "export"])
def test_a_list_changing_while_read_loses_no_record(deployment: Deployment, run: Run, sdk: Any,
                                                    entry: str) -> None:
    client_id, before = _sites(deployment, 7)
    if entry == "list":
        r = run("sites", "list", "--client", client_id, "--all", "--page-size", "3", "-o", "jsonl")
        assert r.exit_code == 0, r
        got = [json.loads(line)["id"] for line in r.stdout.splitlines()]
    elif entry == "api":
        r = run("api", "GET", f"/api/clients/{client_id}/sites?pageSize=3", "--paginate", "-o", "jsonl")
        assert r.exit_code == 0, r
        got = [json.loads(line)["id"] for line in r.stdout.splitlines()]
    elif entry == "sdk":
        got = [row["id"] for row in sdk.iter_sites(client_id, page_size=3)]
    else:  # export reads pages of 100: one page, nothing to churn; its reads of each site follow the list
        r = run("sites", "export", "--client", client_id)
        assert r.exit_code == 0, r
        assert len(r.stdout.splitlines()) == 1 + len(before)
        return
    _check(got, before, [row["id"] for row in deployment.all(f"/api/clients/{client_id}/sites")])


@pytest.mark.parametrize("deployment", IGNORED_PAGE_NUMBER, indirect=True)
def test_a_service_ignoring_page_number_stops_every_listing(deployment: Deployment, run: Run, sdk: Any) -> None:
    client_id, _held = _sites(deployment, 7)
    message = "the service answered page 2 with only records it had already given (does it ignore pageNumber?)"
    for args in (["sites", "list", "--client", client_id, "--all", "--page-size", "3", "-o", "csv"],
                 ["sites", "list", "--client", client_id, "--limit", "5", "--page-size", "3", "-o", "csv"],
                 ["api", "GET", f"/api/clients/{client_id}/sites?pageSize=3", "--paginate", "-o", "csv"]):
        r = run(*args)
        assert r.exit_code == 1, (args, r)
        assert message in r.stderr, r
    with pytest.raises(PaginationError, match=r"does it ignore pageNumber"):
        list(sdk.iter_sites(client_id, page_size=3))
