"""What the tests of `wfctl sandbox certify` share: the reference clients, which check each broken rule must
trip, a certification run through the CLI with its JSON report."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.certify.clients.reference import BREAKS
from tests.fixtures.cli import REPO_ROOT, Cli, Result
from tests.fixtures.sandbox import SandboxServer

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
    "own-page-numbers": "records",
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


RULES = sorted(BREAKS)
#: The control plane's token in the tests (conftest.py's `controlled` sandbox, its `token_file`).
CONTROL_TOKEN = "control-token-for-tests-0123456789"


def control(cli: Cli, server: SandboxServer, token_file: Path, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    """`wfctl sandbox <args>` driving `server`'s control plane."""
    return cli("sandbox", *args, "--url", server.url, "--control-token-file", str(token_file), input=input)


def certify_at_once(directory: Path, runs: dict[str, tuple[Sequence[str], str]],
                    env: dict[str, str] | None = None) -> dict[str, tuple[Result, Any]]:
    """Certifications (seed 1), as `certify` asks them, all started at once as real `wfctl` processes, each with
    its own isolated config and `env`: `runs` names each's command and scenarios; name -> (the result, the JSON
    report). A certification mostly waits (on its sandbox's answers, a client's pauses, Retry-After), so ten at
    once take about as long as two one after the other."""
    started = {}
    for name, (command, scenarios) in runs.items():
        with pytest.MonkeyPatch.context() as monkeypatch:  # Cli isolates os.environ too: only its env is kept
            cli = Cli(directory / name, monkeypatch)
        report = cli.tmp_path / "report-1.json"
        started[name] = (cli.start("sandbox", "certify", "--scenarios", scenarios, "--seed", "1", "--report-json",
                                   str(report), "--", *command, env=env), report)
    return {name: (Cli.finish(proc), json.loads(report.read_text()) if report.exists() else None)
            for name, (proc, report) in started.items()}


def flagged_alone(rule: str, result: Result, report: Any) -> None:
    """The reference client breaking `rule` fails the standard certification on that rule's check alone, and the
    summary names the check with its gap decision."""
    assert result.exit_code == 1, result
    assert flagged(report) == {FLAGGED_BY[rule]}, result.stdout
    gap = next(check["gap"] for check in report["checks"] if check["name"] == FLAGGED_BY[rule])
    assert f"\n       {FLAGGED_BY[rule]} ({gap}): " in result.stdout
