"""Import runs that are stopped (issues 12 and 14), each a real `wfctl sites import` process against a
slow sandbox: SIGKILL and resume under --on-existing fail, Ctrl-C, an unreachable service, a journal
that cannot be written (RLIMIT_FSIZE, or a 96 KB tmpfs where mounting one works), and a second run
of the same import at once."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names, write
from tests.fixtures.cli import REPO_ROOT

WFCTL = REPO_ROOT / ".venv" / "bin" / "wfctl"


def command() -> list[str]:
    return [str(WFCTL)] if WFCTL.exists() else [sys.executable, "-m", "wfctl"]


def names_file(path: Path, count: int, prefix: str) -> Path:
    return write(path, "name\n" + "".join(f"{prefix} {i:04d}\n" for i in range(count)))


def env_of(cli: Any, **extra: str) -> dict[str, str]:
    return {**cli.env, "PYTHONPATH": str(REPO_ROOT), **extra}


def journals(cli: Any) -> list[Path]:
    return sorted(Path(cli.env["XDG_STATE_HOME"]).rglob("*.journal"))


def latest(path: Path) -> dict[int, str]:
    """Each row's latest status in a journal (complete lines only)."""
    rows: dict[int, str] = {}
    for raw in path.read_bytes().split(b"\n")[1:-1]:
        line = json.loads(raw)
        if "r" in line:
            rows[int(line["r"])] = line["s"]
    return rows


def count(path: Path | None, status: str) -> int:
    if path is None or not path.exists():
        return 0
    try:
        return sum(1 for s in latest(path).values() if s == status)
    except ValueError:  # a line being written
        return 0


def wait_until(proc: subprocess.Popen[str], done: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended early ({proc.returncode}): {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"timed out: {proc.communicate()}")
        time.sleep(0.01)


def only_journal(cli: Any) -> Path | None:
    found = journals(cli)
    return found[0] if len(found) == 1 else None


@contextlib.contextmanager
def running(args: list[str], env: dict[str, str], cwd: Path,
            preexec: Callable[[], None] | None = None) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([*command(), *args], env=env, cwd=str(cwd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), *args], env=env, cwd=str(cwd), capture_output=True, text=True, timeout=60)


def slow_login(cli: Any, sandbox_factory: Any, latency_ms: int) -> tuple[Any, str]:
    server = sandbox_factory(latency_ms=latency_ms)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    return server, new_client(cli)


def summary_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("run ")]
    assert len(lines) == 1, stderr
    return lines[0]


def resume(cli: Any, cid: str, args: list[str], env: dict[str, str], cwd: Path, run_id: str, done: int,
           rows: int) -> subprocess.CompletedProcess[str]:
    """Run the same command again: it says first that it resumes, and ends with every row created once."""
    r = run(args, env, cwd)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == f"resuming run {run_id}: {done} of {rows} rows already done", r.stderr
    line = summary_line(r.stderr)
    assert line.endswith(f": created {rows - done}") and "skipped" not in line, line  # this run's rows only
    names = site_names(cli, cid)
    assert len(names) == rows and len(set(names)) == rows
    return r


# -- issue 12 Medium 5 and issue 14 §3: SIGKILL, then resume under --on-existing fail ----------------

