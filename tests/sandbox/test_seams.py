"""The sandbox's seams (issue 46), over a real socket: the behaviour changed between two requests, the clock
moved instead of waited on, and each request kept as a record (docs/sandbox.md, "Seams")."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import api_client, assert_problem, unique
from wfctl.sandbox.behaviour import Behaviour, Faults
from wfctl.sandbox.journal import REDACTED, RequestJournal, RequestRecord

# ---- the behaviour, changed while the sandbox runs ---------------------------------------------


def test_a_quirk_is_played_from_the_next_request_and_dropped_again(sandbox_factory: Callable[..., SandboxServer]
                                                                  ) -> None:
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as api:
        assert api.post("/api/branches", json={"name": unique("Before")}).status_code == 201
        server.behaviour.change(quirks=["create-200", "errors=message"])
        assert api.post("/api/branches", json={"name": unique("During")}).status_code == 200
        missing = api.get("/api/branches/00000000-0000-0000-0000-000000000000")
        assert (missing.status_code, missing.headers["content-type"]) == (404, "application/json")
        assert missing.json() == {"message": "branch 00000000-0000-0000-0000-000000000000 not found"}
        server.behaviour.change(quirks=[])
        assert api.post("/api/branches", json={"name": unique("After")}).status_code == 201
        assert_problem(api.get("/api/branches/00000000-0000-0000-0000-000000000000"), 404)


def test_endpoints_withheld_by_a_quirk_come_back_when_it_is_dropped(sandbox_factory: Callable[..., SandboxServer]
                                                                   ) -> None:
    server = sandbox_factory(seed=False)
    tokens = login_token(server, *ADMIN)
    with api_client(server, ADMIN) as api:
        agency = api.get("/api/agency/").json()
        server.behaviour.change(quirks=["no-agency-update", "no-logout"])
        refused = api.put("/api/agency/", json={"name": agency["name"]})
        assert_problem(refused, 405)
        assert refused.headers["allow"] == "GET"
        gone = api.post("/identity/logout", json={"refreshToken": tokens["refreshToken"]})
        assert assert_problem(gone, 404)["detail"] == "no endpoint POST /identity/logout"
        server.behaviour.change(quirks=[])
        assert api.put("/api/agency/", json={"name": agency["name"]}).status_code == 200
        assert api.post("/identity/logout", json={"refreshToken": tokens["refreshToken"]}).status_code == 204


def test_a_dropped_answer_switched_on_and_off_while_serving(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as api:
        server.behaviour.change(quirks=["drop-create-answer"])
        name = unique("Dropped")
        with pytest.raises(httpx.RemoteProtocolError):
            api.post("/api/branches", json={"name": name})
        server.behaviour.change(quirks=[])
        listed = api.get("/api/branches", params={"pageSize": 100}).json()["data"]
        assert [branch["name"] for branch in listed] == [name]  # applied, though never answered
        assert api.post("/api/branches", json={"name": unique("Answered")}).status_code == 201


def test_an_outage_opens_and_closes_between_two_requests(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as api:
        server.behaviour.change(faults=Faults(unavailable=True))
        down = api.get("/api/branches")
        assert assert_problem(down, 503)["detail"] == (
            "the sandbox's database is unavailable (restarting or down); retry shortly")
        assert down.headers["retry-after"] == "1"
        assert httpx.post(f"{server.url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]},
                          timeout=10).status_code == 503
        server.behaviour.change(faults=Faults())
        assert api.get("/api/branches").status_code == 200


def test_latency_rate_limit_and_token_lifetime_changed_while_serving(sandbox_factory: Callable[..., SandboxServer]
                                                                     ) -> None:
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as api:
        server.behaviour.change(latency_ms=300)
        started = time.monotonic()
        assert api.get("/api/agency/").status_code == 200
        assert time.monotonic() - started >= 0.3
        server.behaviour.change(latency_ms=0, rate_limit=1)
        statuses = [api.get("/api/agency/").status_code for _ in range(3)]  # 3 requests span at most 2 seconds
        assert 429 in statuses, statuses
        server.behaviour.change(rate_limit=None, access_ttl=60)
        assert login_token(server, *ADMIN)["expiresIn"] == 60


def test_a_change_that_names_nothing_known_changes_nothing() -> None:
    behaviour = Behaviour(quirks=["put-clears"], latency_ms=5)
    before = behaviour.now
    for bad in ({"quirks": ["no-such-quirk"]}, {"latency_ms": -1}, {"access_ttl": 0}, {"colour": "red"},
                {"faults": "down"}, {"rate_limit": True}):
        with pytest.raises(ValueError):
            behaviour.change(**bad)
        assert behaviour.now is before
    assert behaviour.change(rate_limit=50).rate_limit == 50 and behaviour.quirks.put_clears


# ---- the clock ----------------------------------------------------------------------------------


def test_an_access_token_expires_when_the_clock_moves(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    tokens = login_token(server, *ADMIN)
    bearer = {"Authorization": f"Bearer {tokens['accessToken']}"}
    assert httpx.get(f"{server.url}/api/agency/", headers=bearer, timeout=10).status_code == 200
    server.clock.advance(15 * 60 + 1)
    expired = httpx.get(f"{server.url}/api/agency/", headers=bearer, timeout=10)
    assert assert_problem(expired, 401)["detail"] == "the access token has expired"
    refreshed = httpx.post(f"{server.url}/identity/refresh", timeout=10,
                           json={"accessToken": tokens["accessToken"], "refreshToken": tokens["refreshToken"]})
    assert refreshed.status_code == 200, refreshed.text
    server.clock.advance(30 * 24 * 3600 + 1)  # the refresh lifetime: 30 days from the login
    pair = refreshed.json()
    late = httpx.post(f"{server.url}/identity/refresh", timeout=10,
                      json={"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]})
    assert assert_problem(late, 401)["detail"] == "the refresh token has expired; log in again"


def test_the_idempotency_window_and_created_on_follow_the_clock(sandbox_factory: Callable[..., SandboxServer]
                                                                ) -> None:
    server = sandbox_factory(seed=False)
    server.clock.advance(400 * 24 * 3600)
    with api_client(server, ADMIN) as api:
        body = {"name": unique("Keyed")}
        first = api.post("/api/branches", json=body, headers={"Idempotency-Key": "seams-1"})
        assert first.status_code == 201
        assert first.json()["createdOn"][:10] == server.clock.iso()[:10] != time.strftime("%Y-%m-%d", time.gmtime())
        again = api.post("/api/branches", json=body, headers={"Idempotency-Key": "seams-1"})
        assert (again.status_code, again.headers["idempotent-replayed"]) == (201, "true")
        assert again.json()["id"] == first.json()["id"]
        server.clock.advance(24 * 3600 + 1)  # past the window: the key is new again, the name is taken
        api.headers["Authorization"] = f"Bearer {login_token(server, *ADMIN)['accessToken']}"
        late = api.post("/api/branches", json=body, headers={"Idempotency-Key": "seams-1"})
        assert_problem(late, 409)


def test_the_cli_refreshes_a_token_the_clock_expired(cli: Any, sandbox_factory: Callable[..., SandboxServer]
                                                     ) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    server.clock.advance(16 * 60)
    seen = len(server.journal.records())
    r = cli("branches", "list", "-o", "json")
    assert r.exit_code == 0, r
    asked = [(record.method, record.path, record.status) for record in server.journal.records()[seen:]]
    assert asked[:3] == [("GET", "/api/branches", 401), ("POST", "/identity/refresh", 200),
                         ("GET", "/api/branches", 200)], asked


# ---- the request journal ------------------------------------------------------------------------


def test_each_request_is_a_record_with_its_caller(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as api:
        api.get("/api/agency/")
        api.get("/api/branches", params={"pageSize": 5})
        api.post("/api/branches", json={"name": unique("Recorded")}, headers={"Idempotency-Key": "rec-1"})
    login, agency_read, listing, create = server.journal.records()[-4:]
    assert (login.method, login.path, login.status, login.user, login.tenant) == (
        "POST", "/identity/login", 200, ADMIN[0], None)
    assert (listing.method, listing.path, listing.query, listing.status) == ("GET", "/api/branches", "pageSize=5", 200)
    agency_id = server.app.state.store.db.execute("SELECT agency_id FROM users WHERE username = ?",
                                                  (ADMIN[0],)).fetchone()[0]
    assert (listing.user, listing.tenant) == (ADMIN[0], agency_id)
    assert (create.status, create.idempotency_key, create.request_body, create.response_body) == (
        201, "rec-1", None, None)  # bodies only when asked
    assert login.id < agency_read.id < listing.id < create.id
    assert listing.ms >= 0 and abs(listing.at - server.clock.time()) < 60
    assert listing.line() == f"GET /api/branches?pageSize=5 200 {listing.ms:.0f} ms {ADMIN[0]}"


def test_bodies_when_asked_never_a_secret(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    server.journal.bodies = True
    tokens = login_token(server, *ADMIN)
    httpx.post(f"{server.url}/identity/refresh", timeout=10,
               json={"accessToken": tokens["accessToken"], "refreshToken": tokens["refreshToken"]})
    httpx.post(f"{server.url}/identity/login", content=f"username={ADMIN[0]}&password={ADMIN[1]}", timeout=10,
               headers={"Content-Type": "application/x-www-form-urlencoded"})
    name = unique("Bodied")
    httpx.post(f"{server.url}/api/branches", json={"name": name}, timeout=10,
               headers={"Authorization": f"Bearer {tokens['accessToken']}"})
    login, refresh, form, create = server.journal.records()[-4:]
    assert login.request_body == {"username": ADMIN[0], "password": REDACTED}
    assert login.response_body == {"accessToken": REDACTED, "refreshToken": REDACTED, "tokenType": "Bearer",
                                   "expiresIn": 900}
    assert refresh.request_body == {"accessToken": REDACTED, "refreshToken": REDACTED}
    assert form.request_body == REDACTED  # not JSON, on an identity endpoint: not kept at all
    assert create.request_body == {"name": name} and create.response_body["name"] == name
    text = repr(server.journal.records())
    for secret in (ADMIN[1], tokens["accessToken"], tokens["refreshToken"]):
        assert secret not in text


def test_the_ring_keeps_the_newest_records() -> None:
    journal = RequestJournal(capacity=3)
    lines: list[str] = []
    journal.listen(lambda record: lines.append(record.line()))
    for number in range(5):
        journal.add(at=0.0, method="GET", path=f"/api/sites/{number}", query="", status=200, ms=2.4)
    assert [record.path for record in journal.records()] == ["/api/sites/2", "/api/sites/3", "/api/sites/4"]
    assert [record.id for record in journal.records()] == [3, 4, 5]
    assert lines[0] == "GET /api/sites/0 200 2 ms"


def test_a_line_is_the_log_requests_line() -> None:
    record = RequestRecord(id=1, at=0.0, method="POST", path="/identity/login", query="", status=401, ms=3.6,
                           note="login failed: ghost\x1b@northwind.test")
    assert record.line() == "POST /identity/login 401 4 ms login failed: ghost\\x1b@northwind.test"
    unanswered = RequestRecord(id=2, at=0.0, method="GET", path="/api/branches", query="page=2", status=0, ms=0.4)
    assert unanswered.line() == "GET /api/branches?page=2 --- 0 ms"
