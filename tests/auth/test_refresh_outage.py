"""Issue 30 §3: a refresh whose outcome nobody saw is never a logout while the new pair is unused.

The sandbox rotates the pair and commits, but the answer is lost, and then the service is down for a while:
on PostgreSQL a proxy between the sandbox and the database forwards the refresh's COMMIT, drops the
database's answer (the sandbox answers 503, not knowing) and refuses connections for some seconds; on
SQLite a proxy between wfctl and the sandbox drops the refresh's answer and answers 503 for some seconds.
wfctl rides the outage out and is answered the same new pair; a command that gives up first keeps the pair
in doubt, and the next one, minutes later, is answered the same pair too. No reuse event either way."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer
from wfctl.sandbox.injectors import CommitCutProxy, FaultProxy
from wfctl.sandbox.store import open_store

LATER = 120.0  # "the next command", two minutes later: past the 60 s window of before


@pytest.fixture
def pg_sandbox(postgres: Any) -> Iterator[tuple[SandboxServer, CommitCutProxy]]:
    proxy = CommitCutProxy(postgres.new_database())
    server = SandboxServer(proxy.url, access_ttl=2)
    try:
        yield server, proxy
    finally:
        server.stop()
        proxy.stop()


def _expire(cli: Cli) -> None:
    """The stored access token has expired: the next command refreshes first."""
    token_file = cli.config_dir / "credentials" / "default.json"
    doc = json.loads(token_file.read_text())
    doc["expires_at"] = time.time() - 1
    token_file.write_text(json.dumps(doc))


def _stored(cli: Cli) -> dict[str, Any]:
    return json.loads((cli.config_dir / "credentials" / "default.json").read_text())  # type: ignore[no-any-return]


def _later(cli: Cli, server: SandboxServer, seconds: float) -> None:
    """As if `seconds` had passed since the refresh: the stored mark and the sandbox's rotation both aged."""
    token_file = cli.config_dir / "credentials" / "default.json"
    doc = json.loads(token_file.read_text())
    doc["refresh_sent_at"] -= seconds
    token_file.write_text(json.dumps(doc))
    store = open_store(server.db_path)
    try:
        store.db.execute("UPDATE refresh_tokens SET spent_at = spent_at - ? WHERE spent_at IS NOT NULL", (seconds,))
    finally:
        store.close()


def test_postgresql_cut_at_the_commit_then_down_12_s(cli: Cli, pg_sandbox: tuple[SandboxServer, CommitCutProxy]) -> None:
    """Was: 8 tries in about 8 s, '503 every time' taken for 'nothing rotated', exit 1, and the next command
    a logout. Now the command rides out the 12 s and is answered the pair the sandbox committed."""
    server, proxy = pg_sandbox
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    _expire(cli)
    proxy.cut_after(b"COMMIT", refuse=12)  # the refresh's rotation, then 12 s down
    started = time.monotonic()
    r = cli("agency", "show", "-o", "json")
    assert r.exit_code == 0, r
    assert proxy.cuts == 1 and proxy.refused > 0
    assert 12 <= time.monotonic() - started < 30
    assert json.loads(r.stdout)["name"] == "Northwind Staffing"
    assert server.reuse_detections() == 0
    assert not _stored(cli).get("refresh_sent_at")
    _expire(cli)  # the pair it got is the live one: it rotates as usual
    assert cli("agency", "show").exit_code == 0
    assert server.reuse_detections() == 0


def test_postgresql_down_longer_than_the_command_waits(cli: Cli, pg_sandbox: tuple[SandboxServer, CommitCutProxy]) -> None:
    """The command gives up first (exit 1, the login kept, in doubt); the next command, two minutes later,
    sends the same pair again and is answered the pair the sandbox committed: no logout, no reuse event."""
    server, proxy = pg_sandbox
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    _expire(cli)
    spent = _stored(cli)["refresh_token"]
    proxy.cut_after(b"COMMIT", refuse=5)
    r = cli("agency", "show", env={"WFCTL_OUTAGE_SECONDS": "2"})
    assert r.exit_code == 1, r
    assert "the login is kept, and the next command sends the refresh again" in r.stderr, r.stderr
    assert proxy.cuts == 1
    doc = _stored(cli)
    assert doc["refresh_sent_at"] > 0 and doc["refresh_token"] == spent  # in doubt: the old pair, marked
    while proxy.down():
        time.sleep(0.1)
    _later(cli, server, LATER)
    again = cli("agency", "show", "-o", "json")
    assert again.exit_code == 0, again
    assert server.reuse_detections() == 0
    assert _stored(cli)["refresh_token"] != spent and not _stored(cli).get("refresh_sent_at")


def test_a_spent_token_with_another_access_token_is_still_a_reuse(
        cli: Cli, pg_sandbox: tuple[SandboxServer, CommitCutProxy]) -> None:
    """Within the window, only the request that was sent (the same access token) is answered again."""
    import httpx

    server, _ = pg_sandbox
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    old = _stored(cli)
    _expire(cli)
    assert cli("agency", "show").exit_code == 0
    new = _stored(cli)
    _later(cli, server, LATER)
    answer = httpx.post(f"{server.url}/identity/refresh", timeout=10,
                        json={"accessToken": new["access_token"], "refreshToken": old["refresh_token"]})
    assert answer.status_code == 401
    assert server.reuse_detections() == 1
    assert cli("agency", "show").exit_code == 3  # the whole login is revoked


class LoseRefreshThenDown(FaultProxy):
    """Between wfctl and a sandbox on SQLite: the first refresh is forwarded and its answer dropped (the
    sandbox rotated), then for `down` seconds every request is answered 503 by the proxy itself."""

    def __init__(self, upstream: str, down: float) -> None:
        self.armed = True
        self.down_for = down
        self.down_until = 0.0
        self.refused = 0

        def drop(method: str, path: str) -> bool:
            if self.armed and path.startswith("/identity/refresh"):
                self.armed = False
                self.down_until = time.monotonic() + self.down_for
                return True
            return False

        def answer(method: str, path: str) -> bytes | None:
            if time.monotonic() < self.down_until:
                self.refused += 1
                body = b'{"title":"Service Unavailable","status":503}'
                return (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/problem+json"
                        b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return None

        super().__init__(upstream, drop=drop, answer=answer)
        self.random = type("Always", (), {"random": staticmethod(lambda: 0.0)})()


@pytest.mark.parametrize("outage, waits", [(6, True), (6, False)])
def test_sqlite_answer_lost_then_an_outage(cli: Cli, sandbox_factory: Callable[..., SandboxServer],
                                           outage: float, waits: bool) -> None:
    server = sandbox_factory()
    proxy = LoseRefreshThenDown(server.url, outage)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        _expire(cli)
        spent = _stored(cli)["refresh_token"]
        r = cli("agency", "show", env={} if waits else {"WFCTL_OUTAGE_SECONDS": "2"})
        assert proxy.dropped == 1 and proxy.refused > 0
        if waits:
            assert r.exit_code == 0, r
        else:
            assert r.exit_code == 1 and "the login is kept" in r.stderr, r
            assert _stored(cli)["refresh_token"] == spent and _stored(cli)["refresh_sent_at"] > 0
            while time.monotonic() < proxy.down_until:
                time.sleep(0.1)
            _later(cli, server, LATER)
            assert cli("agency", "show").exit_code == 0
        assert server.reuse_detections() == 0
        assert _stored(cli)["refresh_token"] != spent and not _stored(cli).get("refresh_sent_at")
    finally:
        proxy.stop()
