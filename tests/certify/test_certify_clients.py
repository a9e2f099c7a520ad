"""`wfctl sandbox certify` passes what keeps every rule (issue 48 §3): the reference client, wfctl's SDK and the
wfctl command line get no finding; a shell client with curl is graded as the Python ones are. The four
certifications run at once, each in a wfctl process of its own (helpers.certify_at_once), and each test asserts
on its own."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.certify.helpers import CLIENTS, REFERENCE, certify_at_once, small_scenarios
from tests.fixtures.cli import Result

CURL = bool(shutil.which("curl") and shutil.which("jq"))
# The first test's set-up runs the module's certifications at once: minutes when the machine is loaded.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Result, Any]]:
    directory = tmp_path_factory.mktemp("clients")
    runs = {"reference": (REFERENCE, "standard"),
            "sdk": ([sys.executable, str(CLIENTS / "sdk_client.py")], "standard"),
            "cli": (["sh", str(CLIENTS / "cli_client.sh")], "standard")}
    if CURL:
        runs["curl"] = (["sh", str(CLIENTS / "partial_put.sh")], small_scenarios(directory, "plain", "put-clears"))
    # the command line's client runs this checkout's `wfctl` (the one beside this Python)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return certify_at_once(directory, runs, env={"PATH": path})


def test_the_reference_client_passes_every_standard_scenario(certified: dict[str, tuple[Result, Any]]) -> None:
    result, report = certified["reference"]
    assert result.exit_code == 0, result.stdout + result.stderr
    assert report["verdict"] == "pass" and len(report["scenarios"]) == 16
    assert result.stdout.splitlines()[-1] == "certification passed: 16 scenarios, 0 findings (seed 1)"
    assert result.stdout.splitlines()[0].startswith("ok   plain ")
    assert result.stderr.splitlines()[0] == "playing plain ..."


def test_a_shell_client_with_curl_is_graded_the_same_way(certified: dict[str, tuple[Result, Any]]) -> None:
    if not CURL:
        pytest.skip("curl and jq")
    result, report = certified["curl"]
    assert result.exit_code == 1
    verdicts = {s["name"]: [c["name"] for c in s["checks"] if not c["holds"]] for s in report["scenarios"]}
    assert verdicts == {"plain": [], "put-clears": ["put-keeps-fields"]}
    assert "       put-keeps-fields (G13): the update changed what it did not name: address, " in result.stdout


def test_wfctls_sdk_gets_no_finding(certified: dict[str, tuple[Result, Any]]) -> None:
    result, report = certified["sdk"]
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"


def test_the_wfctl_command_line_gets_no_finding(certified: dict[str, tuple[Result, Any]]) -> None:
    result, report = certified["cli"]
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"
