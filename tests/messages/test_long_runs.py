"""Issue 24 §3: long runs a person can watch, in a real terminal (80x24 and 120x40): the undo's progress
(done/total, ETA), an export's total and ETA and no progress line left behind when `| head` closes the
pipe."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.messages.helpers import SIZES, finish, new_client, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")


def _sites_csv(path: Path, count: int, prefix: str = "Watched site") -> Path:
    path.write_text("name,address\n" + "".join(f"{prefix} {i:04d},{i} Mill Lane\n" for i in range(count)),
                    encoding="utf-8")
    return path


def _import(cli: Any, csv: Path, client_id: str, *extra: str) -> str:
    r = cli("sites", "import", str(csv), "--client", client_id, "-o", "json", *extra)
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["run"])


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_undo_shows_the_imports_progress(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "watched-sites.csv", 120), client_id)
    status, text = finish(spawn(logged_in, "imports", "undo", run, "--yes", size=size))
    assert status == 0, text
    lines = screen_lines(text)
    final = [line for line in lines if "120/120" in line]
    assert final, text
    line = final[-1]
    assert line.startswith("undoing watched-sites.csv  ") and line.endswith("  ETA 0:00:00"), line
    assert "  not undone 0  " in line and len(line) < size[1], line
    assert lines[-2 if lines[-1] == "" else -1].endswith("deleted 120 sites")
    r = logged_in("sites", "list", "--client", client_id, "-o", "json")
    assert json.loads(r.stdout) == []


def test_undo_in_a_pipe_writes_no_live_line(logged_in: Any, tmp_path: Path) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "piped.csv", 30), client_id)
    r = logged_in("imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(": deleted 30 sites")
    assert "━" not in r.stderr and "\r" not in r.stderr


def test_undo_of_rows_changed_since_names_them_and_counts_them_not_undone(logged_in: Any, tmp_path: Path) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "changed.csv", 20), client_id)
    sites = json.loads(logged_in("sites", "list", "--client", client_id, "--all", "-o", "json").stdout)
    changed = next(s for s in sites if s["name"] == "Watched site 0007")
    assert logged_in("sites", "update", changed["id"], "--phone", "0161 496 0000").exit_code == 0
    status, text = finish(spawn(logged_in, "imports", "undo", run, "--yes", size=(24, 80)))
    assert status == 10, text
    lines = screen_lines(text)
    assert any(line.startswith("row 8  ") and "Watched site 0007" in line for line in lines), text
    assert any("20/20" in line and "  not undone 1  " in line for line in lines), text
    assert any(line.endswith("deleted 19 sites, 1 changed since the run") for line in lines), text


def test_export_piped_to_head_leaves_no_progress_line(logged_in: Any, tmp_path: Path) -> None:
    """`sites export | head -2` on a terminal: head ends the pipe early; the live line is erased."""
    client_id, _, _ = new_client(logged_in)
    _import(logged_in, _sites_csv(tmp_path / "many.csv", 400), client_id)
    env = dict(logged_in.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env.pop("COLUMNS", None)
    command = f"{sys.executable} -m wfctl sites export --client {client_id} --concurrency 1 | head -2"
    child = pexpect.spawn("/bin/bash", ["-c", command], env=env, encoding="utf-8", timeout=60,
                          cwd=str(logged_in.tmp_path), dimensions=(24, 80))
    child.expect(pexpect.EOF)
    child.close()
    raw = child.before or ""
    assert "name," in raw and "Watched site " in raw, raw
    assert "exporting sites" in raw, raw  # it was drawn (400 sites, read one at a time) ...
    tail = raw[raw.rindex("exporting sites"):]
    assert "\x1b[2K" in tail, repr(tail[-300:])  # ... and the last thing done to it is to erase it


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_imports_show_on_a_terminal_shows_the_first_rows_the_counts_and_how_to_see_all(
        logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "shown.csv", 30), client_id)
    status, text = finish(spawn(logged_in, "imports", "show", run, size=size))
    assert status == 0, text
    lines = [line for line in screen_lines(text) if line]
    assert lines[0].startswith(f"run {run}  site import  ") and lines[0].endswith("  complete")
    heads = [line for line in lines if line.startswith("row ")]
    assert [h.split()[1] for h in heads] == [str(n) for n in range(1, 11)], heads
    assert (f"... and 20 more rows (`wfctl imports show {run} --all` shows every one, `-o jsonl` one per line)"
            in " ".join(lines))  # the line may wrap at 80 columns
    assert lines[-5:] == ["created    30", "updated    0", "unchanged  0", "skipped    0", "failed     0"]
    status, text = finish(spawn(logged_in, "imports", "show", run, "--all", size=size))
    assert status == 0 and len([line for line in screen_lines(text) if line.startswith("row ")]) == 30
    r = logged_in("imports", "show", run)  # a pipe: every row
    assert len([line for line in r.stdout.splitlines() if line.startswith("row ")]) == 30
    assert "more rows" not in r.stdout


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_a_dry_run_on_a_terminal_shows_the_first_rows_and_the_counts(logged_in: Any, tmp_path: Path,
                                                                     size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    csv = _sites_csv(tmp_path / "plan.csv", 25)
    status, text = finish(spawn(logged_in, "sites", "import", str(csv), "--client", client_id, "--dry-run",
                                size=size))
    assert status == 0, text
    lines = [line for line in screen_lines(text) if line]
    assert len([line for line in lines if line.startswith("row ")]) == 10
    assert "... and 15 more rows (`-o jsonl` shows every one, one per line; so does a pipe, e.g. `| less`)" in \
        " ".join(lines)
    assert any(line.startswith("to create") and line.endswith(" 25") for line in lines), lines
    r = logged_in("sites", "import", str(csv), "--client", client_id, "--dry-run")
    assert r.exit_code == 0 and len([line for line in r.stdout.splitlines() if line.startswith("row ")]) == 25


def test_a_resumed_runs_summary_counts_this_runs_rows(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    server = sandbox_factory(latency_ms=40)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id, _, _ = new_client(cli)
    csv = _sites_csv(tmp_path / "resumed.csv", 200)
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sites", "import", str(csv), "--client", client_id,
                             "--concurrency", "2"], env=env, cwd=str(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = cli("sites", "list", "--client", client_id, "-o", "json", "--limit", "40")
        if listed.exit_code == 0 and len(json.loads(listed.stdout)) >= 30:
            break
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    r = cli("sites", "import", str(csv), "--client", client_id)
    assert r.exit_code == 0, r
    line = r.stderr.splitlines()[-1]
    before = int(line.split("(of 200; ")[1].split(" done before)")[0])
    assert 30 <= before < 200, line
    assert line.startswith("run ") and f": {200 - before} rows (of 200; {before} done before) in " in line, line
    assert line.endswith(f"): created {200 - before}"), line  # this run's rows, not the earlier run's too
    seconds = float(line.split(" done before) in ")[1].split("s")[0])
    # the rate is the last word before " rows/s": under load the plan's share comes first ("(plan 1.2s, send
    # 1.7s; 59 rows/s)")
    rate = int(line.split(" rows/s")[0].split()[-1].lstrip("(")) if "rows/s" in line else None
    assert rate is not None and abs(rate - (200 - before) / seconds) <= max(2, 0.1 * rate), line


def test_an_undo_dry_run_checks_rows_in_parallel_and_shows_them_newest_first(logged_in: Any, tmp_path: Path) -> None:
    """`imports undo --dry-run` reads each row's record (16 at once by default): its rows come out in the
    same order, newest first, as with one at a time (`-j 1`), and it changes nothing."""
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "checked.csv", 40), client_id)
    sites = json.loads(logged_in("sites", "list", "--client", client_id, "--all", "-o", "json").stdout)
    changed = next(s for s in sites if s["name"] == "Watched site 0011")
    assert logged_in("sites", "update", changed["id"], "--phone", "0161 496 0000").exit_code == 0
    parallel = logged_in("imports", "undo", run, "--dry-run", "-o", "json")
    one_at_a_time = logged_in("imports", "undo", run, "--dry-run", "-o", "json", "-j", "1")
    assert parallel.exit_code == one_at_a_time.exit_code == 0, (parallel, one_at_a_time)
    shown, alone = json.loads(parallel.stdout), json.loads(one_at_a_time.stdout)
    assert shown["rows"] == alone["rows"]
    assert {**shown["summary"], "run": None} == {**alone["summary"], "run": None}
    rows = [item["row"] for item in shown["rows"]]
    assert rows == list(range(40, 0, -1)), rows
    assert [item["status"] for item in shown["rows"] if item["status"] != "deleted"] == ["changed"]
    assert shown["summary"]["deleted"] == 39 and shown["summary"]["changed"] == 1
    after = json.loads(logged_in("sites", "list", "--client", client_id, "--all", "-o", "json").stdout)
    assert len(after) == 40


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_an_undo_dry_run_on_a_terminal_shows_its_check_progress(logged_in: Any, tmp_path: Path,
                                                                size: tuple[int, int]) -> None:
    """The check reads every record (16 at once): a progress line `checking FILE  done/total ... ETA` (no
    ok/failed: a check fails nothing) within the terminal's width, then the plan and its counts."""
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "checked-on-screen.csv", 60), client_id)
    status, text = finish(spawn(logged_in, "imports", "undo", run, "--dry-run", size=size))
    assert status == 0, text
    lines = [line for line in screen_lines(text) if line.strip()]
    checking = [line for line in lines if line.startswith("checking checked-on-screen.csv  ")]
    assert checking and "60/60" in checking[-1] and checking[-1].endswith("ETA 0:00:00"), lines
    assert " ok " not in checking[-1] and "failed" not in checking[-1], checking
    assert any(line.split() == ["to", "delete", "60"] for line in lines), lines[-8:]  # a column on a terminal
    assert len([line for line in lines if line.startswith("row ")]) == 10, lines  # the first rows only, then:
    assert "... and 50 more rows (`-o jsonl` shows every one, one per line; so does a pipe, e.g. `| less`)" in \
        " ".join(lines), lines
    assert all(len(line) < size[1] for line in checking), checking
