"""`wfctl sandbox users|agencies` on the database of a running sandbox (issue 16 §2): a login added works over
HTTP at once; a new password or a removal ends the user's logins at once; errors are one line and an exit code;
a password is never shown."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import REPO_ROOT, Cli, Result
from tests.fixtures.sandbox import SandboxServer, login_token

USER = "lee@northwind.test"
FIRST, SECOND = "first-Password-1", "second-Password-2"


@pytest.fixture
def server(sandbox_factory: Callable[..., SandboxServer]) -> SandboxServer:
    return sandbox_factory()


def _run(cli: Cli, server: SandboxServer, *args: str, input: str | None = None, tty: bool = False) -> Result:
    result = cli("sandbox", *args, *_where(server), input=input, tty=tty)
    for secret in (FIRST, SECOND):
        assert secret not in result.stdout + result.stderr, result
    return result


def _where(server: SandboxServer) -> list[str]:
    """The options naming the server's database: a SQLite file, or a PostgreSQL URL."""
    return ["--database" if "://" in server.db_path else "--db", server.db_path]


def _login(server: SandboxServer, username: str, password: str) -> httpx.Response:
    return httpx.post(f"{server.url}/identity/login", json={"username": username, "password": password}, timeout=10)


def _agency(server: SandboxServer, access_token: str) -> httpx.Response:
    return httpx.get(f"{server.url}/api/agency/", headers={"Authorization": f"Bearer {access_token}"}, timeout=10)


