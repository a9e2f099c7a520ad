"""The resource commands against a deliberately different server (tests/tolerance/server.py).

Every case is a tolerance of contract part 1 (G8, G9, G10, G13) that the sandbox never exercises.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.tolerance.server import TOKEN, Behaviour, ToleranceServer


@pytest.fixture
def server() -> Iterator[ToleranceServer]:
    srv = ToleranceServer()
    yield srv
    srv.stop()


@pytest.fixture
def run(cli: Any, server: ToleranceServer) -> Any:
    env = {"WFCTL_BASE_URL": server.url, "WFCTL_ACCESS_TOKEN": TOKEN}

    def invoke(*args: str, **kwargs: Any) -> Any:
        return cli(*args, env=env, **kwargs)

    return invoke


def _ids(jsonl: str) -> list[str]:
    return [json.loads(line)["id"] for line in jsonl.splitlines()]


ALL_SITES = [f"s{i:03d}" for i in range(1, 26)]


@pytest.mark.parametrize("form", ["url", "relative", "number", "string", "object", "missing"])
def test_every_next_page_form_is_followed(run: Any, server: ToleranceServer, form: str) -> None:
    server.behaviour.next_page = form
    r = run("sites", "list", "--client", "c1", "--all", "--page-size", "10", "-o", "jsonl")
    assert r.exit_code == 0, r
    assert _ids(r.stdout) == ALL_SITES
    # (`c1` is not a UUID: one GET of /api/clients/c1 reads it as an id first; the pages are what count)
    # (pages of 10; the reader's boundary checks read small blocks, pageSize 3-6, which are not pages)
    gets = [(q.path, q.query.get("pageNumber")) for q in server.requests
            if q.path.endswith("/sites") and q.query.get("pageSize") in (None, "10")]
    # pages 2 and 3 are fetched at once after the first (in either order), each once
    assert gets[0] == ("/api/clients/c1/sites", None)
    assert sorted(gets[1:]) == [("/api/clients/c1/sites", "2"), ("/api/clients/c1/sites", "3")]


def test_all_asks_for_the_largest_page(run: Any, server: ToleranceServer) -> None:
    r = run("sites", "list", "--client", "c1", "--all", "-o", "jsonl")
    assert r.exit_code == 0, r
    assert _ids(r.stdout) == ALL_SITES
    assert [q.query.get("pageSize") for q in server.requests if q.path.endswith("/sites")] == ["100"]


def test_limit_stops_fetching_pages(run: Any, server: ToleranceServer) -> None:
    server.behaviour.next_page = "number"
    r = run("sites", "list", "--client", "c1", "--limit", "12", "--page-size", "10", "-o", "jsonl")
    assert r.exit_code == 0, r
    assert _ids(r.stdout) == ALL_SITES[:12]
    assert len([p for p in server.paths() if "/sites?" in p and "pageSize=10" in p]) == 2


def test_a_next_page_cycle_stops_with_an_error(run: Any, server: ToleranceServer) -> None:
    server.behaviour.next_page = "cycle"
    r = run("sites", "list", "--client", "c1", "--all", "--page-size", "10", "-o", "jsonl")
    assert r.exit_code == 1
    assert _ids(r.stdout) == ALL_SITES[:20]  # pages 1 and 2 were streamed before the loop showed
    assert "loop" in r.stderr


def test_a_foreign_next_page_is_never_followed(run: Any, server: ToleranceServer) -> None:
    other = ToleranceServer()
    try:
        server.behaviour.next_page = "foreign"
        server.behaviour.foreign_url = other.url
        r = run("sites", "list", "--all", "--page-size", "10", "--client", "c1")
        assert r.exit_code == 1
        assert other.requests == []  # no request, so no token, left for the other origin
        assert r.stderr.count("\n") == 1 and "origin" in r.stderr
    finally:
        other.stop()


@pytest.mark.parametrize("form", ["problem", "message", "text", "html"])
def test_error_bodies_become_one_line_with_the_status(run: Any, server: ToleranceServer, form: str) -> None:
    server.behaviour.errors = form
    missing = "00000000-0000-4000-8000-000000000000"  # a whole id: sent as it is, the service's 404 shown
    r = run("sites", "get", missing)
    assert r.exit_code == 4
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert "(HTTP 404)" in r.stderr and "<" not in r.stderr
    if form != "html":  # an HTML page gives its title as the cause
        assert f"site {missing} not found" in r.stderr

    r = run("branches", "delete", "b1", "--yes")
    assert r.exit_code == 5
    assert "(HTTP 409)" in r.stderr and r.stderr.count("\n") == 1
    if form != "html":
        assert "branch still has 3 clients" in r.stderr
    assert "b1" in server.state.branches


def test_json_errors_keep_the_envelope_for_a_plain_text_error(run: Any, server: ToleranceServer) -> None:
    server.behaviour.errors = "text"
    missing = "00000000-0000-4000-8000-000000000000"
    r = run("clients", "get", missing, "-o", "json")
    assert r.exit_code == 4
    error = json.loads(r.stderr)["error"]
    assert error["status"] == 404 and f"client {missing} not found" in (error["detail"] or error["title"])


def test_update_loses_no_field_where_put_clears_left_out_fields(run: Any, server: ToleranceServer) -> None:
    server.behaviour.put_clears = True
    r = run("branches", "update", "b1", "--phone", "+44 1", "-o", "json")
    assert r.exit_code == 0, r
    assert server.state.branches["b1"] | {"updatedOn": None} == {
        "id": "b1", "name": "Branch 1", "address": "1 High St", "phone": "+44 1", "email": "b1@example.com",
        "createdOn": "2026-01-02T03:04:05Z", "updatedOn": None}
    assert json.loads(r.stdout)["address"] == "1 High St"
    # the first PUT (the phone alone) showed the fields it left out cleared: written back at once, and said
    assert [q.body for q in server.requests if q.method == "PUT"] == [
        {"phone": "+44 1"}, {"name": "Branch 1", "address": "1 High St", "phone": "+44 1", "email": "b1@example.com"}]
    assert r.stderr == ("warning: branch b1: the service cleared the fields the update left out (name, address, email); "
                        "they were written back at once from the record read before it. This deployment clears what a "
                        "PUT leaves out (G13): updates now send the whole record, read just before each PUT (set "
                        "put_clears to start that way)\n")

    server.requests.clear()
    assert run("config", "set", "put_clears", "true").exit_code == 0  # said: one whole-record PUT, nothing to say
    r = run("clients", "update", "c2", "--email", "new@example.com")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert len([q for q in server.requests if q.method == "PUT"]) == 1
    assert server.state.clients["c2"]["billingAddress"] == "2 Bill Rd"
    assert server.state.clients["c2"]["email"] == "new@example.com"
    put = [q for q in server.requests if q.method == "PUT"][-1]
    assert put.body == {"name": "Client 2", "email": "new@example.com", "phone": "072",
                        "billingAddress": "2 Bill Rd"}


def test_sites_update_keeps_every_other_field_where_put_clears(run: Any, server: ToleranceServer) -> None:
    server.behaviour.put_clears = True  # this server's sites keep what a PUT leaves out
    before = dict(server.state.sites["s001"])
    r = run("sites", "update", "s001", "--assessment-required", "-o", "json")
    assert r.exit_code == 0, r
    assert [q.body for q in server.requests if q.method == "PUT"] == [{"assessmentRequired": True}]
    assert r.stderr == ""
    after = server.state.sites["s001"]
    assert {k: v for k, v in after.items() if k not in ("assessmentRequired", "updatedOn")} == \
        {k: v for k, v in before.items() if k not in ("assessmentRequired", "updatedOn")}
    shown = json.loads(r.stdout)
    assert shown["rates"] == [{"skill": "picker", "hourlyRate": 11.5}]  # the whole record is shown


def test_branch_filter_holds_where_the_server_ignores_it(run: Any, server: ToleranceServer) -> None:
    server.behaviour.ignore_branch_filter = True
    r = run("clients", "list", "--branch", "b2", "--all", "-o", "json")
    assert r.exit_code == 0, r
    assert [c["id"] for c in json.loads(r.stdout)] == ["c4", "c5", "c6"]
    assert next(q for q in server.requests if q.path == "/api/clients").query.get("branchId") == "b2"


def test_behaviour_defaults_match_the_sandbox() -> None:
    assert Behaviour() == Behaviour(next_page="url", errors="problem", put_clears=False, ignore_branch_filter=False,
                                    foreign_url="http://127.0.0.1:9")


@pytest.mark.parametrize(("option", "value", "field"), [("--remove-rate", "forklift", "rates"),
                                                         ("--set-rate", "FORKLIFT=14", "rates"),
                                                         ("--remove-department", "goods in", "departments")])
def test_a_list_edit_matching_case_variants_refuses_and_names_them(run: Any, server: ToleranceServer, option: str,
                                                                   value: str, field: str) -> None:
    # A deployment whose skills and departments are unique only case-sensitively: both variants exist.
    site = server.state.sites["s001"]
    site["rates"] = [{"skill": "Forklift", "hourlyRate": 10}, {"skill": "forklift", "hourlyRate": 12},
                     {"skill": "Picker", "hourlyRate": 11.5}]
    site["departments"] = [{"name": "Goods In"}, {"name": "goods in"}]
    before = json.loads(json.dumps(site))
    r = run("sites", "update", "s001", option, value)
    assert r.exit_code == 2, r
    shown = {"rates": "Forklift=10.00, forklift=12.00", "departments": "Goods In, goods in"}[field]
    noun = {"rates": "rates", "departments": "departments"}[field]
    replacing = {"rates": "--rate", "departments": "--department"}[field]
    wanted = value.split("=")[0]
    assert r.stderr == (f"error: {option} {wanted}: 2 {noun} of the site match ({shown}); change them with "
                        f"{replacing}, which replaces the whole list\n")
    assert not [q for q in server.requests if q.method == "PUT"]
    assert server.state.sites["s001"] == before


def test_a_list_edit_acts_on_exactly_the_entry_the_diff_shows(run: Any, server: ToleranceServer) -> None:
    site = server.state.sites["s001"]
    site["rates"] = [{"skill": "Forklift", "hourlyRate": 10}, {"skill": "Picker", "hourlyRate": 11.5}]
    r = run("sites", "update", "s001", "--remove-rate", "FORKLIFT", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines()[1:] == ["  - rate Forklift=10.00"]
    r = run("sites", "update", "s001", "--remove-rate", "FORKLIFT", "-o", "json")
    assert r.exit_code == 0, r
    assert server.state.sites["s001"]["rates"] == [{"skill": "Picker", "hourlyRate": 11.5}]


def test_fields_a_put_cleared_that_cannot_be_written_back_are_listed_with_their_values(
        cli: Any, server: ToleranceServer) -> None:
    from wfctl.sandbox.injectors import FaultProxy

    server.behaviour.put_clears = True
    puts = 0

    def refuse_the_second_put(method: str, _path: str) -> bytes | None:
        nonlocal puts
        puts += method == "PUT"
        if method != "PUT" or puts < 2:
            return None
        body = b'{"title":"Forbidden","status":403}'
        return (b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/problem+json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    proxy = FaultProxy(server.url, drop=lambda _m, _p: False, answer=refuse_the_second_put)
    try:
        r = cli("branches", "update", "b1", "--phone", "+44 1",
                env={"WFCTL_BASE_URL": proxy.url, "WFCTL_ACCESS_TOKEN": TOKEN})
    finally:
        proxy.stop()
    assert r.exit_code == 8, r
    warning, lost, error = r.stderr.splitlines()
    assert warning.startswith("warning: branch b1: the service cleared the fields the update left out (name, address, ")
    assert lost == ("warning: branch b1: the fields the update cleared could not be written back; they held: "
                    "name 'Branch 1'; address '1 High St'; email 'b1@example.com'")
    assert error.startswith("error: ") and "(HTTP 403)" in error
    assert server.state.branches["b1"]["address"] == ""  # what the deployment did; the warning says what it held
