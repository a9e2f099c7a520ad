"""`wfctl sandbox certify` passes what keeps every rule (issue 48 §3): the reference client, wfctl's SDK and the
wfctl command line get no finding; a shell client with curl is graded as the Python ones are."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.certify.helpers import CLIENTS, REFERENCE, certify, small_scenarios
from tests.fixtures.cli import Cli


def test_the_reference_client_passes_every_standard_scenario(cli: Cli, tmp_path: Path) -> None:
    result, report = certify(cli, tmp_path, *REFERENCE)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert report["verdict"] == "pass" and len(report["scenarios"]) == 16
    assert result.stdout.splitlines()[-1] == "certification passed: 16 scenarios, 0 findings (seed 1)"
    assert result.stdout.splitlines()[0].startswith("ok   plain ")
    assert result.stderr.splitlines()[0] == "playing plain ..."


def test_a_shell_client_with_curl_is_graded_the_same_way(cli: Cli, tmp_path: Path) -> None:
    if not (shutil.which("curl") and shutil.which("jq")):
        pytest.skip("curl and jq")
    scenarios = small_scenarios(tmp_path, "plain", "put-clears")
    result, report = certify(cli, tmp_path, "sh", str(CLIENTS / "partial_put.sh"), scenarios=scenarios)
    assert result.exit_code == 1
    verdicts = {s["name"]: [c["name"] for c in s["checks"] if not c["holds"]] for s in report["scenarios"]}
    assert verdicts == {"plain": [], "put-clears": ["put-keeps-fields"]}
    assert "       put-keeps-fields (G13): the update changed what it did not name: address, " in result.stdout


def test_wfctls_sdk_gets_no_finding(cli: Cli, tmp_path: Path) -> None:
    result, report = certify(cli, tmp_path, sys.executable, str(CLIENTS / "sdk_client.py"))
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"


def test_the_wfctl_command_line_gets_no_finding(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result, report = certify(cli, tmp_path, "sh", str(CLIENTS / "cli_client.sh"))
    assert result.exit_code == 0, result.stdout
    assert report["verdict"] == "pass"
