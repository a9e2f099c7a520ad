"""The verdict, four ways: a terminal summary, JSON, JUnit XML and Markdown. The files hold nothing that changes
between two runs of the same program with the same --seed (no time, id or token), so they are byte-identical;
the program's own stderr is shown in the terminal summary only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from wfctl.sandbox.certify.checks import CHECKS, Check
from wfctl.sandbox.certify.scenarios import Scenario


@dataclass
class ScenarioResult:
    scenario: Scenario
    exit_status: int
    stderr: str
    outcomes: list[tuple[Check, list[str]]]

    @property
    def holds(self) -> bool:
        return not any(findings for _, findings in self.outcomes)


@dataclass
class Report:
    seed: int
    results: list[ScenarioResult]

    @property
    def holds(self) -> bool:
        return all(result.holds for result in self.results)

    def findings(self) -> list[tuple[str, Check, str]]:
        """(scenario, check, finding) of every finding, in scenario and check order."""
        return [(result.scenario.name, check, finding) for result in self.results
                for check, found in result.outcomes for finding in found]

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": "pass" if self.holds else "fail",
            "seed": self.seed,
            "checks": [{"name": c.name, "gap": c.gap, "rule": c.rule, "tolerance": c.tolerance} for c in CHECKS],
            "scenarios": [{
                "name": r.scenario.name, "about": r.scenario.about, "quirks": list(r.scenario.quirks),
                "exit_status": r.exit_status, "verdict": "pass" if r.holds else "fail",
                "checks": [{"name": c.name, "gap": c.gap, "holds": not found, "findings": found}
                           for c, found in r.outcomes]} for r in self.results],
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, sort_keys=True) + "\n"

    def junit(self) -> str:
        cases = []
        for result in self.results:
            for check, found in result.outcomes:
                name = quoteattr(f"{check.name} ({check.gap})")
                head = f'    <testcase classname={quoteattr("certify." + result.scenario.name)} name={name}'
                if found:
                    message = quoteattr("; ".join(found))
                    text = escape(f"{check.rule}. Tolerance: {check.tolerance}.")
                    cases.append(f'{head}>\n      <failure message={message} type="finding">{text}</failure>\n'
                                 "    </testcase>")
                else:
                    cases.append(f"{head}/>")
        failures = sum(1 for _, found in self._all() if found)
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<testsuites name="wfctl sandbox certify" tests="{len(cases)}" failures="{failures}">\n'
                f'  <testsuite name="certify (seed {self.seed})" tests="{len(cases)}" failures="{failures}" '
                f'errors="0">\n' + "\n".join(cases) + "\n  </testsuite>\n</testsuites>\n")

    def markdown(self) -> str:
        lines = [f"# Certification: {'pass' if self.holds else 'fail'}", "",
                 f"Seed {self.seed}; {len(self.results)} scenarios; {len(CHECKS)} checks each.", "",
                 "| scenario | exit | verdict | findings |", "|---|---:|---|---|"]
        for result in self.results:
            found = "; ".join(f"{c.name} ({c.gap}): {f}" for c, fs in result.outcomes for f in fs) or "-"
            lines.append(f"| {result.scenario.name} | {result.exit_status} | "
                         f"{'pass' if result.holds else 'fail'} | {found.replace('|', '/')} |")
        lines += ["", "| check | gap | rule | tolerance |", "|---|---|---|---|"]
        lines += [f"| {c.name} | {c.gap} | {c.rule} | {c.tolerance} |" for c in CHECKS]
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """For a person at a terminal: one line a scenario, each finding under it, the verdict last."""
        out = []
        for result in self.results:
            mark = "ok  " if result.holds else "FAIL"
            out.append(f"{mark} {result.scenario.name:<22} exit {result.exit_status:<4} {result.scenario.about}")
            for check, found in result.outcomes:
                out += [f"       {check.name} ({check.gap}): {finding}" for finding in found]
            if not result.holds and result.exit_status != 0 and result.stderr.strip():
                out.append(f"       the program's stderr ended: {result.stderr.strip().splitlines()[-1][:160]}")
        count = len(self.findings())
        out.append(f"certification {'passed' if self.holds else 'failed'}: {len(self.results)} scenarios, "
                   f"{count} finding{'' if count == 1 else 's'} (seed {self.seed})")
        return "\n".join(out) + "\n"

    def _all(self) -> list[tuple[Check, list[str]]]:
        return [outcome for result in self.results for outcome in result.outcomes]
