"""Issue 15 §3, in a real terminal (80x24 and 120x40): the delete prompt names the record, "n" is not an
error, success says what went, Ctrl-C ends the prompt's line; login names the user and URL, says a wrong
password once, says when it reads stdin, and suggests a command that can be run as it is."""

from __future__ import annotations

import json
import re
import sys
import uuid
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.messages.helpers import SIZES, finish, new_client, new_site, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")

IDS = ["80x24", "120x40"]


@pytest.fixture
def site(logged_in: Any) -> dict[str, str]:
    client_id, client_name, branch_name = new_client(logged_in)
    name = f"Dock 4 {uuid.uuid4().hex[:6]}"
    return {"id": new_site(logged_in, client_id, name), "name": name, "client": client_name,
            "client_id": client_id, "branch": branch_name}


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_delete_prompt_names_the_record_and_no_is_not_an_error(logged_in: Any, site: dict[str, str],
                                                                   size: tuple[int, int]) -> None:
    child = spawn(logged_in, "sites", "delete", site["id"], size=size)
    child.expect_exact(f'Delete site "{site["name"]}" ({site["id"][:8]}…) of client {site["client"]}? [y/N]: ')
    child.sendline("n")
    status, text = finish(child)
    assert status == 2, text
    assert screen_lines(text)[-2:] == ["Not deleted.", ""], text
    assert "error" not in text
    assert logged_in("sites", "get", site["id"], "-o", "json").exit_code == 0


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_yes_says_what_went(logged_in: Any, site: dict[str, str], size: tuple[int, int]) -> None:
    child = spawn(logged_in, "sites", "delete", site["id"], size=size)
    child.expect_exact("? [y/N]: ")
    child.sendline("y")
    status, text = finish(child)
    assert status == 0, text
    assert screen_lines(text)[-2:] == [f'Deleted site "{site["name"]}" ({site["id"][:8]}…)', ""], text
    assert logged_in("sites", "get", site["id"]).exit_code == 4


def test_with_yes_on_a_terminal_success_names_the_record(logged_in: Any, site: dict[str, str]) -> None:
    status, text = finish(spawn(logged_in, "sites", "delete", site["id"], "--yes"))
    assert status == 0, text
    assert screen_lines(text)[-2:] == [f'Deleted site "{site["name"]}" ({site["id"][:8]}…)', ""], text


def test_a_client_prompt_names_its_branch_and_a_branch_prompt_nothing_more(logged_in: Any) -> None:
    client_id, client_name, branch_name = new_client(logged_in)
    child = spawn(logged_in, "clients", "delete", client_id)
    child.expect_exact(f'Delete client "{client_name}" ({client_id[:8]}…) of branch {branch_name}? [y/N]: ')
    child.sendline("")
    status, text = finish(child)
    assert status == 2 and "Not deleted." in screen_lines(text)
    name = f"Prompt branch {uuid.uuid4().hex[:6]}"
    r = logged_in("branches", "create", "--name", name, "-o", "json")
    branch_id = json.loads(r.stdout)["id"]
    child = spawn(logged_in, "branches", "delete", branch_id)
    child.expect_exact(f'Delete branch "{name}" ({branch_id[:8]}…)? [y/N]: ')
    child.sendline("n")
    assert finish(child)[0] == 2


def test_a_delete_of_a_missing_record_fails_before_asking(logged_in: Any) -> None:
    missing = str(uuid.UUID(int=9))
    status, text = finish(spawn(logged_in, "sites", "delete", missing))
    assert status == 4, text
    assert "[y/N]" not in text


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_ctrl_c_at_the_delete_prompt_ends_the_line(logged_in: Any, site: dict[str, str],
                                                   size: tuple[int, int]) -> None:
    child = spawn(logged_in, "sites", "delete", site["id"], size=size)
    child.expect_exact("? [y/N]: ")
    child.sendintr()
    status, text = finish(child)
    assert status == 130, text
    assert text.endswith("\r\ninterrupted\r\n"), repr(text)  # the shell's prompt starts on a line of its own


def test_ctrl_d_at_the_delete_prompt_is_no_on_a_line_of_its_own(logged_in: Any, site: dict[str, str]) -> None:
    child = spawn(logged_in, "sites", "delete", site["id"])
    child.expect_exact("? [y/N]: ")
    child.sendeof()
    status, text = finish(child)
    assert status == 2, text
    assert screen_lines(text)[-2:] == ["Not deleted.", ""], repr(text)