def test_killed_on_existing_fail_run_resumes(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    _, cid = slow_login(cli, sandbox_factory, 25)
    rows = 120
    path = names_file(tmp_path / "s.csv", rows, "Fail")
    args = ["sites", "import", str(path), "--client", cid, "--on-existing", "fail", "--concurrency", "4"]
    env = env_of(cli)
    with running(args, env, tmp_path) as proc:
        wait_until(proc, lambda: count(only_journal(cli), "created") >= 30)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    journal = only_journal(cli)
    assert journal is not None
    done_before = count(journal, "created")
    in_flight = count(journal, "sending")
    assert 30 <= done_before < rows
    assert in_flight >= 1  # rows sent, answer not recorded: the resume must call them created
    r = resume(cli, cid, args, env, tmp_path, journal.stem, done_before, rows)
    assert "already exists" not in r.stderr


# -- issue 14 §3: Ctrl-C ---------------------------------------------------------------------------

def interrupted(cli: Any, args: list[str], env: dict[str, str], cwd: Path, created: int,
                rows: int) -> tuple[int, str]:
    """Ctrl-C once `created` rows are journaled: exit 130 and how far the run says it got; (done, stderr)."""
    with running(args, env, cwd) as proc:
        wait_until(proc, lambda: count(only_journal(cli), "created") >= created)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    match = re.search(rf"interrupted: (\d+) of {rows} rows done; run the same command again to resume\n", err)
    assert match, err
    done = int(match.group(1))
    assert created <= done < rows, err
    return done, err


def test_ctrl_c_says_how_far_writes_the_report_and_resumes(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    _, cid = slow_login(cli, sandbox_factory, 25)
    rows = 120
    path = names_file(tmp_path / "s.csv", rows, "Int")
    rep = tmp_path / "r.csv"
    args = ["sites", "import", str(path), "--client", cid, "--concurrency", "4", "--report", str(rep)]
    env = env_of(cli)
    done, err = interrupted(cli, args, env, tmp_path, 30, rows)
    assert "Traceback" not in err
    journal = only_journal(cli)
    assert journal is not None
    assert count(journal, "created") == done and count(journal, "sending") == 0  # in-flight rows finished
    statuses = [row["status"] for row in csv.DictReader(io.StringIO(rep.read_text(encoding="utf-8-sig")))]
    assert len(statuses) == rows
    assert statuses.count("created") == done and statuses.count("not sent") == rows - done
    assert len(site_names(cli, cid)) == done

    resume(cli, cid, args, env, tmp_path, journal.stem, done, rows)


# -- issue 14 §3: an unreachable service -----------------------------------------------------------

def test_unreachable_service_stops_with_the_count_done(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server, cid = slow_login(cli, sandbox_factory, 30)
    rows = 200
    path = names_file(tmp_path / "s.csv", rows, "Gone")
    args = ["sites", "import", str(path), "--client", cid, "--concurrency", "2"]
    env = env_of(cli, WFCTL_UNREACHABLE_SECONDS="2")
    with running(args, env, tmp_path) as proc:
        wait_until(proc, lambda: count(only_journal(cli), "created") >= 10)
        stopped = time.monotonic()  # before the stop: the outage's 2 s may start while the server shuts down
        server.stop()
        _, err = proc.communicate(timeout=40)
        took = time.monotonic() - stopped
    assert proc.returncode == 7, err
    assert err.count("service unreachable (") == 1 and "), retrying\n" in err, err
    match = re.search(rf"stopped: the service is unreachable \(.+\); (\d+) of {rows} rows done; "
                      r"run the same command again to resume\n", err)
    assert match, err
    journal = only_journal(cli)
    assert journal is not None
    assert int(match.group(1)) == count(journal, "created")
    assert 2 <= took < 20, took
    assert "failed" not in err  # rows not sent are not counted as failed


# -- issue 14 §4: a journal that cannot be written ------------------------------------------------

def _file_size_limit(limit: int) -> Callable[[], None]:
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return preexec


@contextlib.contextmanager
def small_tmpfs(folder: Path) -> Iterator[bool]:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        yield False
        return
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(folder)],
                                 capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        mounted = False
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], capture_output=True, timeout=10)


@pytest.mark.parametrize("fault", ["rlimit", "tmpfs"])
def test_unwritable_journal_stops_and_nothing_unrecorded_was_sent(cli: Any, sandbox_factory: Any, tmp_path: Path,
                                                                  fault: str) -> None:
    from wfctl.runs import journal as journal_module

    _, cid = slow_login(cli, sandbox_factory, 5)
    rows = 200 if fault == "rlimit" else 900
    path = names_file(tmp_path / "s.csv", rows, "Full")
    args = ["sites", "import", str(path), "--client", cid, "--concurrency", "4"]
    with contextlib.ExitStack() as stack:
        if fault == "rlimit":
            journal = tmp_path / "j.journal"
            env, preexec = env_of(cli), _file_size_limit(16_000)
        else:
            if not stack.enter_context(small_tmpfs(tmp_path / "small")):
                pytest.skip("cannot mount a tmpfs here")
            journal = tmp_path / "small" / "j.journal"
            env, preexec = env_of(cli), None
        r0 = subprocess.run([*command(), *args, "--journal", str(journal)], env=env, cwd=str(tmp_path),
                            capture_output=True, text=True, timeout=60, preexec_fn=preexec)
        assert r0.returncode == 11, r0.stderr
        match = re.search(rf"stopped: cannot write the journal \({re.escape(str(journal))}\): (.+); (\d+) of {rows} "
                          r"rows done; free some space and run again to resume\n", r0.stderr)
        assert match, r0.stderr
        assert "unexpected error" not in r0.stderr and "Traceback" not in r0.stderr
        recorded = latest(journal)
        done = sum(1 for s in recorded.values() if s == "created")
        in_flight = sum(1 for s in recorded.values() if s == "sending")
        assert int(match.group(2)) == done and 0 < done < rows
        assert match.group(1) == ("file too large" if fault == "rlimit" else "no space left on device")
        on_server = len(site_names(cli, cid))
        assert done <= on_server <= done + in_flight, (done, in_flight, on_server)  # nothing sent unrecorded

        if fault == "tmpfs":  # free some space: the journal moves to a roomier place
            moved = tmp_path / "moved.journal"
            moved.write_bytes(journal.read_bytes())
            journal = moved
        run_id = json.loads(journal.read_bytes().split(b"\n")[0])["run"]
        resume(cli, cid, [*args, "--journal", str(journal)], env, tmp_path, run_id, done, rows)
        _, entries, end = journal_module.read(str(journal))  # still a readable journal
        assert end is not None and len(entries) == rows
        assert {e.status for e in entries.values()} == {"created"}


