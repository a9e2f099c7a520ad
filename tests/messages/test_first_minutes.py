"""Issue 24 §2: the first five minutes. Login asks again after a wrong password on a terminal (three tries,
as ssh and sudo), never when the password came from stdin; before any login the keyring library's
NoKeyringError is never shown: wfctl says what is true (not logged in and how, or no such profile)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.messages.helpers import SIZES, finish, screen_lines, spawn
from wfctl.config import update_profile

pexpect = pytest.importorskip("pexpect")
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


@pytest.fixture
def own(sandbox_factory: Any) -> Any:
    """A sandbox of this test's own: wrong passwords count towards the service's login-failure limit."""
    return sandbox_factory()


@pytest.mark.parametrize("size", SIZES)
def test_login_asks_again_after_a_wrong_password(cli: Any, own: Any, size: tuple[int, int]) -> None:
    child = spawn(cli, "login", "--base-url", own.url, "-u", "admin@northwind.test", "--credential-store", "file",
                  size=size)
    prompt = f"Password for admin@northwind.test at {own.url}: "
    child.expect_exact(prompt)
    child.sendline("typo-1")
    child.expect_exact("Wrong user name or password; try again.")
    child.expect_exact(prompt)  # was: error, exit 3, and the next try typed by habit went to the shell
    child.sendline("sandbox-admin")
    code, shown = finish(child)
    assert code == 0, shown
    assert "Logged in to" in shown and "sandbox-admin" not in shown and "typo-1" not in shown
    assert cli("agency", "show", "-o", "json").exit_code == 0


@pytest.mark.parametrize("size", SIZES)
def test_three_wrong_passwords_end_the_login(cli: Any, own: Any, size: tuple[int, int]) -> None:
    child = spawn(cli, "login", "--base-url", own.url, "-u", "admin@northwind.test", "--credential-store", "file",
                  size=size)
    for attempt in range(3):
        if attempt:
            child.expect_exact("Wrong user name or password; try again.")
        child.expect_exact(f"Password for admin@northwind.test at {own.url}: ")
        child.sendline(f"typo-{attempt}")
    code, shown = finish(child)
    assert code == 3
    lines = [line for line in screen_lines(shown) if line.strip()]
    assert lines == [f"error: wrong user name or password for admin@northwind.test at {own.url} (HTTP 401; 3 tries)"]


def test_a_password_from_stdin_is_tried_once(cli: Any, own: Any) -> None:
    r = cli("login", "--base-url", own.url, "-u", "admin@northwind.test", "--password-stdin",
            "--credential-store", "file", input="wrong\nsandbox-admin\n", tty=True)
    assert r.exit_code == 3, r
    assert r.stderr.splitlines()[-1] == (f"error: wrong user name or password for admin@northwind.test at {own.url} "
                                         "(HTTP 401)")
    assert "try again" not in r.stderr


def test_no_terminal_no_second_try(cli: Any, own: Any) -> None:
    r = cli.subprocess("login", "--base-url", own.url, "-u", "admin@northwind.test", "--password-stdin",
                       "--credential-store", "file", input="wrong\n")
    assert r.exit_code == 3 and "try again" not in r.stderr, r


HOW = ("this host has no keyring, where `wfctl login` keeps a login by default; run `wfctl login "
       "--credential-store file` (the tokens in a 0600 file), or set WFCTL_ACCESS_TOKEN")


@pytest.mark.parametrize("args", [["auth", "status"], ["branches", "list"], ["--base-url", "URL", "branches", "list"],
                                  ["--base-url", "URL", "auth", "status"]])
def test_before_any_login_it_says_not_logged_in_and_how(cli: Any, sandbox: Any, args: list[str]) -> None:
    args = [sandbox.url if word == "URL" else word for word in args]
    r = cli(*args, env=NO_KEYRING)
    assert (r.exit_code, r.stdout) == (3, ""), r
    assert "NoKeyringError" not in r.stderr and "keyrings.alt" not in r.stderr
    if "--base-url" in args:
        assert r.stderr == f"error: not logged in (profile 'default'): {HOW}\n"
    else:  # no service URL either
        assert r.stderr.startswith("error: "), r.stderr
        assert "wfctl login" in r.stderr


def test_a_mistyped_profile_before_any_login_is_named(cli: Any, sandbox: Any) -> None:
    for args in (["-p", "slwo", "auth", "status"], ["-p", "slwo", "--base-url", sandbox.url, "branches", "list"],
                 ["-p", "slwo", "branches", "list"]):
        r = cli(*args, env=NO_KEYRING)
        assert r.exit_code == 3, r
        assert r.stderr == ("error: no profile 'slwo' (no profiles yet); "
                            "to create it, run `wfctl -p slwo login --base-url <url>`\n"), r


def test_a_mistyped_profile_names_the_profiles_there_are(cli: Any, sandbox: Any) -> None:
    update_profile("default", {"base_url": sandbox.url})
    update_profile("staging", {"base_url": sandbox.url})
    r = cli("-p", "slwo", "--base-url", sandbox.url, "auth", "status", env=NO_KEYRING)
    assert r.exit_code == 3
    assert r.stderr == ("error: no profile 'slwo' (profiles: default, staging); "
                        "to create it, run `wfctl -p slwo login --base-url <url>`\n")
    r = cli("auth", "status", "-o", "json", env=NO_KEYRING)  # the default profile, there but not logged in
    error = json.loads(r.stderr)["error"]
    assert (error["status"], error["code"], error["title"]) == (None, "auth", error["title"])
    assert error["title"].startswith("not logged in (profile 'default'): this host has no keyring")


@pytest.mark.parametrize("command", [["config", "list"], ["config", "get", "base_url"], ["config", "unset", "output"]])
def test_config_of_a_missing_profile_names_it(cli: Any, sandbox: Any, command: list[str]) -> None:
    r = cli("-p", "slwo", *command)
    assert (r.exit_code, r.stdout) == (2, ""), r  # was: the defaults, exit 0
    assert r.stderr == ("error: no profile 'slwo' (no profiles yet); "
                        "to create it, run `wfctl -p slwo login --base-url <url>`\n")
    update_profile("default", {"base_url": sandbox.url})
    r = cli("-p", "slwo", *command, env={"WFCTL_PROFILE": "x"})
    assert r.stderr.startswith("error: no profile 'slwo' (profiles: default); "), r
    assert cli(*command).exit_code == 0  # the default profile needs no entry of its own
    r = cli("-p", "new", "config", "set", "output", "json")  # set creates the profile
    assert r.exit_code == 0, r
    assert cli("-p", "new", *command).exit_code == 0


def test_config_set_suggests_the_key_meant(cli: Any) -> None:
    r = cli("config", "set", "outptu", "json")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: unknown setting 'outptu'; did you mean output? known: base_url, output, "), r
    r = cli("config", "get", "base-url")
    assert r.stderr.startswith("error: unknown setting 'base-url'; did you mean base_url? known: "), r


@pytest.mark.parametrize(("url", "suggested"), [
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("localhost:8000/", "http://localhost:8000/"),
    ("[::1]:8000", "http://[::1]:8000"),
    ("wams.example.com", "https://wams.example.com"),
])
def test_a_url_without_a_scheme_suggests_one(cli: Any, url: str, suggested: str) -> None:
    r = cli("--base-url", url, "branches", "list")
    assert (r.exit_code, r.stderr) == (2, f"error: base URL {url!r} needs a scheme, e.g. {suggested}\n"), r
    r = cli("login", "--base-url", url, "-u", "u", "--password-stdin", "--credential-store", "file", input="pw")
    assert (r.exit_code, r.stderr) == (2, f"error: base URL {url!r} needs a scheme, e.g. {suggested}\n"), r


def test_a_plain_http_answer_to_https_is_named(cli: Any, sandbox: Any) -> None:
    https = sandbox.url.replace("http://", "https://")
    expected = (f"{https} answered in plain http, not https (TLS); if it serves http (a local sandbox does), "
                f"use --base-url {sandbox.url}, else check the port")
    r = cli("--base-url", https, "branches", "list", env={"WFCTL_ACCESS_TOKEN": "t"})
    assert (r.exit_code, r.stderr) == (7, f"error: {expected}\n"), r  # was: ... [SSL: WRONG_VERSION_NUMBER] ...
    r = cli("login", "--base-url", https, "-u", "u", "--password-stdin", "--credential-store", "file", input="pw")
    assert (r.exit_code, r.stderr) == (7, f"error: {expected}\n"), r
    r = cli("--base-url", https, "branches", "list", "-o", "json", env={"WFCTL_ACCESS_TOKEN": "t"})
    error = json.loads(r.stderr)["error"]
    assert (error["status"], error["code"], error["detail"]) == (None, "network", expected)


def test_logout_on_a_host_without_a_keyring_says_the_true_thing(cli: Any) -> None:
    """Issue 36: logout printed keyring's NoKeyringError (install keyrings.alt), exit 3; nothing can be kept in a
    keyring the host does not have, so the profile was not logged in."""
    r = cli("logout", env=NO_KEYRING, tty=True)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "Profile 'default' was not logged in.\n"), r
    r = cli("logout", env=NO_KEYRING)  # a note is for a terminal: a script gets exit 0 and nothing else
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", ""), r
    r = cli("-p", "slwo", "logout", env=NO_KEYRING)  # a typo is named as every command names it
    assert (r.exit_code, r.stderr) == (3, "error: no profile 'slwo' (no profiles yet); "
                                          "to create it, run `wfctl -p slwo login --base-url <url>`\n"), r


@pytest.mark.parametrize("size", SIZES)
def test_the_service_url_prompt_asks_again_after_a_url_without_a_scheme(cli: Any, own: Any,
                                                                        size: tuple[int, int]) -> None:
    """Issue 36: a URL typed without its scheme at the `Service URL:` prompt ended the login (exit 2)."""
    child = spawn(cli, "login", "-u", "admin@northwind.test", "--credential-store", "file", size=size)
    child.expect_exact("Service URL: ")
    bare = own.url.split("://", 1)[1]
    child.sendline(bare)
    child.expect_exact(f"base URL {bare!r} needs a scheme, e.g. http://{bare}; try again.")
    child.expect_exact("Service URL: ")
    child.sendline(own.url)
    child.expect_exact(f"Password for admin@northwind.test at {own.url}: ")
    child.sendline("sandbox-admin")
    code, shown = finish(child)
    assert code == 0, shown
    assert cli("agency", "show", "-o", "json").exit_code == 0


def test_a_base_url_ending_in_api_gets_a_hint(cli: Any, sandbox: Any) -> None:
    r = cli("login", "--base-url", f"{sandbox.url}/api", "-u", "admin@northwind.test", "--password-stdin",
            "--credential-store", "file", input="sandbox-admin\n")
    assert (r.exit_code, r.stdout) == (4, ""), r
    assert r.stderr == (f"error: no login endpoint at {sandbox.url}/api/identity/login (HTTP 404); the base URL is "
                        "the service's root, as its paths start with /identity/ and /api/: "
                        f"try --base-url {sandbox.url}\n"), r


@pytest.mark.parametrize("size", SIZES)
def test_a_commands_help_keeps_its_own_options_in_view(cli: Any, size: tuple[int, int]) -> None:
    """Issue 36: at 80x24, `sites get --help` spent 17 lines on the global options (-o twice), which pushed its
    arguments and options off the screen; an example longer than the terminal broke mid-word."""
    rows, columns = size
    for args in (["sites", "get", "--help"], ["sites", "--help"], ["sites", "update", "--help"]):
        code, shown = finish(spawn(cli, *args, size=size))
        assert code == 0, shown
        lines = screen_lines(shown)
        while lines and not lines[-1]:
            lines.pop()
        assert max(len(line) for line in lines) <= columns, [line for line in lines if len(line) > columns]
        assert sum(1 for line in lines if line.lstrip().startswith("-o, --output")) <= 1, shown
        if args == ["sites", "get", "--help"]:
            in_view = lines[-(rows - 1):]  # the last lines stay on the screen, above the next prompt
            assert "Arguments:" in in_view and "Options:" in in_view, shown
            assert "  -p, --profile; --base-url; --ca-bundle; -v, --verbose; --no-color" in lines
        if args == ["sites", "--help"] and columns == 80:
            assert ('  $ wfctl sites create --client <client-id> --name "Salford Docks" --rate \\' in lines
                    and '      "Forklift Driver=13.25"' in lines), lines


@pytest.mark.parametrize("size", SIZES)
def test_a_rate_plan_of_one_client_keeps_each_site_on_one_line(logged_in: Any, size: tuple[int, int]) -> None:
    """Issue 36: at 80 columns `rates set --dry-run` wrapped client and site names onto a second line; the one
    client is said once above the plan instead of on every row."""
    code, shown = finish(spawn(logged_in, "rates", "set", "--client", "Pennine Foods Ltd", "--skill",
                               "Forklift Driver", "--by", "3%", "--dry-run", size=size))
    assert code == 0, shown
    lines = screen_lines(shown)
    assert "client Pennine Foods Ltd" in lines, lines
    heading = next(i for i, line in enumerate(lines) if line.split()[:3] == ["site", "skill", "old"])
    rows = lines[heading + 2:heading + 4]
    assert all(len(line) <= size[1] and line.split()[-4:-3] == ["Driver"] for line in rows), lines
