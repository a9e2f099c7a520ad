"""`wfctl sandbox certify` grades correctly (issue 48 §3): the reference client, wfctl's SDK and the CLI get no
finding; each reference client that breaks one rule is flagged by the right check and no other; the same
--seed gives byte-identical reports; runs in parallel give the serial verdicts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.certify.clients.reference import BREAKS
from tests.fixtures.cli import REPO_ROOT, Cli

CLIENTS = Path(__file__).parent / "clients"
REFERENCE = [sys.executable, str(CLIENTS / "reference.py")]

#: The one check each broken rule must trip, in the standard scenarios.
FLAGGED_BY = {
    "no-retry-after": "retry-after", "no-retry-after-429": "retry-after", "no-retry-after-503": "retry-after",
    "short-retry-after": "retry-after",
    "reuse-refresh": "refresh-reuse",
    "new-key-on-retry": "idempotent-create", "no-key": "idempotent-create",
    "partial-put": "put-keeps-fields",
    "int-link-ends": "pages", "string-link-ends": "pages", "object-link-ends": "pages",
    "relative-link-ends": "pages", "missing-link-ends": "pages", "first-page-twice": "pages",
    "last-page-twice": "pages",
    "follow-foreign": "token-origin",
    "json-errors-only": "exit-status", "needs-expires-in": "exit-status",
    "retry-401": "expired-token",
    "burst": "pace",
}


def certify(cli: Cli, tmp_path: Path, *command: str, scenarios: str = "standard", seed: int = 1) -> tuple:  # type: ignore[type-arg]
    report = tmp_path / f"report-{seed}.json"
    result = cli("sandbox", "certify", "--scenarios", scenarios, "--seed", seed, "--report-json", report,
                 "--", *command)
    return result, json.loads(report.read_text()) if report.exists() else None


def flagged(report: dict) -> set[str]:  # type: ignore[type-arg]
    return {check["name"] for scenario in report["scenarios"] for check in scenario["checks"] if not check["holds"]}


def small_scenarios(tmp_path: Path, *names: str) -> str:
    standard = json.loads((REPO_ROOT / "wfctl/sandbox/certify/standard.json").read_text())
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps({"scenarios": [s for s in standard["scenarios"] if s["name"] in names]}))
    return str(path)


def test_every_broken_rule_has_its_check() -> None:
    assert set(FLAGGED_BY) == set(BREAKS) and len(BREAKS) >= 20


def test_the_reference_client_passes_every_standard_scenario(cli: Cli, tmp_path: Path) -> None:
    result, report = certify(cli, tmp_path, *REFERENCE)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert report["verdict"] == "pass" and len(report["scenarios"]) == 15
    assert result.stdout.splitlines()[-1] == "certification passed: 15 scenarios, 0 findings (seed 1)"
    assert result.stdout.splitlines()[0].startswith("ok   plain ")
    assert result.stderr.splitlines()[0] == "playing plain ..."


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(cli: Cli, tmp_path: Path, rule: str) -> None:
    result, report = certify(cli, tmp_path, *REFERENCE, rule)
    assert result.exit_code == 1
    assert flagged(report) == {FLAGGED_BY[rule]}, result.stdout
    line = next(line for line in result.stdout.splitlines() if line.startswith(f"       {FLAGGED_BY[rule]} ("))
    gap = next(check["gap"] for check in report["checks"] if check["name"] == FLAGGED_BY[rule])
    assert line.startswith(f"       {FLAGGED_BY[rule]} ({gap}): ")


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


def test_the_same_seed_gives_byte_identical_reports(cli: Cli, tmp_path: Path) -> None:
    scenarios = small_scenarios(tmp_path, "plain", "put-clears", "drop-create-answer")
    outputs = []
    for run in range(2):
        files = [tmp_path / f"r{run}.json", tmp_path / f"r{run}.xml", tmp_path / f"r{run}.md"]
        result = cli("sandbox", "certify", "--scenarios", scenarios, "--seed", "9", "--report-json", files[0],
                     "--junit", files[1], "--markdown", files[2], "--", *REFERENCE, "partial-put")
        assert result.exit_code == 1
        outputs.append([path.read_bytes() for path in files])
    assert outputs[0] == outputs[1]
    junit = ET.fromstring(outputs[0][1])
    assert junit.get("tests") == str(3 * 9) and junit.get("failures") == "1"
    [failure] = junit.iter("failure")
    assert failure.get("message", "").startswith("the update changed what it did not name: ")
    assert b"| put-clears | 0 | fail | put-keeps-fields (G13): the update changed" in outputs[0][2]
    other = cli("sandbox", "certify", "--scenarios", scenarios, "--seed", "10", "--report-json", tmp_path / "o.json",
                "--", *REFERENCE, "partial-put")
    assert other.exit_code == 1 and json.loads((tmp_path / "o.json").read_text())["seed"] == 10


def test_eight_runs_at_once_give_the_serial_verdicts(cli: Cli, tmp_path: Path) -> None:
    scenarios = small_scenarios(tmp_path, "plain", "put-clears", "throttled", "drop-create-answer")
    rules = ["", "partial-put", "no-retry-after", "no-key", "first-page-twice", "burst", "retry-401", "short-retry-after"]
    env = {**cli.env, "PYTHONPATH": str(REPO_ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "certify", "--scenarios", scenarios,
                               "--report-json", str(tmp_path / f"p{n}.json"), "--", *REFERENCE,
                               *([rule] if rule else [])], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for n, rule in enumerate(rules)]
    codes = [proc.wait(timeout=300) for proc in procs]
    parallel = [flagged(json.loads((tmp_path / f"p{n}.json").read_text())) for n in range(len(rules))]
    expected = [set(), {"put-keeps-fields"}, {"retry-after"}, {"idempotent-create"}, {"pages"}, {"pace"}, set(),
                {"retry-after"}]  # retry-401 trips nothing here: no scenario of these expires a token
    assert parallel == expected
    assert codes == [0 if not found else 1 for found in expected]


def test_a_scenario_file_it_cannot_play_is_one_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"scenarios": [{"name": "x", "quirks": ["no-such-quirk"]}]}))
    result = cli("sandbox", "certify", "--scenarios", str(bad), "--", "true")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: --scenarios: {bad}: scenario 1: ")
    missing = cli("sandbox", "certify", "--", )
    assert missing.exit_code == 2
