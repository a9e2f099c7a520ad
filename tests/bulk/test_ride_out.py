"""Issue 30 §4: wfctl rides out an outage of the service of up to 60 s (wfctl.api.net.retry), every worker of a
bulk run on the one pause, and a terminal says so: `service unavailable, waiting (12 s)`.

A real outage: the sandbox's PostgreSQL stopped and started again under a `-j 16` import (a cluster of
this module's own), and a proxy in front of the sandbox that answers 503 with Retry-After: 1 for a while
(as the sandbox does while its database is down) for what a terminal shows."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names
from tests.bulk.test_runs_faults import count, env_of, names_file, only_journal, running, wait_until
from tests.fixtures.sandbox import ADMIN, SandboxServer, throwaway_cluster
from tests.terminal.conftest import run_in_terminal
from wfctl.sandbox.injectors import FaultProxy

NOTE = "service unavailable, waiting ("


def _seconds_shown(raw: str) -> list[int]:
    """The seconds each drawing of the note said, in order."""
    return [int(n) for n in re.findall(re.escape(NOTE) + r"(\d+) s\)", raw)]


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Any]:
    yield from throwaway_cluster()  # stopped and started here: not the session's shared cluster


class Unavailable(FaultProxy):
    """Forwards everything, except that once `after` requests matching `path` went through, it answers
    every request 503 (Retry-After: 1) itself for `seconds`."""

    def __init__(self, upstream: str, *, seconds: float, after: int = 0, path: str = "/api/") -> None:
        self.seconds, self.after, self.path = seconds, after, path
        self.armed = False
        self.until = 0.0
        self.refused = 0

        def answer(method: str, request_path: str) -> bytes | None:
            now = time.monotonic()
            if self.armed and self.until == 0.0 and request_path.startswith(self.path):
                if self.after <= 0:
                    self.until = now + self.seconds
                self.after -= 1
            if now < self.until:
                self.refused += 1
                body = b'{"title":"Service Unavailable","status":503,"detail":"the database is restarting"}'
                return (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/problem+json"
                        b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return None

        super().__init__(upstream, drop=lambda method, path: False, answer=answer)


@contextlib.contextmanager
def import_behind_503s(cli: Any, sandbox_factory: Any, path: Path, rows: int, prefix: str, *, seconds: float,
                       after: int) -> Iterator[tuple[Unavailable, str]]:
    """A logged-in wfctl behind a proxy that answers 503 for `seconds` once `after` requests for a client went
    through (armed), a new client and a file of `rows` new sites at `path`: (the proxy, the client's id)."""
    server = sandbox_factory()
    proxy = Unavailable(server.url, seconds=seconds, after=after, path="/api/clients/")
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        cid = new_client(cli)
        names_file(path, rows, prefix)
        proxy.armed = True
        yield proxy, cid
    finally:
        proxy.stop()


def test_a_single_command_waits_and_says_so_on_a_terminal(cli: Any, sandbox_factory: Any) -> None:
    """Was: 4 tries in about 3 s against Retry-After: 1, then exit 1, silent meanwhile."""
    server = sandbox_factory()
    proxy = Unavailable(server.url, seconds=5)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        proxy.armed = True
        started = time.monotonic()
        screen = run_in_terminal(cli, "branches", "list", "-o", "jsonl", columns=80, rows=24)
        took = time.monotonic() - started
        assert screen.exit_status == 0, screen.raw
        assert 5 <= took < 15, took
        assert proxy.refused >= 3
        shown = _seconds_shown(screen.raw)  # drawn from 2 s on (a busy machine may draw the first late)
        assert shown and shown[0] in (2, 3) and max(shown) >= 4, repr(screen.raw)
        # erased before the records are written: the records' lines are whole
        records = [json.loads(line) for line in screen.text.split("\n") if line.startswith("{")]
        assert records and all("name" in record for record in records)
        assert screen.raw.rindex("\r\x1b[2K") < screen.raw.index('{"')
        # Through a pipe: the same wait, no note.
        proxy.until, proxy.after = 0.0, 0
        piped = cli("branches", "list", "-o", "json")
        assert piped.exit_code == 0, piped
        assert proxy.refused > 6 and "service unavailable" not in piped.stderr
    finally:
        proxy.stop()


def test_a_single_command_gives_up_after_the_budget_with_the_note_erased(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory()
    proxy = Unavailable(server.url, seconds=30)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        proxy.armed = True
        cli.env["WFCTL_OUTAGE_SECONDS"] = "4"
        screen = run_in_terminal(cli, "branches", "list", columns=80, rows=24)
        assert screen.exit_status == 1, screen.raw
        assert _seconds_shown(screen.raw)[0] in (2, 3), repr(screen.raw)
        # the note is erased (carriage return, erase the line) before the error line is written
        after = screen.raw.rsplit("\r\x1b[2K", 1)[1]
        assert after.startswith("error: ") and "HTTP 503" in after and NOTE not in after, repr(screen.raw)
    finally:
        proxy.stop()


def test_an_import_on_a_terminal_says_it_waits_and_fails_no_row(cli: Any, sandbox_factory: Any,
                                                                tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    with import_behind_503s(cli, sandbox_factory, path, 120, "Waits", seconds=4, after=30) as (proxy, cid):
        screen = run_in_terminal(cli, "sites", "import", str(path), "--client", cid, "-j", "16",
                                 columns=120, rows=40)
        assert screen.exit_status == 0, screen.text
        assert proxy.refused >= 16
        assert _seconds_shown(screen.text)[:1] in ([2], [3]), screen.text
        assert "failed 0" in screen.text or "failed" not in screen.text.split("run ")[-1], screen.text
        names = site_names(cli, cid)
        assert sorted(names) == [f"Waits {i:04d}" for i in range(120)]


def test_a_j16_import_rides_out_a_postgresql_restart(cli: Any, own_cluster: Any, tmp_path: Path) -> None:
    """Was: the rows in flight failed (exit 10; a re-run finished). PostgreSQL is stopped for 4 s under
    the run: no row fails, every site is created once."""
    server = SandboxServer(own_cluster.new_database())
    try:
        assert cli.login_as(server.url, *ADMIN).exit_code == 0
        cid = new_client(cli)
        rows = 600
        path = names_file(tmp_path / "s.csv", rows, "Restart")
        args = ["sites", "import", str(path), "--client", cid, "-j", "16", "-o", "json"]
        with running(args, env_of(cli), tmp_path) as proc:
            wait_until(proc, lambda: count(only_journal(cli), "created") >= 60)
            own_cluster.stop_server()
            time.sleep(4)
            own_cluster.start_server()
            out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert json.loads(out)["failed"] == 0, out
        names = site_names(cli, cid)
        assert len(names) == rows and len(set(names)) == rows
    finally:
        server.stop()


def test_rates_set_and_its_undo_ride_out_an_outage(cli: Any, sandbox_factory: Any) -> None:
    """`rates set` and `imports undo` behind a service that answers 503 for 4 s in the middle of the run:
    every site changed, then every one put back; no site failed."""
    server = sandbox_factory()
    proxy = Unavailable(server.url, seconds=4, after=12)
    try:
        assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
        before = json.loads(cli("rates", "list", "--all-clients", "--skill", "cleaner", "-o", "json").stdout)
        assert len(before) >= 6
        proxy.armed = True
        r = cli("rates", "set", "--all-clients", "--skill", "cleaner", "--by", "+1%", "-o", "json")
        assert r.exit_code == 0, r
        assert proxy.refused >= 3 and json.loads(r.stdout)["failed"] == 0, r
        after = json.loads(cli("rates", "list", "--all-clients", "--skill", "cleaner", "-o", "json").stdout)
        assert [row["hourlyRate"] for row in after] == [
            float(f"{row['hourlyRate'] * 1.01 + 1e-9:.2f}") for row in before]
        runs = json.loads(cli("imports", "list", "-o", "json").stdout)
        refused = proxy.refused
        proxy.until, proxy.after = 0.0, 6
        undone = cli("imports", "undo", runs[0]["run"], "--yes")
        assert undone.exit_code == 0, undone
        assert proxy.refused > refused
        back = json.loads(cli("rates", "list", "--all-clients", "--skill", "cleaner", "-o", "json").stdout)
        assert back == before
    finally:
        proxy.stop()
