"""`wfctl rates set` killed with SIGKILL during a 2,000-site run, then run again: every site changed once,
none twice, and undo still puts every rate back exactly."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_rows
from tests.fixtures.runs import rows_in_state, started_run

SITES = 2000


def forklift_rates(cli: Any, client_id: str) -> dict[str, Decimal]:
    """site name -> its Forklift Driver rate, from the full records (export)."""
    r = cli("sites", "export", "--client", client_id)
    assert r.exit_code == 0, r
    out = {}
    for row in csv.DictReader(io.StringIO(r.stdout.lstrip("\ufeff"), newline="")):
        rates = dict(part.split("=", 1) for part in row["rates"].replace("\\|", "/").split("|"))
        out[row["name"]] = Decimal(rates["Forklift Driver"])
    return out


def updated_lines(path: Path) -> int:
    return rows_in_state(path, "updated")


def test_a_run_killed_midway_resumes_and_changes_no_site_twice(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    fast = sandbox_factory()
    assert cli.login_as(fast.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id = new_client(cli)
    (tmp_path / "sites.csv").write_text(site_rows(SITES), encoding="utf-8")
    r = cli("sites", "import", str(tmp_path / "sites.csv"), "--client", client_id, "--concurrency", "16")
    assert r.exit_code == 0, r
    before = forklift_rates(cli, client_id)
    assert len(before) == SITES

    # two at once: slow enough to be killed midway, and the rerun resumes the same run (same service)
    command = ["rates", "set", "--client", client_id, "--skill", "forklift driver", "--by", "+3%", "-j", "2"]
    proc, journal = started_run(cli, tmp_path, command, header='"command": "rates set"', state="updated", rows=300)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    killed_at = updated_lines(journal)
    assert killed_at < SITES
    r = cli("imports", "list", "-o", "json")
    newest = json.loads(r.stdout)[0]
    assert (newest["run"], newest["state"]) == (journal.stem, "interrupted")

    r = cli("-v", *command)
    assert r.exit_code == 0, r
    puts = [line for line in r.stderr.splitlines() if "PUT" in line and "/api/sites/" in line]
    # the sites the killed run had not reached, and perhaps one it was sending whose answer it never read
    assert SITES - killed_at - 2 <= len({line.split("PUT", 1)[1].split()[0] for line in puts}) <= SITES - killed_at
    assert f"run {journal.stem}: {SITES} sites in " in r.stderr and r.stderr.endswith(f"updated {SITES}\n")
    after = forklift_rates(cli, client_id)
    expected = {name: (rate * Decimal("1.03")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
                for name, rate in before.items()}
    assert after == expected  # each once: none missed, none raised twice
    outcomes = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    done = [o for o in outcomes if o.get("s") == "updated"]
    assert len(done) == SITES and len({o["id"] for o in done}) == SITES

    r = cli("imports", "undo", journal.stem, "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(f"of run {journal.stem}: restored {SITES} sites")
    assert forklift_rates(cli, client_id) == before