def _refresh(server: SandboxServer, pair: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}/identity/refresh", timeout=10,
                      json={"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]})


def test_add_login_passwd_remove_on_a_running_sandbox(cli: Cli, server: SandboxServer) -> None:
    r = _run(cli, server, "users", "add", "Lee@Northwind.test", "--agency", "northwind staffing", "--role", "manager",
             "--password-stdin", input=FIRST + "\n")
    assert r.exit_code == 0, r
    assert "username: lee@northwind.test\nrole:     manager\nagency:   Northwind Staffing\n" in r.stdout

    first = login_token(server, USER, FIRST)  # the running server sees the new login at once
    assert _agency(server, first["accessToken"]).json()["name"] == "Northwind Staffing"
    assert cli.login_as(server.url, USER, FIRST).exit_code == 0  # and wfctl logs in with it
    assert cli("agency", "show", "-o", "json").exit_code == 0

    r = _run(cli, server, "users", "passwd", USER, "--password-stdin", input=SECOND)
    assert (r.exit_code, r.stdout) == (0, f"password of {USER} changed; 2 logins revoked\n"), r
    assert _agency(server, first["accessToken"]).status_code == 401  # the old access token, at once
    assert _refresh(server, first).status_code == 401  # and the old refresh token
    assert _login(server, USER, FIRST).status_code == 401
    r = cli("agency", "show")
    assert r.exit_code == 3, r  # wfctl's login is gone too: log in again
    second = login_token(server, USER, SECOND)
    assert _agency(server, second["accessToken"]).status_code == 200

    r = _run(cli, server, "users", "remove", USER, "--yes")
    assert (r.exit_code, r.stdout) == (0, f"user {USER} removed; 1 login revoked\n"), r
    assert _agency(server, second["accessToken"]).status_code == 401
    assert _refresh(server, second).status_code == 401
    assert _login(server, USER, SECOND).status_code == 401
    r = _run(cli, server, "users", "list", "-o", "json")
    assert USER not in r.stdout

    # the name may be added again: a new user, none of the old tokens come back
    r = _run(cli, server, "users", "add", USER, "--agency", "Northwind Staffing", "--role", "admin",
             "--password-stdin", input=FIRST)
    assert r.exit_code == 0, r
    assert _agency(server, second["accessToken"]).status_code == 401
    assert _login(server, USER, FIRST).status_code == 200


def test_a_staff_login_bound_to_a_branch(cli: Cli, server: SandboxServer) -> None:
    r = _run(cli, server, "users", "add", "sam@northwind.test", "--agency", "Northwind Staffing", "--role", "staff",
             "--branch", "LEEDS riverside", "--password-stdin", input=FIRST)
    assert r.exit_code == 0, r
    token = login_token(server, "sam@northwind.test", FIRST)["accessToken"]
    headers = {"Authorization": f"Bearer {token}"}
    branches = httpx.get(f"{server.url}/api/branches", headers=headers, timeout=10).json()["data"]
    leeds = next(b["id"] for b in branches if b["name"] == "Leeds Riverside")
    clients = httpx.get(f"{server.url}/api/clients", headers=headers, timeout=10).json()["data"]
    assert clients and {c["branchId"] for c in clients} == {leeds}


def test_agencies_add_and_list(cli: Cli, server: SandboxServer) -> None:
    r = _run(cli, server, "agencies", "add", "Eastfield Staffing", "--email", "office@eastfield.test", "-o", "json")
    assert r.exit_code == 0, r
    r = _run(cli, server, "agencies", "list", "-o", "json")
    import json

    listed = {a["name"]: a for a in json.loads(r.stdout)}
    assert set(listed) == {"Eastfield Staffing", "Northwind Staffing", "Southgate Recruitment"}
    assert listed["Eastfield Staffing"]["email"] == "office@eastfield.test" and listed["Eastfield Staffing"]["users"] == 0
    assert listed["Northwind Staffing"]["users"] == 3

    r = _run(cli, server, "agencies", "add", "EASTFIELD staffing")
    assert (r.exit_code, r.stderr) == (5, "error: an agency named 'EASTFIELD staffing' already exists\n"), r

    agency_id = listed["Eastfield Staffing"]["id"]
    r = _run(cli, server, "users", "add", "boss@eastfield.test", "--agency", agency_id, "--role", "admin",
             "--password-stdin", input=FIRST)
    assert r.exit_code == 0, r
    r = _run(cli, server, "users", "list", "--agency", "Eastfield Staffing")
    assert r.stdout.splitlines()[1].split() == ["boss@eastfield.test", "admin", "Eastfield", "Staffing"], r
    token = login_token(server, "boss@eastfield.test", FIRST)["accessToken"]
    agency = _agency(server, token).json()
    assert (agency["name"], agency["email"], agency["calendarYearStart"][5:]) == \
        ("Eastfield Staffing", "office@eastfield.test", "01-01")


def test_users_list_shows_no_hashes(cli: Cli, server: SandboxServer) -> None:
    r = _run(cli, server, "users", "list", "-o", "json")
    assert r.exit_code == 0, r
    assert "scrypt" not in r.stdout and "password" not in r.stdout.lower()
    r = _run(cli, server, "users", "list")
    assert r.stdout.splitlines()[0].split() == ["username", "role", "agency", "branch"]


@pytest.mark.parametrize(("args", "code", "message"), [
    (["users", "add", USER, "--agency", "Nowhere Ltd", "--role", "admin", "--password-stdin"], 4,
     "no agency 'Nowhere Ltd' (see wfctl sandbox agencies list)"),
    (["users", "add", USER, "--agency", "Northwind Staffing", "--role", "staff", "--branch", "Mars",
      "--password-stdin"], 4, "no branch 'Mars' in Northwind Staffing"),
    (["users", "add", USER, "--agency", "Northwind Staffing", "--role", "manager", "--branch", "Leeds Riverside",
      "--password-stdin"], 2, "only a staff login is bound to a branch: leave out --branch"),
    (["users", "add", "ADMIN@northwind.test", "--agency", "Southgate Recruitment", "--role", "admin",
      "--password-stdin"], 5, "a user named 'admin@northwind.test' already exists"),
    (["users", "add", USER, "--agency", "Northwind Staffing", "--role", "admin"], 2,
     "no password: pipe it to --password-stdin, or run this on a terminal"),
    (["users", "passwd", "ghost@northwind.test", "--password-stdin"], 4, "no user named 'ghost@northwind.test'"),
    (["users", "remove", "ghost@northwind.test", "--yes"], 4, "no user named 'ghost@northwind.test'"),
    (["users", "remove", "admin@northwind.test"], 2,
     "refusing to remove user admin@northwind.test without confirmation: no terminal to ask on; pass --yes"),
    (["users", "list", "--agency", "Nowhere Ltd"], 4, "no agency 'Nowhere Ltd' (see wfctl sandbox agencies list)"),
    (["agencies", "add", "Eastfield", "--email", "not-an-address"], 2,
     "--email 'not-an-address' is not an e-mail address"),
])
def test_errors_are_one_line_with_their_exit_code(cli: Cli, server: SandboxServer, args: list[str], code: int,
                                                  message: str) -> None:
    r = _run(cli, server, *args, input=FIRST)
    assert (r.exit_code, r.stderr, r.stdout) == (code, f"error: {message}\n", ""), r


def test_a_short_or_empty_password_is_refused(cli: Cli, server: SandboxServer) -> None:
    args = ["users", "add", USER, "--agency", "Northwind Staffing", "--role", "admin", "--password-stdin"]
    r = _run(cli, server, *args, input="short\n")
    assert (r.exit_code, r.stderr) == (2, "error: the password must be at least 8 characters\n"), r
    r = _run(cli, server, *args, input="\n")
    assert (r.exit_code, r.stderr) == (2, "error: the password is empty\n"), r
    assert _login(server, USER, "short").status_code == 401


def test_which_database(cli: Cli, server: SandboxServer, tmp_path: Any) -> None:
    r = cli("sandbox", "users", "list")
    assert (r.exit_code, r.stderr) == (2, "error: which sandbox? pass --db <file> (or --database <url>) as given "
                                          "to `wfctl sandbox serve`\n"), r
    missing = tmp_path / "typo.db"
    r = cli("sandbox", "users", "list", "--db", str(missing))
    assert (r.exit_code, r.stderr) == (2, f"error: --db {missing}: no such file; `wfctl sandbox serve --db "
                                          f"{missing}` creates it\n"), r
    assert not missing.exists()
    r = cli("sandbox", "users", "list", "--db", str(missing), "--database", f"sqlite:///{missing}")
    assert r.exit_code == 2 and "give one of them" in r.stderr, r
    if "://" not in server.db_path:
        r = cli("sandbox", "agencies", "list", "--database", f"sqlite:///{server.db_path}", "-o", "json")
        assert r.exit_code == 0 and "Southgate Recruitment" in r.stdout, r
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    r = cli("sandbox", "users", "list", "--db", str(notes))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {notes}: ") and "database" in r.stderr, r


def test_remove_asks_on_a_terminal(cli: Cli, server: SandboxServer) -> None:
    r = _run(cli, server, "users", "remove", "manager@northwind.test", input="n\n", tty=True)
    assert r.exit_code == 2, r
    assert r.stderr == ("Remove user manager@northwind.test (manager of Northwind Staffing)? Their logins end at "
                        "once. [y/N]: Not removed.\n")
    assert _login(server, "manager@northwind.test", "sandbox-manager").status_code == 200
    r = _run(cli, server, "users", "remove", "manager@northwind.test", input="y\n", tty=True)
    assert r.exit_code == 0, r
    assert _login(server, "manager@northwind.test", "sandbox-manager").status_code == 401


def test_passwd_asks_twice_without_echo_on_a_terminal(cli: Cli, server: SandboxServer) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    child = pexpect.spawn(sys.executable, ["-m", "wfctl", "sandbox", "users", "passwd", "staff@northwind.test",
                                           *_where(server)], env=env, encoding="utf-8", timeout=30,
                          cwd=str(cli.tmp_path))
    child.expect_exact("New password for staff@northwind.test: ")
    child.sendline(SECOND)
    child.expect_exact("Repeat the password: ")
    child.sendline(SECOND)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert SECOND not in (child.before or "")
    assert "password of staff@northwind.test changed" in (child.before or "")
    assert _login(server, "staff@northwind.test", SECOND).status_code == 200
