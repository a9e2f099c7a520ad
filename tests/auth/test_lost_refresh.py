"""A refresh whose answer is lost: the service rotated the pair, the answer never arrived.

The stored pair is marked as in doubt before the refresh leaves; only an answer removes the mark.
A marked pair's refresh token is never sent again (the service would see a spent token and revoke
the whole login, G3): the user is told to log in again, exit 3. A refresh that provably never left
(the connection could not be made) leaves no mark.

Faults a real server cannot produce on demand: httpx.MockTransport, and a proxy on a real socket
that forwards the refresh to a real sandbox and drops its answer.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import httpx
import pytest

from tests.bulk.fault_proxy import FaultProxy
from wfctl.api import errors
from wfctl.api.auth import TokenAuth
from wfctl.api.client import Client
from wfctl.api.store import FileStore, TokenPair
from wfctl.api.transport import RetryPolicy
from wfctl.errors import exit_code_for, message_for

BASE = "https://wams.example.com"
ADMIN = ("admin@northwind.test", "sandbox-admin")


class Service:
    """A token service in the shape of G3: every refresh rotates; a spent refresh token revokes."""

    def __init__(self, *, lose: Any = None, status: int | None = None) -> None:
        self.access, self.refresh = "acc-1", "ref-1"
        self.spent: set[str] = set()
        self.refreshes = 0
        self.reuse = 0
        self.lose = lose  # an exception raised after rotating, instead of answering
        self.status = status  # an answer status after rotating (e.g. a gateway's 502)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/identity/refresh":
            self.refreshes += 1
            token = json.loads(request.content)["refreshToken"]
            if token in self.spent:
                self.reuse += 1
                return httpx.Response(401, json={"title": "Unauthorized", "status": 401})
            self.spent.add(token)
            n = self.refreshes + 1
            self.access, self.refresh = f"acc-{n}", f"ref-{n}"
            if self.lose is not None:
                lose, self.lose = self.lose, None
                raise lose
            if self.status is not None:
                status, self.status = self.status, None
                return httpx.Response(status, text="upstream timed out")
            return httpx.Response(200, json={"accessToken": self.access, "refreshToken": self.refresh,
                                             "expiresIn": 900})
        if request.headers.get("Authorization") != f"Bearer {self.access}":
            return httpx.Response(401, headers={"WWW-Authenticate": "Bearer"})
        return httpx.Response(200, json={"name": "A"})


def _expired_store(tmp_path) -> FileStore:
    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    now = time.time()
    store.save(TokenPair("acc-1", "ref-1", now - 1, now - 901, "u", BASE))
    return store


def _client(service: Any, store: FileStore, base_url: str = BASE, transport: Any = None) -> Client:
    return Client(base_url, auth=TokenAuth(store, base_url),
                  transport=transport if transport is not None else httpx.MockTransport(service),
                  retry=RetryPolicy(max_attempts=3), sleep=lambda _: None)


@pytest.mark.parametrize("lost", [httpx.ReadTimeout("answer lost"),
                                  httpx.RemoteProtocolError("Server disconnected without sending a response")])
def test_lost_answer_marks_the_pair_and_is_never_resent(tmp_path, lost):
    store = _expired_store(tmp_path)
    service = Service(lose=lost)
    with pytest.raises(errors.NotLoggedIn) as info:
        _client(service, store).get_agency()
    assert exit_code_for(info.value) == 3
    text = message_for(info.value)
    assert "log in again" in text and "wfctl login" in text and "no usable answer" in text
    stored = store.load()
    assert stored is not None and stored.refresh_in_doubt and stored.refresh_token == "ref-1"

    # The next run (a new process: a new TokenAuth on the same store) does not resend ref-1.
    with pytest.raises(errors.NotLoggedIn) as again:
        _client(service, store).get_agency()
    assert exit_code_for(again.value) == 3 and "got no answer" in message_for(again.value)
    assert service.refreshes == 1 and service.reuse == 0

    # Logging in again clears it.
    now = time.time()
    store.save(TokenPair(service.access, service.refresh, now + 900, now, "u", BASE))
    assert _client(service, store).get_agency() == {"name": "A"}


def test_a_gateway_error_after_the_refresh_left_keeps_the_pair_in_doubt(tmp_path):
    store = _expired_store(tmp_path)
    service = Service(status=502)
    with pytest.raises(errors.NotLoggedIn) as info:
        _client(service, store).get_agency()
    assert exit_code_for(info.value) == 3 and "HTTP 502" in message_for(info.value)
    with pytest.raises(errors.NotLoggedIn):
        _client(service, store).get_agency()
    assert service.refreshes == 1 and service.reuse == 0


@pytest.mark.parametrize("status", [503, 429, 401])
def test_a_definite_refusal_leaves_no_mark(tmp_path, status):
    store = _expired_store(tmp_path)
    rec: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        rec.append(request.url.path)
        return httpx.Response(status, json={"title": "no", "status": status})

    with pytest.raises(errors.ApiError):
        _client(refuse, store).get_agency()
    stored = store.load()
    assert stored is not None and not stored.refresh_in_doubt and stored.refresh_token == "ref-1"


def test_a_refresh_that_never_left_leaves_no_mark(tmp_path):
    """The connection could not be made (a closed port, a real transport): nothing was rotated, so the
    pair stays usable and the error stays "cannot reach" (exit 7)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the with ends: connections are refused
    base = f"http://127.0.0.1:{port}"
    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    now = time.time()
    store.save(TokenPair("acc-1", "ref-1", now - 1, now - 901, "u", base))
    c = Client(base, auth=TokenAuth(store, base), retry=RetryPolicy(max_attempts=2), sleep=lambda _: None)
    with pytest.raises(errors.NetworkError) as info:
        c.get_agency()
    assert exit_code_for(info.value) == 7
    stored = store.load()
    assert stored is not None and not stored.refresh_in_doubt
    with pytest.raises(errors.NetworkError):  # `wfctl auth token`'s path too
        c.token_pair()
    stored = store.load()
    assert stored is not None and not stored.refresh_in_doubt