def test_second_run_of_the_same_import_is_refused(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    _, cid = slow_login(cli, sandbox_factory, 40)
    rows = 80
    path = names_file(tmp_path / "s.csv", rows, "Lock")
    args = ["sites", "import", str(path), "--client", cid, "--concurrency", "1"]
    env = env_of(cli)
    with running(args, env, tmp_path) as proc:
        wait_until(proc, lambda: count(only_journal(cli), "created") >= 3)
        second = cli("sites", "import", str(path), "--client", cid)
        assert second.exit_code == 5, second  # docs/imports.md (issue 45: it was 2)
        assert f"another run of this import is in progress (pid {proc.pid})" in second.stderr
        assert proc.poll() is None
        before = len(site_names(cli, cid))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert len(journals(cli)) == 1  # the refused run started no journal of its own
    assert len(site_names(cli, cid)) <= before + 1
    r = run(args, env, tmp_path)  # the lock went with the killed process
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("resuming run ")
    assert len(site_names(cli, cid)) == rows


# -- Ctrl-C once every row is queued (the run waits for its workers) --------------------------------

def test_ctrl_c_while_the_last_rows_are_in_flight(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    """Every row fits the queue, so the run is waiting for its workers when Ctrl-C comes: the rows in
    flight finish and are recorded before the journal closes, the queued ones are not sent."""
    _, cid = slow_login(cli, sandbox_factory, 300)
    rows = 12
    path = names_file(tmp_path / "s.csv", rows, "Late")
    rep = tmp_path / "r.csv"
    args = ["sites", "import", str(path), "--client", cid, "--concurrency", "4", "--report", str(rep)]
    done, _ = interrupted(cli, args, env_of(cli), tmp_path, 1, rows)
    journal = only_journal(cli)
    assert journal is not None
    assert count(journal, "created") == done and count(journal, "sending") == 0, journal.read_text()
    assert len(site_names(cli, cid)) == done


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_full_disk_for_the_imports_temporary_rows_is_a_local_fault(cli: Any, sandbox_factory: Any, tmp_path: Path,
                                                                     dry_run: bool) -> None:
    """The checked rows are spooled to a temporary file (and a plan's journal is one): a disk too full for
    it is exit 11 with one line naming where, as for the journal, not exit 1 "unexpected error"; nothing
    was sent."""
    _, cid = slow_login(cli, sandbox_factory, 0)
    rows = 3000
    path = write(tmp_path / "s.csv", "name,address\n" + "".join(f"Spool {i:04d},{'x' * 150}\n" for i in range(rows)))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    args = ["sites", "import", str(path), "--client", cid, *(["--dry-run"] if dry_run else [])]
    r = subprocess.run([*command(), *args], env=env_of(cli, TMPDIR=str(temporary)), cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=60, preexec_fn=_file_size_limit(200_000))
    assert r.returncode == 11, r.stderr
    assert r.stderr.splitlines()[-1] == (f"error: cannot write a temporary file of the import in {temporary}: "
                                        "file too large; free some space and run again"), r.stderr
    assert "Traceback" not in r.stderr
    assert site_names(cli, cid) == []


def test_a_disk_too_full_for_a_plans_journal_is_a_local_fault(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    """A plan's journal is a temporary file: when not a byte can be written, tempfile finds no folder to
    make it in (it tries a file in each), and that is exit 11 too, not 1 "unexpected error"."""
    _, cid = slow_login(cli, sandbox_factory, 0)
    path = names_file(tmp_path / "s.csv", 3, "Plan")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    r = subprocess.run([*command(), "sites", "import", str(path), "--client", cid, "--dry-run"],
                       env=env_of(cli, TMPDIR=str(temporary)), cwd=str(tmp_path), capture_output=True, text=True,
                       timeout=60, preexec_fn=_file_size_limit(0))
    assert r.returncode == 11, r.stderr
    assert r.stderr == (f"error: cannot write a temporary file of the import in {temporary}: no temporary folder "
                        "could be written (full, or not writable); free some space and run again\n")
