"""`wfctl bans add` as a run over many sites: a colleague's change to a site between the plan and its write
is kept (the id is added to the list as read just before the write, not to the plan's copy), and a run
killed with SIGKILL resumes when run again, changing no site twice; undo then lifts every ban it made."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_rows
from tests.fixtures.runs import rows_in_state, started_run

BANS_ADD = '"command": "bans add"'  # the journal's header says so


def client_with_sites(cli: Any, tmp_path: Path, count: int) -> tuple[str, list[dict[str, Any]]]:
    """A new client with `count` sites (some banning workers already); its sites' full records, in the
    service's order."""
    client_id = new_client(cli)
    (tmp_path / "sites.csv").write_text(site_rows(count), encoding="utf-8")
    r = cli("sites", "import", str(tmp_path / "sites.csv"), "--client", client_id, "--concurrency", "16")
    assert r.exit_code == 0, r
    return client_id, bans_at(cli, client_id)


def bans_at(cli: Any, client_id: str) -> list[dict[str, Any]]:
    r = cli("sites", "export", "--client", client_id, "-o", "json")
    assert r.exit_code == 0, r
    return [{"id": s["id"], "bannedWorkers": s["bannedWorkers"]} for s in json.loads(r.stdout)]


def updated_lines(path: Path) -> int:
    return rows_in_state(path, "updated")


def test_a_colleagues_change_between_the_plan_and_the_write_is_kept(cli: Any, sandbox_factory: Any,
                                                                     tmp_path: Path) -> None:
    slow = sandbox_factory(latency_ms=20)
    assert cli.login_as(slow.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id, before = client_with_sites(cli, tmp_path, 30)
    at = max(i for i, s in enumerate(before) if s["bannedWorkers"])  # the last site that bans two workers
    assert at >= 20
    lifted, kept = before[at]["bannedWorkers"]  # site_rows: site i bans W-i and W-(i+1), i % 3 != 0

    proc, journal = started_run(cli, tmp_path, ["bans", "add", "W-20417", "--client", client_id, "-j", "1"],
                                header=BANS_ADD, state="updated", rows=1)
    # planned: that site held [lifted, kept]; a colleague now lifts one ban and bans W-99 there (no site of the file bans it)
    r = cli("sites", "update", before[at]["id"], "--remove-banned-worker", lifted, "--add-banned-worker", "W-99")
    assert r.exit_code == 0, r
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    assert err.decode().endswith("updated 30\n"), err.decode()
    after = bans_at(cli, client_id)
    assert after[at]["bannedWorkers"] == [kept, "W-99", "W-20417"]  # the lifted ban not put back, W-99 kept
    others = [i for i in range(len(before)) if i != at]
    assert [after[i]["bannedWorkers"] for i in others] == [[*before[i]["bannedWorkers"], "W-20417"] for i in others]

    r = cli("imports", "undo", journal.stem, "--yes")
    assert r.exit_code == 0, r
    undone = bans_at(cli, client_id)
    assert undone[at]["bannedWorkers"] == [kept, "W-99"]  # the run's ban lifted, the colleague's change kept
    assert [undone[i] for i in others] == [before[i] for i in others]


def test_a_run_killed_midway_resumes_and_changes_no_site_twice(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    sites = 200
    slow = sandbox_factory(latency_ms=10)
    assert cli.login_as(slow.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id, before = client_with_sites(cli, tmp_path, sites)
    command = ["bans", "add", "W-20417", "--client", client_id, "-j", "2"]
    proc, journal = started_run(cli, tmp_path, command, header=BANS_ADD, state="updated", rows=40)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    killed_at = updated_lines(journal)
    assert killed_at < sites
    r = cli("imports", "list", "-o", "json")
    assert (json.loads(r.stdout)[0]["run"], json.loads(r.stdout)[0]["state"]) == (journal.stem, "interrupted")

    r = cli("-v", *command)
    assert r.exit_code == 0, r
    puts = {line.split("PUT", 1)[1].split()[0] for line in r.stderr.splitlines() if "PUT" in line and "/api/sites/" in line}
    # the sites the killed run had not reached, and perhaps one it was sending whose answer it never read
    assert sites - killed_at - 2 <= len(puts) <= sites - killed_at
    assert f"run {journal.stem}: {sites} sites in " in r.stderr and r.stderr.endswith(f"updated {sites}\n")
    after = bans_at(cli, client_id)
    assert after == [{**s, "bannedWorkers": [*s["bannedWorkers"], "W-20417"]} for s in before]  # each once
    done = [json.loads(line) for line in journal.read_text().splitlines()[1:] if '"s": "updated"' in line]
    assert len(done) == sites and len({o["id"] for o in done}) == sites

    r = cli("imports", "undo", journal.stem, "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(f"of run {journal.stem}: restored {sites} sites")
    assert bans_at(cli, client_id) == before