def test_the_mark_is_stored_before_the_refresh_leaves(tmp_path):
    """A process killed while waiting for the answer leaves the mark behind."""
    store = _expired_store(tmp_path)
    seen: list[TokenPair | None] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(store.load())
        return httpx.Response(200, json={"accessToken": "acc-2", "refreshToken": "ref-2", "expiresIn": 900})

    auth = TokenAuth(store, BASE)
    flow = auth.valid_pair()
    request = next(flow)
    assert request.url.path == "/identity/refresh"
    marked = store.load()
    assert marked is not None and marked.refresh_in_doubt  # on disk before anything is sent
    with pytest.raises(StopIteration) as done:
        flow.send(service(request))
    assert done.value.value.access_token == "acc-2"
    stored = store.load()
    assert stored is not None and not stored.refresh_in_doubt and stored.refresh_token == "ref-2"


def test_an_in_doubt_pair_keeps_working_until_its_access_token_expires(tmp_path):
    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    now = time.time()
    store.save(TokenPair("acc-1", "ref-1", now + 600, now - 300, "u", BASE, refresh_sent_at=now - 1))
    service = Service()
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.refreshes == 0


# -- end to end: a real sandbox behind a proxy that drops the refresh answer -------------------------


class DropRefreshAnswers(FaultProxy):
    """Forwards everything; the first answer to /identity/refresh is dropped (the sandbox rotated)."""

    def __init__(self, upstream: str) -> None:
        self.armed = True

        def drop(method: str, path: str) -> bool:
            if self.armed and path.startswith("/identity/refresh"):
                self.armed = False
                return True
            return False

        super().__init__(upstream, drop=drop)
        self.random = type("Always", (), {"random": staticmethod(lambda: 0.0)})()


def test_lost_refresh_answer_end_to_end(cli, sandbox_factory):
    server = sandbox_factory(access_ttl=2)
    proxy = DropRefreshAnswers(server.url)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        time.sleep(2.2)  # the access token has expired: the next command refreshes
        first = cli("agency", "show")
        assert first.exit_code == 3, first
        assert proxy.dropped == 1
        assert "log in again" in first.stderr and "cannot reach" not in first.stderr
        second = cli("agency", "show", "-o", "json")
        assert second.exit_code == 3, second
        assert "got no answer" in json.loads(second.stderr)["error"]["detail"]
        assert server.reuse_detections() == 0  # the spent refresh token was not presented again
        doctor = json.loads(cli("doctor", "-o", "json").stdout)
        token = next(c for c in doctor if c["check"] == "token")
        assert token["status"] == "fail" and "wfctl login" in token["fix"]
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        assert cli("agency", "show").exit_code == 0
    finally:
        proxy.stop()


def test_auth_status_and_doctor_report_a_pair_in_doubt(logged_in):
    token_file = logged_in.config_dir / "credentials" / "default.json"
    doc = json.loads(token_file.read_text())
    doc["refresh_sent_at"] = time.time() - 5
    token_file.write_text(json.dumps(doc))
    status = logged_in("auth", "status", "-o", "json")
    assert status.exit_code == 0, status  # the access token still works for a while
    assert any("got no answer" in w for w in json.loads(status.stdout)["warnings"])
    doctor = {c["check"]: c for c in json.loads(logged_in("doctor", "-o", "json").stdout)}
    assert doctor["token"]["status"] == "fail" and "got no answer" in doctor["token"]["detail"]
    doc["expires_at"] = time.time() - 1
    token_file.write_text(json.dumps(doc))
    expired = logged_in("auth", "status")
    assert expired.exit_code == 3 and "got no answer" in expired.stderr and "wfctl login" in expired.stderr
