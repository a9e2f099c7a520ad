"""An undo killed with SIGKILL midway finishes when run again, and deletes nothing twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_rows
from tests.fixtures.cli import REPO_ROOT
from tests.imports.helpers import import_file, runs, sites_of

WFCTL = str(REPO_ROOT / ".venv" / "bin" / "wfctl")
ROWS = 80  # more than the 16 rows an undo sends at once: it is killed midway


def undone_rows(path: Path) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return sum(1 for line in lines if line.endswith("}") and json.loads(line).get("s") == "undone")


def test_undo_killed_midway_resumes_and_deletes_nothing_twice(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory(latency_ms=60)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    run = import_file(cli, "sites", tmp_path / "sites.csv", site_rows(ROWS), "--client", cid, "--concurrency", "16")
    assert len(sites_of(cli, cid)) == ROWS

    proc = subprocess.Popen([WFCTL, "imports", "undo", run, "--yes"], env=cli.env, cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs_dir = tmp_path / "state" / "wfctl" / "runs" / "default"
    deadline = time.monotonic() + 30
    journal = None
    while time.monotonic() < deadline:
        journal = next((p for p in runs_dir.glob("*.journal") if f'"undo": "{run}"' in p.read_text()), None)
        if journal is not None and undone_rows(journal) >= 5:
            break
        time.sleep(0.02)
    assert journal is not None and proc.poll() is None, "the undo ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    killed_at = undone_rows(journal)
    left = len(sites_of(cli, cid))
    assert 0 < left < ROWS and killed_at <= ROWS - left <= killed_at + 16  # + those in flight (16 at once)
    assert {r["run"]: r["state"] for r in runs(cli)}[journal.stem] == "interrupted"

    r = cli("-v", "imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    deletes = [line for line in r.stderr.splitlines() if "DELETE" in line and "/api/sites/" in line]
    requests = {line.split("DELETE", 1)[1].split()[0] for line in deletes}
    assert len(requests) == left  # only the sites still there: nothing deleted twice
    assert r.stderr.splitlines()[-1] == f"undo run {journal.stem} of run {run}: deleted {ROWS} sites"
    assert sites_of(cli, cid) == {}
    states = {row["run"]: row["state"] for row in runs(cli)}
    assert states == {run: "undone", journal.stem: "complete"}
    outcomes = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    assert sorted({o["r"] for o in outcomes if o.get("s") == "undone"}) == list(range(1, ROWS + 1))
    assert not [o for o in outcomes if o.get("s") in ("gone", "failed", "changed")]
    r = cli("imports", "undo", run, "--yes")
    assert (r.exit_code, r.stderr) == (0, f"run {run} is undone already (by run {journal.stem}): nothing to do\n")
