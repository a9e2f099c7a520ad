"""A refresh whose answer is lost, or answered 5xx: the service may have rotated the pair.

The stored pair says when a refresh of it was first sent, written before the refresh leaves; only an
answer removes it. Within the grace window (G3: the service answers a spent refresh token presented
again within 60 s with the same new pair; wfctl resends for 50 s of it) the refresh is sent again, by
this run (with backoff) and by the next one; a login ends only when the service rejects the refresh
token. After the window the refresh token is never sent again (the service would see a spent token and
revoke the whole login): the user is told to log in again, exit 3. A refresh that provably never left
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

from wfctl.api import errors
from wfctl.api.client import Client
from wfctl.api.net.transport import RetryPolicy
from wfctl.api.session.auth import TokenAuth
from wfctl.api.session.store import REFRESH_GRACE, REFRESH_RESEND_WINDOW, FileStore, TokenPair
from wfctl.errors import exit_code_for, message_for
from wfctl.sandbox.injectors import FaultProxy

BASE = "https://wams.example.com"
ADMIN = ("admin@northwind.test", "sandbox-admin")


class Service:
    """A token service in the shape of G3: every refresh rotates; a spent refresh token presented again
    within `grace` seconds with the same access token gets the same new pair, later it revokes.

    `lose`: exceptions raised after rotating instead of answering (one per refresh, in turn); `status`:
    statuses answered after rotating; `fail`: statuses answered before rotating (nothing committed)."""

    def __init__(self, *, lose: Any = None, status: int | None = None, fail: list[int] | None = None,
                 grace: float = 60.0) -> None:
        self.access, self.refresh = "acc-1", "ref-1"
        self.spent: dict[str, tuple[float, str, dict[str, Any]]] = {}
        self.refreshes = 0
        self.reuse = 0
        self.replays = 0
        self.lose = list(lose) if isinstance(lose, list) else ([lose] if lose is not None else [])
        self.status = [status] if status is not None else []
        self.fail = list(fail or [])
        self.grace = grace

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/identity/refresh":
            self.refreshes += 1
            if self.fail:
                return httpx.Response(self.fail.pop(0), json={"title": "database restarting"})
            sent = json.loads(request.content)
            token = sent["refreshToken"]
            if token in self.spent:
                when, access, answer = self.spent[token]
                if time.time() - when < self.grace and sent["accessToken"] == access \
                        and answer["refreshToken"] == self.refresh:
                    self.replays += 1
                    return self._answer(answer)
                self.reuse += 1
                return httpx.Response(401, json={"title": "Unauthorized", "status": 401})
            n = self.refreshes + 1
            self.access, self.refresh = f"acc-{n}", f"ref-{n}"
            answer = {"accessToken": self.access, "refreshToken": self.refresh, "expiresIn": 900}
            self.spent[token] = (time.time(), sent["accessToken"], answer)
            return self._answer(answer)
        if request.headers.get("Authorization") != f"Bearer {self.access}":
            return httpx.Response(401, headers={"WWW-Authenticate": "Bearer"})
        return httpx.Response(200, json={"name": "A"})

    def _answer(self, answer: dict[str, Any]) -> httpx.Response:
        if self.lose:
            raise self.lose.pop(0)
        if self.status:
            return httpx.Response(self.status.pop(0), text="upstream timed out")
        return httpx.Response(200, json=answer)


def _expired_store(tmp_path) -> FileStore:
    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    now = time.time()
    store.save(TokenPair("acc-1", "ref-1", now - 1, now - 901, "u", BASE))
    return store


def _client(service: Any, store: FileStore, base_url: str = BASE, transport: Any = None,
            retry: RetryPolicy | None = None) -> Client:
    return Client(base_url, auth=TokenAuth(store, base_url),
                  transport=transport if transport is not None else httpx.MockTransport(service),
                  retry=retry or RetryPolicy(max_attempts=3), sleep=lambda _: None)


def _stored(store: FileStore) -> TokenPair:
    pair = store.load()
    assert pair is not None
    return pair


@pytest.mark.parametrize("lost", [httpx.ReadTimeout("answer lost"),
                                  httpx.RemoteProtocolError("Server disconnected without sending a response")])
def test_a_lost_answer_is_asked_for_again_and_gets_the_same_pair(tmp_path, lost):
    """The service rotated, the answer was lost: the refresh is sent again at once (within the grace
    window) and the service answers it with the pair it made; the spent token revokes nothing."""
    store = _expired_store(tmp_path)
    service = Service(lose=lost)
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.refreshes == 2 and service.replays == 1 and service.reuse == 0
    stored = _stored(store)
    assert (stored.access_token, stored.refresh_token) == ("acc-2", "ref-2") and not stored.refresh_pending


def test_a_500_then_200_refreshes(tmp_path):
    """A 500 on refresh (a database restarting: nothing committed) no longer ends the login."""
    store = _expired_store(tmp_path)
    service = Service(fail=[500, 500])
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.refreshes == 3 and service.reuse == 0
    assert _stored(store).refresh_token == service.refresh == "ref-4"


def test_a_gateway_error_after_the_service_rotated_is_asked_for_again(tmp_path):
    store = _expired_store(tmp_path)
    service = Service(status=502)
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.refreshes == 2 and service.replays == 1 and service.reuse == 0


def test_5xx_on_every_try_keeps_the_login_for_the_next_run(tmp_path):
    store = _expired_store(tmp_path)
    service = Service(fail=[500] * 8)
    with pytest.raises(errors.ServerError) as info:
        _client(service, store).get_agency()
    text = message_for(info.value)
    assert exit_code_for(info.value) == 1 and "HTTP 500" in text, text
    assert "the refresh was tried 8 times; the login is kept" in text, text
    assert "log in again" not in text and "wfctl login" not in text, text
    stored = _stored(store)
    assert stored.refresh_pending and not stored.refresh_in_doubt and stored.refresh_token == "ref-1"
    # The service is back: the next run sends the refresh again and carries on.
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.reuse == 0 and not _stored(store).refresh_pending


def test_answers_lost_on_every_try_say_try_again_then_log_in(tmp_path):
    store = _expired_store(tmp_path)
    service = Service(lose=[httpx.ReadTimeout("lost")] * 1000, grace=REFRESH_GRACE)
    with pytest.raises(errors.NetworkError) as info:
        _client(service, store, retry=RetryPolicy(outage_time=5)).get_agency()
    text = message_for(info.value)
    assert exit_code_for(info.value) == 7 and "got no answer" in text and "the login is kept" in text, text
    assert service.refreshes > 3 and service.reuse == 0 and service.replays == service.refreshes - 1
    tries = service.refreshes
    # The window passes before the next run: the refresh token is not sent again.
    pair = _stored(store)
    pair.refresh_sent_at -= REFRESH_RESEND_WINDOW + 1
    store.save(pair)
    with pytest.raises(errors.NotLoggedIn) as later:
        _client(service, store).get_agency()
    assert exit_code_for(later.value) == 3 and "got no answer" in message_for(later.value)
    assert service.refreshes == tries and service.reuse == 0


def test_a_run_killed_while_waiting_is_finished_by_the_next_run(tmp_path):
    """The mark is on disk before anything is sent; the refresh is applied, the process dies before
    the answer: the next run, within the window, sends it again and gets the same pair."""
    store = _expired_store(tmp_path)
    service = Service()
    flow = TokenAuth(store, BASE).valid_pair()
    request = next(flow)
    assert _stored(store).refresh_pending
    service(request)  # the service rotates; the answer never reaches the process
    flow.close()
    assert _stored(store).refresh_pending and service.refreshes == 1
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.replays == 1 and service.reuse == 0 and _stored(store).refresh_token == "ref-2"


def test_a_pair_marked_before_the_window_is_never_resent(tmp_path):
    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    now = time.time()
    store.save(TokenPair("acc-1", "ref-1", now - 1, now - 901, "u", BASE, refresh_sent_at=now - REFRESH_RESEND_WINDOW - 5))
    service = Service()
    with pytest.raises(errors.NotLoggedIn) as info:
        _client(service, store).get_agency()
    text = message_for(info.value)
    assert exit_code_for(info.value) == 3 and "got no answer" in text and "wfctl login" in text, text
    assert service.refreshes == 0


def test_503_on_every_try_keeps_the_pair_in_doubt(tmp_path):
    """Issue 30: the sandbox on PostgreSQL answers 503 when its connection broke at the COMMIT of the
    rotation, and 503 while the database stays down: '503 every time' is not 'nothing rotated'. The pair
    stays marked and the next command, minutes later, sends the same pair again and gets the same new pair."""
    store = _expired_store(tmp_path)
    service = Service(status=503, fail=[503] * 1000, grace=REFRESH_GRACE)
    service.fail.clear()  # the first refresh rotates, then is answered 503; the database stays down

    def down(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/identity/refresh" and service.refreshes >= 1:
            service.refreshes += 1
            return httpx.Response(503, headers={"Retry-After": "1"}, json={"title": "database unavailable"})
        return service(request)

    with pytest.raises(errors.ServerError) as info:
        _client(down, store, retry=RetryPolicy(outage_time=5)).get_agency()
    text = message_for(info.value)
    assert exit_code_for(info.value) == 1 and "the login is kept" in text, text
    stored = _stored(store)
    assert stored.refresh_pending and stored.refresh_token == "ref-1"
    stored.refresh_sent_at -= 120  # the next command, two minutes later (past the old 60 s window)
    store.save(stored)
    assert _client(service, store).get_agency() == {"name": "A"}
    assert service.replays == 1 and service.reuse == 0
    assert _stored(store).refresh_token == "ref-2" and not _stored(store).refresh_pending


@pytest.mark.parametrize("status", [429, 401])
def test_a_definite_refusal_leaves_no_mark(tmp_path, status):
    store = _expired_store(tmp_path)
    rec: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        rec.append(request.url.path)
        return httpx.Response(status, json={"title": "no", "status": status})

    with pytest.raises(errors.ApiError):
        _client(refuse, store).get_agency()
    stored = store.load()
    assert stored is not None and not stored.refresh_pending and stored.refresh_token == "ref-1"


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
    assert stored is not None and not stored.refresh_pending
    with pytest.raises(errors.NetworkError):  # `wfctl auth token`'s path too
        c.access_token()
    stored = store.load()
    assert stored is not None and not stored.refresh_pending


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
    assert marked is not None and marked.refresh_pending  # on disk before anything is sent
    with pytest.raises(StopIteration) as done:
        flow.send(service(request))
    assert done.value.value.access_token == "acc-2"
    stored = store.load()
    assert stored is not None and not stored.refresh_pending and stored.refresh_token == "ref-2"


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
    """The sandbox rotates, the proxy drops its answer: wfctl sends the refresh again within the grace
    window and the sandbox answers it with the same pair; nothing is revoked, the command succeeds."""
    server = sandbox_factory(access_ttl=2)
    proxy = DropRefreshAnswers(server.url)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        time.sleep(2.2)  # the access token has expired: the next command refreshes
        first = cli("agency", "show", "-o", "json")
        assert first.exit_code == 0, first
        assert proxy.dropped == 1
        assert server.reuse_detections() == 0  # the spent refresh token was answered, not taken for theft
        time.sleep(2.2)  # the pair it got is the live one: it refreshes again
        assert cli("agency", "show").exit_code == 0
        doctor = json.loads(cli("doctor", "-o", "json").stdout)
        token = next(c for c in doctor if c["check"] == "token")
        assert token["status"] != "fail", token
        assert server.reuse_detections() == 0
    finally:
        proxy.stop()


def test_auth_status_and_doctor_report_a_pair_in_doubt(logged_in):
    token_file = logged_in.config_dir / "credentials" / "default.json"
    doc = json.loads(token_file.read_text())
    doc["refresh_sent_at"] = time.time() - REFRESH_RESEND_WINDOW - 60  # past the window
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
