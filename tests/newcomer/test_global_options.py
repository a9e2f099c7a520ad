"""Issue 36: global options after the verb (`wfctl branches list -v`, `-p staging`, `--base-url URL`,
`--no-color`), as gh and kubectl take them; `-o` worked in both places already, the others were
`No such option`. A command's own options and their values stay its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wfctl.cmdline.app import root_command
from wfctl.cmdline.argv import CommandLine


@pytest.mark.parametrize(("given", "parsed"), [
    (["branches", "list", "-v"], ["-v", "branches", "list"]),
    (["branches", "list", "-p", "staging", "--no-color"], ["-p", "staging", "--no-color", "branches", "list"]),
    (["sites", "list", "--client", "Acme", "--profile=staging", "-o", "json"],
     ["--profile=staging", "sites", "list", "--client", "Acme", "-o", "json"]),
    (["-v", "sites", "get", "Dock 7", "-pstaging"], ["-pstaging", "-v", "sites", "get", "Dock 7"]),
    # a command's own option keeps its value, even one that looks like a global option
    (["sites", "update", "Dock 7", "--phone", "-v"], ["sites", "update", "Dock 7", "--phone", "-v"]),
    (["login", "--base-url", "http://127.0.0.1:8765"], ["login", "--base-url", "http://127.0.0.1:8765"]),
    (["api", "GET", "/api/agency/", "--", "-v"], ["api", "GET", "/api/agency/", "--", "-v"]),
    (["branches", "list", "-vq"], ["branches", "list", "-vq"]),  # not a global option: click says so
    (["nosuch", "-v"], ["nosuch", "-v"]),
])
def test_global_options_after_the_verb_are_read_as_before_it(given: list[str], parsed: list[str]) -> None:
    assert CommandLine(given).walk(root_command()).hoisted_args() == parsed


def test_a_real_run_with_global_options_after_the_verb(logged_in: Any, sandbox: Any) -> None:
    r = logged_in("branches", "list", "-o", "json", "-v", "--no-color", "--base-url", sandbox.url)
    assert r.exit_code == 0, r
    assert any(b["name"] == "Manchester Central" for b in json.loads(r.stdout))
    assert f"> GET {sandbox.url}/api/branches" in r.stderr, r.stderr  # -v: the requests on stderr
    r = logged_in("branches", "list", "-p", "slwo")
    assert (r.exit_code, r.stdout) == (3, ""), r
    assert r.stderr.startswith("error: no profile 'slwo' (profiles: "), r.stderr
