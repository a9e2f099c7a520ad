"""Issue 45 (and 49): a 429 paces a run, it never fails a row (G18). A `-j 16` import against
`--rate-limit 20` fails no row and goes at the rate the limit allows; reads across clients (`sites
export --all-clients`, `rates list --all-clients`, `bans where`) against `--rate-limit 10` are paced as
an import is, and give the same answer as an unlimited server on the same database."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_names
from tests.bulk.test_runs_faults import names_file
from tests.fixtures.sandbox import ADMIN, SandboxServer


def test_a_j16_import_against_rate_limit_20_fails_no_row_at_the_rate_allowed(cli: Any, sandbox_factory: Any,
                                                                             tmp_path: Path) -> None:
    """Was: a 429 counted toward a row's 4 tries (1 row failed in 1 of 3 runs of the issue's trial)."""
    server = sandbox_factory(rate_limit=20)
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    cid = new_client(cli)
    rows = 240
    path = names_file(tmp_path / "s.csv", rows, "Paced")
    started = time.monotonic()
    r = cli("sites", "import", str(path), "--client", cid, "-j", "16", "-o", "json")
    took = time.monotonic() - started
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert summary["failed"] == 0 and summary["created"] == rows, r.stdout
    assert "429" not in r.stderr, r.stderr
    # the limit allows 20 requests a second, the run's few reads (the client, its sites) included
    assert rows / took >= 0.8 * 20, f"{rows / took:.1f} rows/s"
    assert sorted(site_names(cli, cid)) == [f"Paced {i:04d}" for i in range(rows)]


def test_reads_across_clients_are_paced_not_given_up(cli: Any, tmp_path: Path) -> None:
    """Was: `sites export --all-clients`, `rates list --all-clients` and `bans where` gave up with a 429
    error under `--rate-limit 10`. Each now gives what an unlimited server on the same database gives."""
    database = str(tmp_path / "sandbox.db")
    free = SandboxServer(database)
    limited = SandboxServer(database, rate_limit=10)
    try:
        commands = [["sites", "export", "--all-clients", "-o", "json"],
                    ["rates", "list", "--all-clients", "-o", "json"]]
        assert cli.login_as(free.url, *ADMIN).exit_code == 0
        sites = json.loads(cli(*commands[0]).stdout)
        worker = next(w for site in sites for w in site["bannedWorkers"])
        commands.append(["bans", "where", worker, "-o", "json"])
        expected = [cli(*args).stdout for args in commands]
        assert cli.login_as(limited.url, *ADMIN).exit_code == 0
        for args, want in zip(commands, expected, strict=True):
            r = cli(*args)
            assert r.exit_code == 0, (args, r)
            assert r.stdout == want, args
            assert "429" not in r.stderr, r.stderr
    finally:
        limited.stop()
        free.stop()
