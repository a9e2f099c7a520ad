"""Nothing lost, nothing done twice: dropped answers and a SIGKILLed, resumed import."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names, site_rows, write
from tests.fixtures.cli import REPO_ROOT
from wfctl.sandbox.injectors import FaultProxy

ROWS = 400


def test_dropped_answers_no_duplicates_no_losses(cli: Any, sandbox: Any, tmp_path: Path) -> None:
    proxy = FaultProxy(sandbox.url, drop=lambda method, path: method == "POST" and path.endswith("/sites"))
    try:
        assert cli.login_as(proxy.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
        cid = new_client(cli)
        path = write(tmp_path / "s.csv", site_rows(ROWS))
        r = cli("sites", "import", str(path), "--client", cid, "--concurrency", "8",
                "--report", str(tmp_path / "r.csv"))
        assert r.exit_code == 0, r
        dropped = proxy.dropped
        assert dropped >= ROWS * 0.02, dropped  # the faults really happened
        names = site_names(cli, cid)
        assert len(names) == ROWS  # 0 rows lost
        assert len(set(names)) == ROWS
        r = cli("sites", "list", "--client", cid, "--all", "-o", "json")
        assert len({s["id"] for s in json.loads(r.stdout)}) == ROWS  # 0 duplicates
        rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text(), newline="")))
        assert len(rows) == ROWS and {row["status"] for row in rows} == {"created"}
        assert len({row["id"] for row in rows}) == ROWS
    finally:
        proxy.stop()


@pytest.mark.slow
def test_sigkill_three_times_then_resume(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory(latency_ms=15)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    rows = 600
    path = write(tmp_path / "s.csv", site_rows(rows))
    journal = tmp_path / "import.journal"
    env = dict(cli.env)
    env["PYTHONPATH"] = str(REPO_ROOT)
    args = [sys.executable, "-m", "wfctl", "sites", "import", str(path), "--client", cid,
            "--concurrency", "4", "--journal", str(journal)]
    kills = 0
    for kill_after in (60, 220, 400):
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                cwd=str(tmp_path))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") > kill_after:
                break
            time.sleep(0.01)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
    assert kills == 3
    done = proc.returncode
    assert done == -signal.SIGKILL
    r = subprocess.run([*args, "--report", str(tmp_path / "r.csv")], env=env, capture_output=True, text=True,
                       cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "resuming run " in r.stderr, r.stderr
    before = int(r.stderr.split("(of 600; ")[1].split(" done before)")[0])
    assert r.stderr.endswith(f"): created {600 - before}\n"), r.stderr  # this run's rows, not the earlier runs'
    names = site_names(cli, cid)
    assert len(names) == rows and len(set(names)) == rows
    r2 = cli("sites", "list", "--client", cid, "--all", "-o", "json")
    assert len(json.loads(r2.stdout)) == rows


def test_rate_limited_service_every_row_created(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory(rate_limit=40)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", site_rows(120))
    r = cli("sites", "import", str(path), "--client", cid, "--concurrency", "8", "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["created"] == 120
    assert len(site_names(cli, cid)) == 120


def test_terminal_progress_and_export_all_clients(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", site_rows(20))
    r = cli("sites", "import", str(path), "--client", cid, tty=True)
    assert r.exit_code == 0, r
    assert "20/20" in r.stderr and "rows/s" in r.stderr
    r = cli("sites", "export", "--all-clients")
    assert r.exit_code == 0, r
    assert r.stdout.count(cid) == 20
    r = cli("sites", "export")
    assert r.exit_code == 2 and "--all-clients" in r.stderr
