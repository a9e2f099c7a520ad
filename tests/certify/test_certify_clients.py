"""`wfctl sandbox certify` passes what keeps every rule (issue 48 §3): the reference client, its shell twin (sh, curl
and jq), wfctl's SDK and the wfctl command line get no finding on the standard scenarios; the shell client breaking
a rule is flagged by that rule's check alone, as the Python one is. The certifications run at once, each in a wfctl
process of its own (helpers.certify_at_once), and each test asserts on its own."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.certify.helpers import CLIENTS, FLAGGED_BY, REFERENCE, certify_at_once, flagged_alone
from tests.fixtures.cli import Result

CURL = bool(shutil.which("curl") and shutil.which("jq"))
SHELL_REFERENCE = ["sh", str(CLIENTS / "reference.sh")]
#: The rules the shell client breaks when asked (reference.sh's header), each flagged as the Python client's is.
SHELL_RULES = ("partial-put", "no-retry-after")
# The first test's set-up runs the module's certifications at once: minutes when the machine is loaded.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Result, Any]]:
    directory = tmp_path_factory.mktemp("clients")
    runs = {"reference": (REFERENCE, "standard"),
            "sdk": ([sys.executable, str(CLIENTS / "sdk_client.py")], "standard"),
            "cli": (["sh", str(CLIENTS / "cli_client.sh")], "standard")}
    if CURL:
        runs["curl"] = (SHELL_REFERENCE, "standard")
        runs.update({f"curl {rule}": ([*SHELL_REFERENCE, rule], "standard") for rule in SHELL_RULES})
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


def test_a_shell_client_with_curl_passes_every_standard_scenario(certified: dict[str, tuple[Result, Any]]) -> None:
    if not CURL:
        pytest.skip("curl and jq")
    result, report = certified["curl"]
    assert result.exit_code == 0, result.stdout + result.stderr
    assert report["verdict"] == "pass" and len(report["scenarios"]) == 16
    assert [s["exit_status"] for s in report["scenarios"] if s["name"] == "foreign-next-page"] == [1]
    assert result.stdout.splitlines()[-1] == "certification passed: 16 scenarios, 0 findings (seed 1)"


@pytest.mark.parametrize("rule", SHELL_RULES)
def test_a_shell_client_breaking_a_rule_is_flagged_by_that_rules_check_alone(
        certified: dict[str, tuple[Result, Any]], rule: str) -> None:
    if not CURL:
        pytest.skip("curl and jq")
    result, report = certified[f"curl {rule}"]
    flagged_alone(rule, result, report)
    if rule == "partial-put":
        assert f"       {FLAGGED_BY[rule]} (G13): the update changed what it did not name: address, " in result.stdout


def test_wfctls_sdk_gets_no_finding(certified: dict[str, tuple[Result, Any]]) -> None:
    result, report = certified["sdk"]
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"


def test_the_wfctl_command_line_gets_no_finding(certified: dict[str, tuple[Result, Any]]) -> None:
    result, report = certified["cli"]
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"
