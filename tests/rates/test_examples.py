"""Every `$ wfctl ...` example of the rates commands' help and of docs/rates.md runs as written on a
freshly seeded sandbox (`<run-id>`: the newest run, as `wfctl imports list` shows it)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from tests.fixtures.cli import REPO_ROOT

EXAMPLE = re.compile(r"^\s*\$ (wfctl .*)$")


def examples(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := EXAMPLE.match(line))]


def run_example(cli: Any, line: str, cwd: Path) -> None:
    words = shlex.split(line)[1:]
    target = None
    if ">" in words:
        at = words.index(">")
        words, target = words[:at], words[at + 1]
    if "<run-id>" in words:
        newest = json.loads(cli("imports", "list", "-o", "json").stdout)[0]["run"]
        words = [newest if w == "<run-id>" else w for w in words]
    r = cli(*[str(cwd / w) if w.endswith((".csv", ".xlsx")) else w for w in words])
    assert r.exit_code == 0, (line, r)
    if target is not None:
        (cwd / target).write_text(r.stdout, encoding="utf-8")


def test_every_example_runs_as_written(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    found = []
    for command in ([], ["list"], ["summary"], ["set"]):
        r = cli("rates", *command, "--help")
        assert r.exit_code == 0, r
        found += examples(r.stdout)
    found += examples((REPO_ROOT / "docs" / "rates.md").read_text(encoding="utf-8"))
    assert len(found) >= 20 and all(line.startswith(("wfctl rates ", "wfctl imports ")) for line in found), found
    for line in found:
        run_example(cli, line, tmp_path)
    assert (tmp_path / "rates-before.csv").read_text().startswith("clientId,client,siteId,site,skill,hourlyRate")
    assert (tmp_path / "rates-before.xlsx").read_bytes().startswith(b"PK")
