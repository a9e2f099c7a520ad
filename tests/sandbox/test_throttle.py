"""Logins that resist guessing (issue 16 §3): 10 failed logins within 15 minutes, per user name and per client
address, lock further logins (429 + Retry-After) until the window passes, even with the right password; unknown
and locked users cost the same scrypt; wfctl reports the 429 without waiting it out; --log-requests names the
user of each request and never a secret."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.fixtures.cli import REPO_ROOT, Cli
from tests.fixtures.sandbox import ADMIN, MANAGER, SandboxServer
from tests.sandbox.helpers import assert_problem
from wfctl.sandbox.accounts import LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW, LoginThrottle
from wfctl.sandbox.store import open_store


def _login(server: SandboxServer, username: str, password: str, source: str = "127.0.0.1") -> httpx.Response:
    """A login from a source address of the loopback network (127.0.0.0/8 all reach 127.0.0.1)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=10) as client:
        return client.post(f"{server.url}/identity/login", json={"username": username, "password": password})


def _assert_locked(response: httpx.Response) -> int:
    body = assert_problem(response, 429)
    assert "too many failed logins" in body["detail"], body
    wait = int(response.headers["retry-after"])
    assert LOGIN_FAILURE_WINDOW - 60 < wait <= LOGIN_FAILURE_WINDOW, wait
    return wait


@pytest.mark.parametrize("username", [MANAGER[0], "ghost@northwind.test"], ids=["known", "unknown"])
def test_ten_failures_lock_a_user_name(sandbox_factory: Callable[..., SandboxServer], username: str) -> None:
    server = sandbox_factory(seed=False)
    for n in range(LOGIN_FAILURE_LIMIT):  # each from another address: only the name's count reaches the limit
        assert_problem(_login(server, username, "guess", f"127.0.0.{10 + n}"), 401)
    _assert_locked(_login(server, username, MANAGER[1], "127.0.0.50"))  # the right password does not get in
    _assert_locked(_login(server, username.upper(), MANAGER[1], "127.0.0.51"))  # in any case
    assert _login(server, *ADMIN, "127.0.0.52").status_code == 200  # other names are not locked


def test_ten_failures_lock_an_address_across_user_names(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    for n in range(LOGIN_FAILURE_LIMIT):
        assert_problem(_login(server, f"user{n}@northwind.test", "guess", "127.0.0.7"), 401)
    _assert_locked(_login(server, *ADMIN, "127.0.0.7"))
    assert _login(server, *ADMIN, "127.0.0.8").status_code == 200  # another address is not locked
    _assert_locked(_login(server, *ADMIN, "127.0.0.7"))  # nor does its success unlock the first


def test_the_lock_ends_when_the_failures_leave_the_window(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False)
    _fail(server, MANAGER[0], LOGIN_FAILURE_LIMIT)
    _assert_locked(_login(server, *MANAGER))
    _age_failures(server, LOGIN_FAILURE_WINDOW - 30)  # the oldest failure leaves the window in 30 seconds
    wait = int(_login(server, *MANAGER).headers["retry-after"])
    assert 25 <= wait <= 30, wait
    _age_failures(server, 31)
    assert _login(server, *MANAGER).status_code == 200
    _fail(server, MANAGER[0], 1)  # a success cleared the name's count
    assert_problem(_login(server, MANAGER[0], "guess", "127.0.0.9"), 401)


def test_a_locked_login_costs_one_password_check_as_any_other(sandbox_factory: Callable[..., SandboxServer],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from wfctl.sandbox import identity

    server = sandbox_factory(seed=False)
    _fail(server, MANAGER[0], LOGIN_FAILURE_LIMIT)
    _fail(server, "ghost@northwind.test", LOGIN_FAILURE_LIMIT)
    checked: list[str] = []
    verify = identity.verify_password
    monkeypatch.setattr(identity, "verify_password", lambda password, stored: checked.append(stored) or verify(password, stored))
    for username in (MANAGER[0], "ghost@northwind.test"):  # locked: a known and an unknown name
        _assert_locked(_login(server, username, MANAGER[1]))
    for username in (ADMIN[0], "nobody@northwind.test"):  # not locked: a known and an unknown name
        assert _login(server, username, "guess", "127.0.0.2").status_code == 401
    assert len(checked) == 4 and all(stored.startswith("scrypt$") for stored in checked)


def test_wfctl_login_reports_the_lock_without_waiting_it_out(cli: Cli, sandbox_factory: Callable[..., SandboxServer],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from wfctl.api.net import transport

    server = sandbox_factory(seed=False)
    _fail(server, ADMIN[0], LOGIN_FAILURE_LIMIT)
    slept: list[float] = []
    make = transport.make_transport
    monkeypatch.setattr(transport, "make_transport", lambda **kw: make(**{**kw, "sleep": slept.append}))
    r = cli.login_as(server.url, *ADMIN)
    assert r.exit_code == 1, r
    assert re.fullmatch(r"error: Too Many Requests: too many failed logins for this user name or from this address; "
                        r"try again in 1[45] minutes \(HTTP 429\)\n", r.stderr), r
    assert ADMIN[1] not in r.stdout + r.stderr
    # Retry-After (15 minutes) is past the transport's cap: reported at once, no wait at all
    assert slept == [], slept


def test_log_requests_names_the_user_and_no_secret(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", "0", "--log-requests",
                             "--no-seed"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                            cwd=tmp_path)
    try:
        assert proc.stderr is not None
        url = ""
        for line in proc.stderr:
            match = re.match(r"wfctl sandbox on (http://\S+)", line)
            url = match.group(1) if match else url
            if line.startswith("stop with: kill"):
                break
        tokens = httpx.post(f"{url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]},
                            timeout=10).json()
        httpx.get(f"{url}/api/branches", headers={"Authorization": f"Bearer {tokens['accessToken']}"}, timeout=10)
        for _ in range(LOGIN_FAILURE_LIMIT + 1):
            httpx.post(f"{url}/identity/login", json={"username": "Ghost@northwind.test", "password": "guess-1234"},
                       timeout=10)
        lines = [proc.stderr.readline().rstrip("\n") for _ in range(LOGIN_FAILURE_LIMIT + 3)]
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert re.fullmatch(r"POST /identity/login 200 \d+ ms admin@northwind\.test", lines[0]), lines
    assert re.fullmatch(r"GET /api/branches 200 \d+ ms admin@northwind\.test", lines[1]), lines
    for line in lines[2:-1]:
        assert re.fullmatch(r"POST /identity/login 401 \d+ ms login failed: Ghost@northwind\.test", line), lines
    assert re.fullmatch(r"POST /identity/login 429 \d+ ms login throttled: Ghost@northwind\.test", lines[-1]), lines
    text = "\n".join(lines)
    for secret in (ADMIN[1], "guess-1234", tokens["accessToken"], tokens["refreshToken"]):
        assert secret not in text


# ---- helpers ----------------------------------------------------------------------------------


def _fail(server: SandboxServer, username: str, times: int) -> None:
    """Record failed logins of `username` from 127.0.0.1 as the server does (no scrypt: fast)."""
    store = open_store(server.db_path)
    try:
        for _ in range(times):
            LoginThrottle(store).failed(username, "127.0.0.1")
    finally:
        store.close()


def _age_failures(server: SandboxServer, seconds: float) -> None:
    """Move every recorded failure `seconds` into the past (time passing, without the wait)."""
    store = open_store(server.db_path)
    try:
        with store.statement() as db:
            db.execute("UPDATE login_failures SET at = at - ?", (seconds,))
    finally:
        store.close()
