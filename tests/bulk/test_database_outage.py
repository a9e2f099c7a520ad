"""Issue 45: what a `-j 16` import meets when the sandbox's database cannot serve for a while.

- A full disk (and a read-only database) is a 503 with Retry-After, an outage the run rides out: no row
  fails. The issue's trial was a 15 s window under 5,000 rows; here a 5 s window under 600 rows proves
  the same (every worker meets the fault, repeatedly, and waits it out), in a fraction of the time.
- After PostgreSQL restarts under the run, or one of two workers is killed, the last row is done within
  10 s of the service being back: a create's Idempotency-Key reserved by a session the restart (or the
  kill) ended is taken over at once, not waited on for a minute.

On SQLite and PostgreSQL; the faults are the database's own (wfctl/sandbox/injectors/database.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names
from tests.bulk.test_runs_faults import count, env_of, names_file, only_journal, running, wait_until
from tests.fixtures.sandbox import ADMIN, SandboxServer
from wfctl.sandbox.injectors import DISK_FULL, READ_ONLY, DatabaseFault, kill_worker


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "postgresql":
        database = request.getfixturevalue("postgres").new_database()
    else:
        database = str(tmp_path / "sandbox.db")
    started = SandboxServer(database)
    try:
        yield started
    finally:
        started.stop()


@pytest.mark.parametrize("fault", [DISK_FULL, READ_ONLY])
def test_a_j16_import_rides_out_a_database_that_cannot_write(cli: Any, server: SandboxServer, fault: str,
                                                            tmp_path: Path) -> None:
    """Was: 339 of 5,000 rows failed in a 15 s disk-full window (each create a 500, four tries)."""
    faults = DatabaseFault(server)

    def window() -> None:
        faults.start(fault)
        try:
            time.sleep(5)
        finally:
            faults.stop()

    _import_through(cli, server, tmp_path, 600, "Full", window, after=60)


def test_the_last_row_is_done_within_10s_of_postgresql_back(cli: Any, own_cluster: Any, tmp_path: Path) -> None:
    """Was: one row waited about 60 s for the reservation its create had left behind (5 of 7 runs)."""
    server = SandboxServer(own_cluster.new_database())
    try:
        # every backend killed mid-transaction, then crash recovery
        took = _import_through(cli, server, tmp_path, 800, "Back", lambda: own_cluster.restart("immediate"),
                               after=600)
        assert took < 10, f"the run ended {took:.1f} s after the database was back"
    finally:
        server.stop()


def test_the_last_row_is_done_within_10s_of_a_worker_killed(cli: Any, own_cluster: Any, tmp_path: Path) -> None:
    """`serve --workers 2` on PostgreSQL, one worker killed (SIGKILL) under the run: the creates it held
    are taken over by the other worker as soon as its database session is gone (was: about 60 s)."""
    from tests.sandbox.test_staging import _serve, _stop

    proc, url = _serve("--database", own_cluster.new_database(), "--workers", "2")
    try:
        took = _import_through(cli, url, tmp_path, 800, "Killed", lambda: kill_worker(proc.pid), after=600)
        assert took < 10, f"the run ended {took:.1f} s after a worker was killed"
    finally:
        assert _stop(proc) == 0


def _import_through(cli: Any, server: SandboxServer | str, tmp_path: Path, rows: int, prefix: str,
                    fault: Callable[[], None], *, after: int) -> float:
    """A `-j 16` import of `rows` sites through `fault()`, started once `after` rows are created: it
    exits 0 with no row failed and every site created once. The seconds it ran on after `fault()`."""
    assert cli.login_as(server if isinstance(server, str) else server.url, *ADMIN).exit_code == 0
    cid = new_client(cli)
    path = names_file(tmp_path / "s.csv", rows, prefix)
    args = ["sites", "import", str(path), "--client", cid, "-j", "16", "-o", "json"]
    with running(args, env_of(cli), tmp_path) as proc:
        wait_until(proc, lambda: count(only_journal(cli), "created") >= after)
        fault()
        back = time.monotonic()
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - back
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert summary["failed"] == 0 and summary["created"] == rows, out
    assert sorted(site_names(cli, cid)) == [f"{prefix} {i:04d}" for i in range(rows)]
    return took


@pytest.fixture(scope="module")
def own_cluster() -> Any:
    from tests.fixtures.sandbox import throwaway_cluster

    yield from throwaway_cluster()  # restarted here: not the session's shared cluster
