"""Issue 15 §3: hints keep the profile, an unknown profile is named with the ones there are, errors on a
terminal stay human whatever the config says (contract part 2), and a JSON error says each thing once."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from wfctl.config import update_profile


@pytest.fixture
def profiles(logged_in: Any, sandbox: Any) -> Any:
    """default (logged in), mgr and staff (a service URL, no login)."""
    for name in ("mgr", "staff"):
        update_profile(name, {"base_url": sandbox.url, "credential_store": "file"})
    return logged_in


def test_a_hint_keeps_the_profile(profiles: Any) -> None:
    r = profiles("-p", "mgr", "branches", "list")
    assert r.exit_code == 3, r
    assert r.stderr.endswith("; run `wfctl -p mgr login`\n"), r.stderr
    assert r.stderr.startswith("error: "), r.stderr
    assert "`wfctl login`" not in r.stderr


def test_doctor_fixes_keep_the_profile(profiles: Any) -> None:
    r = profiles("-p", "mgr", "doctor")
    assert r.exit_code == 1, r
    assert "-> run `wfctl -p mgr login`" in r.stdout, r.stdout
    assert "`wfctl login" not in r.stdout
    checks = json.loads(profiles("-p", "mgr", "doctor", "-o", "json").stdout)
    assert next(c for c in checks if c["check"] == "token")["fix"] == "run `wfctl -p mgr login`"


def test_the_default_profile_keeps_the_short_hint(cli: Any, sandbox: Any) -> None:
    update_profile("default", {"base_url": sandbox.url, "credential_store": "file"})
    r = cli("branches", "list")
    assert r.exit_code == 3, r
    assert r.stderr.endswith("; run `wfctl login`\n"), r.stderr


def test_an_unknown_profile_is_named_with_the_profiles_there_are(profiles: Any) -> None:
    r = profiles("-p", "nosuch", "branches", "list")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == ("error: no profile 'nosuch' (profiles: default, mgr, staff); "
                        "to create it, run `wfctl -p nosuch login --base-url <url>`\n")


def test_an_unknown_profile_in_json(profiles: Any) -> None:
    r = profiles("-p", "nosuch", "branches", "list", "-o", "json")
    assert r.exit_code == 3
    assert json.loads(r.stderr) == {"error": {
        "status": None, "code": "auth", "title": "unknown profile",
        "detail": "no profile 'nosuch' (profiles: default, mgr, staff); "
                  "to create it, run `wfctl -p nosuch login --base-url <url>`",
        "errors": {}}}


MISSING = str(uuid.UUID(int=7))


def test_on_a_terminal_errors_stay_human_with_output_json_in_the_config(logged_in: Any) -> None:
    update_profile("default", {"output": "json"})
    r = logged_in("branches", "get", MISSING, tty=True)
    assert r.exit_code == 4
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr


def test_on_a_terminal_errors_stay_human_with_wfctl_output_json(logged_in: Any) -> None:
    r = logged_in("branches", "get", MISSING, tty=True, env={"WFCTL_OUTPUT": "json"})
    assert r.exit_code == 4
    assert r.stderr.startswith("error: "), r.stderr


@pytest.mark.parametrize("where", ["config", "env"])
def test_in_a_pipe_a_configured_json_format_gives_json_errors(logged_in: Any, where: str) -> None:
    env = {}
    if where == "config":
        update_profile("default", {"output": "json"})
    else:
        env = {"WFCTL_OUTPUT": "jsonl"}
    r = logged_in("branches", "get", MISSING, env=env)
    assert r.exit_code == 4
    error = json.loads(r.stderr)["error"]
    assert error["status"] == 404 and error["code"] is None


@pytest.mark.parametrize("flag", [["-o", "json"], ["--output", "jsonl"]])
def test_an_explicit_json_format_gives_json_errors_on_a_terminal_too(logged_in: Any, flag: list[str]) -> None:
    r = logged_in("branches", "get", MISSING, *flag, tty=True)
    assert r.exit_code == 4
    assert json.loads(r.stderr)["error"]["status"] == 404
    r = logged_in(*flag, "branches", "get", MISSING, tty=True)  # the global option, before the command
    assert json.loads(r.stderr)["error"]["status"] == 404


def test_a_local_error_has_a_code_and_no_detail_repeating_its_title(logged_in: Any) -> None:
    r = logged_in("branches", "delete", MISSING, "-o", "json")
    assert r.exit_code == 2
    assert json.loads(r.stderr) == {"error": {
        "status": None, "code": "usage",
        "title": f"refusing to delete branch {MISSING} without confirmation: no terminal to ask on; pass --yes",
        "detail": None, "errors": {}}}


def test_an_answer_of_the_service_keeps_its_status(logged_in: Any) -> None:
    r = logged_in("branches", "get", MISSING, "-o", "json")
    error = json.loads(r.stderr)["error"]
    assert error["status"] == 404 and error["code"] is None
    assert error["detail"] != error["title"]