# -- login ---------------------------------------------------------------------------------------
USER = "admin@northwind.test"


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_password_prompt_names_the_user_and_the_url(cli: Any, sandbox: Any, size: tuple[int, int]) -> None:
    child = spawn(cli, "login", "--base-url", sandbox.url, "-u", USER, "--credential-store", "file", size=size)
    child.expect_exact(f"Password for {USER} at {sandbox.url}: ")
    child.sendline("sandbox-admin")
    status, text = finish(child)
    assert status == 0, text
    assert cli("branches", "list", "-o", "json").exit_code == 0


def test_the_prompts_leave_stdout_to_data(cli: Any, sandbox: Any, tmp_path: Any) -> None:
    """Questions go to the terminal (stderr), never to stdout: `wfctl login > out.txt` leaves it empty (click's
    prompt wrote the space after each question there)."""
    import pexpect

    out = tmp_path / "out.txt"
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    child = pexpect.spawn("bash", ["-c", f"{sys.executable} -m wfctl login --credential-store file > {out}"],
                          env=env, encoding="utf-8", timeout=60, cwd=str(cli.tmp_path))
    child.expect_exact("Service URL: ")
    child.sendline(sandbox.url)
    child.expect_exact("Username: ")
    child.sendline(USER)
    child.expect_exact(f"Password for {USER} at {sandbox.url}: ")
    child.sendline("sandbox-admin")
    status, text = finish(child)
    assert status == 0, text
    assert out.read_text() == ""


def test_a_wrong_password_is_one_sentence(cli: Any, sandbox_factory: Any) -> None:
    sandbox = sandbox_factory()  # its own: three wrong passwords count towards the login-failure limit
    child = spawn(cli, "login", "--base-url", sandbox.url, "-u", USER, "--credential-store", "file")
    for _attempt in range(3):  # asked again on a terminal (issue 24 §2; tests/messages/test_first_minutes.py)
        child.expect_exact(f"Password for {USER} at {sandbox.url}: ")
        child.sendline("not-the-password")
    status, text = finish(child)
    assert status == 3, text
    assert screen_lines(text)[-2:] == [f"error: wrong user name or password for {USER} at {sandbox.url} "
                                       "(HTTP 401; 3 tries)", ""], text


def test_a_wrong_password_in_a_pipe(cli: Any, sandbox: Any) -> None:
    r = cli.login_as(sandbox.url, USER, "not-the-password")
    assert (r.exit_code, r.stderr) == (3, f"error: wrong user name or password for {USER} at {sandbox.url} "
                                          "(HTTP 401)\n")


def test_ctrl_c_at_the_password_prompt_ends_the_line(cli: Any, sandbox: Any) -> None:
    child = spawn(cli, "login", "--base-url", sandbox.url, "-u", USER, "--credential-store", "file")
    child.expect_exact(f"Password for {USER} at {sandbox.url}: ")
    child.sendintr()
    status, text = finish(child)
    assert status == 130, text
    # the line of the prompt ends, and no blank line comes before "interrupted"
    assert text == "\r\ninterrupted\r\n", repr(text)


def test_password_stdin_on_a_terminal_says_it_reads_stdin(cli: Any, sandbox: Any) -> None:
    child = spawn(cli, "login", "--base-url", sandbox.url, "-u", USER, "--credential-store", "file",
                  "--password-stdin")
    child.expect_exact("Reading the password from standard input (shown as typed; end with Enter, then Ctrl-D)...")
    child.sendline("sandbox-admin")
    child.sendeof()
    status, text = finish(child)
    assert status == 0, text


def test_password_stdin_in_a_pipe_says_nothing(cli: Any, sandbox: Any) -> None:
    r = cli.login_as(sandbox.url, USER, "sandbox-admin")
    assert r.exit_code == 0 and "Reading" not in r.stderr


@pytest.mark.parametrize("profile", [[], ["-p", "mgr"]], ids=["default", "mgr"])
def test_without_a_keyring_the_suggested_login_carries_the_url_and_user(cli: Any, profile: list[str]) -> None:
    url = "http://127.0.0.1:9"
    status, text = finish(spawn(cli, *profile, "login", "--base-url", url, "-u", USER))
    assert status not in (0, None)
    joined = " ".join(text.split())
    prefix = "wfctl -p mgr login" if profile else "wfctl login"
    assert f"`{prefix} --base-url {url} -u {USER} --credential-store file`" in joined, joined
    assert not re.search(r"Password|Username", text)
