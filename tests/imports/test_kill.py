"""An undo killed with SIGKILL midway finishes when run again, and deletes nothing twice."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_rows
from tests.fixtures.runs import rows_in_state, started_run
from tests.imports.helpers import import_file, runs, sites_of

ROWS = 80  # more than the 16 rows an undo sends at once: it is killed midway


def undone_rows(path: Path) -> int:
    return rows_in_state(path, "undone")


def test_undo_killed_midway_resumes_and_deletes_nothing_twice(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory(latency_ms=60)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    run = import_file(cli, "sites", tmp_path / "sites.csv", site_rows(ROWS), "--client", cid, "--concurrency", "16")
    assert len(sites_of(cli, cid)) == ROWS

    proc, journal = started_run(cli, tmp_path, ["imports", "undo", run, "--yes"], header=f'"undo": "{run}"',
                                state="undone", rows=5, seconds=30)
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
