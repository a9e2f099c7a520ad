"""The certification's reports (issue 48 §2, §3): the same --seed gives byte-identical JSON, JUnit XML and
Markdown; 8 certifications at once on one sandbox give the
serial verdicts; a scenario file it cannot play is one line."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.certify.helpers import REFERENCE, flagged, small_scenarios
from tests.fixtures.cli import REPO_ROOT, Cli
from tests.fixtures.sandbox import SandboxServer
from wfctl.sandbox.accounts import list_agencies


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
    assert junit.get("tests") == str(3 * 10) and junit.get("failures") == "1"
    [failure] = junit.iter("failure")
    assert failure.get("message", "").startswith("the update changed what it did not name: ")
    assert b"| put-clears | 0 | fail | put-keeps-fields (G13): the update changed" in outputs[0][2]
    other = cli("sandbox", "certify", "--scenarios", scenarios, "--seed", "10", "--report-json", tmp_path / "o.json",
                "--", *REFERENCE, "partial-put")
    assert other.exit_code == 1 and json.loads((tmp_path / "o.json").read_text())["seed"] == 10


def test_eight_runs_at_once_on_one_sandbox_give_the_serial_verdicts(cli: Cli, tmp_path: Path,
                                                                     controlled: SandboxServer,
                                                                     token_file: Path) -> None:
    """Eight certify processes share one running sandbox (--url): each scenario a tenant of its own, with its own
    quirks and clock, so each run's verdicts are those it gets alone (the rules' tests, serial)."""
    scenarios = small_scenarios(tmp_path, "plain", "put-clears", "throttled", "drop-create-answer", "token-expires")
    rules = ["", "partial-put", "no-retry-after", "no-key", "first-page-twice", "burst", "retry-401", "short-retry-after"]
    env = {**cli.env, "PYTHONPATH": str(REPO_ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "certify", "--scenarios", scenarios,
                               "--url", controlled.url, "--control-token-file", str(token_file),
                               "--report-json", str(tmp_path / f"p{n}.json"), "--", *REFERENCE,
                               *([rule] if rule else [])], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for n, rule in enumerate(rules)]
    codes = [proc.wait(timeout=300) for proc in procs]
    parallel = [flagged(json.loads((tmp_path / f"p{n}.json").read_text())) for n in range(len(rules))]
    expected = [set(), {"put-keeps-fields"}, {"retry-after"}, {"idempotent-create"}, {"pages"}, {"pace"},
                {"expired-token"}, {"retry-after"}]
    assert parallel == expected
    assert codes == [0 if not found else 1 for found in expected]
    played = {record.tenant for record in controlled.journal.records() if record.tenant}
    assert len(played) == len(rules) * 5  # a tenant of its own each scenario of each run, each removed after it:
    assert [a["name"] for a in list_agencies(controlled.app.state.store)] == ["Northwind Staffing",
                                                                               "Southgate Recruitment"]
    assert not controlled.behaviour.per_tenant  # every tenant settled back to what the sandbox plays for all


def test_certify_on_a_sandbox_without_control_is_one_line(cli: Cli, sandbox: SandboxServer, token_file: Path) -> None:
    result = cli("sandbox", "certify", "--url", sandbox.url, "--control-token-file", token_file, "--", "true")
    assert result.exit_code == 4, result.stderr
    assert result.stderr == (f"error: {sandbox.url} has no control plane (start it with: wfctl sandbox serve "
                             "--control) (HTTP 404)\n")


def test_a_scenario_file_it_cannot_play_is_one_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"scenarios": [{"name": "x", "quirks": ["no-such-quirk"]}]}))
    result = cli("sandbox", "certify", "--scenarios", str(bad), "--", "true")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: --scenarios: {bad}: scenario 1: ")
    missing = cli("sandbox", "certify", "--", )
    assert missing.exit_code == 2
