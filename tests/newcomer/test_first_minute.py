"""The first minute, as a new user meets it: login checks its credential store before asking for
anything, a cancelled delete exits 2, `wfctl api` prints JSON (one array, or one record a line, with
--paginate). Terminal behaviour is tested in a real pty."""

from __future__ import annotations

import json
import sys
import uuid

import pytest

from tests.fixtures.cli import REPO_ROOT

pexpect = pytest.importorskip("pexpect")


def _spawn(cli, *args: str, env: dict[str, str] | None = None):
    full = dict(cli.env, PYTHONPATH=str(REPO_ROOT), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                **(env or {}))
    return pexpect.spawn(sys.executable, ["-m", "wfctl", *args], env=full, encoding="utf-8", timeout=30,
                         cwd=str(cli.tmp_path), dimensions=(40, 120))


def test_login_without_a_usable_keyring_says_so_before_any_prompt(cli) -> None:
    child = _spawn(cli, "login")
    index = child.expect(["no usable keyring", "Service URL", "Username", "Password", pexpect.EOF])
    assert index == 0, f"prompted first: {child.before!r}{child.after!r}"
    child.expect(pexpect.EOF)
    child.close()
    text = " ".join((child.before or "").split())
    assert "--credential-store file" in text and "keyring service" in text, text
    assert child.exitstatus not in (0, None)


def test_login_with_a_base_url_checks_the_store_before_the_user_name(cli) -> None:
    child = _spawn(cli, "login", "--base-url", "http://127.0.0.1:9")
    assert child.expect(["no usable keyring", "Username", "Password"]) == 0
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus not in (0, None)


@pytest.fixture
def branch(logged_in) -> str:
    result = logged_in("branches", "create", "--name", f"Cancel test {uuid.uuid4().hex[:8]}", "-o", "json")
    assert result.exit_code == 0, result
    return json.loads(result.stdout)["id"]


@pytest.mark.parametrize("answer", ["n", ""], ids=["no", "enter"])
def test_answering_no_to_a_delete_exits_2_and_deletes_nothing(logged_in, branch: str, answer: str) -> None:
    child = _spawn(logged_in, "branches", "delete", branch)
    child.expect(r"Delete branch .*\? \[y/N\]: ")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2, child.before
    assert (child.before or "").endswith("\r\nNot deleted.\r\n")  # the user's answer, not an error (issue 15)
    assert "error" not in (child.before or "")
    assert logged_in("branches", "get", branch, "-o", "json").exit_code == 0


def test_answering_yes_deletes(logged_in, branch: str) -> None:
    child = _spawn(logged_in, "branches", "delete", branch)
    child.expect(r"\[y/N\]: ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert logged_in("branches", "get", branch).exit_code == 4


@pytest.fixture
def three_branches(logged_in) -> list[str]:
    tag = uuid.uuid4().hex[:8]  # unique in the shared sandbox (an object id can come back)
    names = [f"Api page {n} {tag}" for n in range(3)]
    for name in names:
        assert logged_in("branches", "create", "--name", name).exit_code == 0
    return names


def test_api_prints_json_whatever_output_is_configured(logged_in) -> None:
    for env in ({}, {"WFCTL_OUTPUT": "table"}):
        result = logged_in("api", "GET", "/api/agency/", env=env)
        assert result.exit_code == 0, result
        assert isinstance(json.loads(result.stdout), dict)


def test_api_is_pretty_json_on_a_terminal(logged_in) -> None:
    result = logged_in("api", "GET", "/api/agency/", tty=True, env={"WFCTL_OUTPUT": "table"})
    assert result.exit_code == 0, result
    assert result.stdout.startswith("{\n  \"") and isinstance(json.loads(result.stdout), dict)


def test_api_paginate_prints_one_array_of_every_page(logged_in, three_branches: list[str]) -> None:
    expected = [row["name"] for row in json.loads(logged_in("branches", "list", "--all", "-o", "json").stdout)]
    for env in ({}, {"WFCTL_OUTPUT": "table"}):
        result = logged_in("api", "GET", "/api/branches", "--paginate", "-f", "pageSize=2", env=env)
        assert result.exit_code == 0, result
        assert [row["name"] for row in json.loads(result.stdout)] == expected
    assert set(three_branches) <= set(expected)


def test_api_paginate_jsonl_prints_one_record_a_line(logged_in, three_branches: list[str]) -> None:
    result = logged_in("api", "GET", "/api/branches", "--paginate", "-f", "pageSize=2", "-o", "jsonl")
    assert result.exit_code == 0, result
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) >= 3 and all(isinstance(row, dict) and "id" in row for row in rows)
    before = logged_in("-o", "jsonl", "api", "GET", "/api/branches", "--paginate", "-f", "pageSize=2")
    assert before.stdout == result.stdout


def test_api_paginate_table_when_asked(logged_in, three_branches: list[str]) -> None:
    result = logged_in("api", "GET", "/api/branches", "--paginate", "-o", "table")
    assert result.exit_code == 0, result
    assert three_branches[0] in result.stdout and not result.stdout.lstrip().startswith("[")


def test_api_errors_stay_one_human_line_without_o(logged_in) -> None:
    result = logged_in("api", "GET", "/api/branches/no-such-branch")
    assert result.exit_code == 4, result
    assert not result.stderr.lstrip().startswith("{"), result
