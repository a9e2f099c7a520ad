"""Rename cycles (issue 33 §3): rows that carry ids and swap their records' names (or a sheet whose name
column alone was sorted) cannot be sent in any order as they are, since names are unique per parent.
The plan names each cycle; the run sends it through a temporary name (one more update a cycle), all
journalled, so that a run killed in the middle resumes and `imports undo` takes it back in order; no
record keeps a temporary name after a run or an undo."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client
from tests.fixtures.cli import REPO_ROOT
from tests.imports.helpers import import_file, runs, sites_of

WFCTL = str(REPO_ROOT / ".venv" / "bin" / "wfctl")
SITES = "name,address\nAlpha,1 High St\nBravo,2 High St\nCharlie,3 High St\nDelta,4 High St\n"


def _export(cli: Any, client: str) -> list[list[str]]:
    """The client's sites as `sites export` gives them, by name: id, name and address."""
    r = cli("sites", "export", "--client", client)
    assert r.exit_code == 0, r
    rows = sorted(csv.DictReader(io.StringIO(r.stdout)), key=lambda row: row["name"])
    return [["id", "name", "address"], *([row["id"], row["name"], row["address"]] for row in rows)]


def _write(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join(",".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _client_with_sites(cli: Any, tmp_path: Path, text: str = SITES) -> tuple[str, dict[str, str]]:
    client = new_client(cli)
    import_file(cli, "sites", tmp_path / "first.csv", text, "--client", client)
    return client, _held(cli, client)


def _held(cli: Any, client: str) -> dict[str, str]:
    """The client's sites: name -> id."""
    return {name: site["id"] for name, site in sites_of(cli, client).items()}


def test_a_swap_of_two_names_is_planned_as_a_cycle_sent_through_a_temporary_name_and_undone(
        logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path)
    rows = _export(cli, client)
    assert [row[1] for row in rows[1:]] == ["Alpha", "Bravo", "Charlie", "Delta"]
    rows[1][1], rows[2][1] = "Bravo", "Alpha"  # swapped by hand
    path = _write(tmp_path / "swapped.csv", rows)
    named = json.loads(cli("clients", "get", client, "-o", "json").stdout)["name"]

    plan = cli("sites", "import", str(path), "--client", client, "--on-existing", "update", "--dry-run")
    assert plan.exit_code == 0, plan
    assert plan.stdout == (f"row 1  update  Alpha  ({ids['Alpha']})\n  in client {named}\n  name: Alpha -> Bravo\n"
                           f"row 2  update  Bravo  ({ids['Bravo']})\n  in client {named}\n  name: Bravo -> Alpha\n"
                           "to create        0\nto update        2\nunchanged        2\nskipped (exist)  0\n"
                           "invalid          0\n")
    assert plan.stderr == ("rename cycle: row 1 'Alpha' -> 'Bravo', row 2 'Bravo' -> 'Alpha' "
                           "(through a temporary name: 1 more update)\n")
    document = cli("sites", "import", str(path), "--client", client, "--on-existing", "update", "--dry-run",
                   "-o", "json")
    assert document.exit_code == 0, document
    summary = json.loads(document.stdout)["summary"]
    assert summary["renameCycles"] == [[{"row": 1, "id": ids["Alpha"], "from": "Alpha", "to": "Bravo"},
                                        {"row": 2, "id": ids["Bravo"], "from": "Bravo", "to": "Alpha"}]]
    assert summary["updated"] == 2 and summary["failed"] == 0

    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[0].startswith("rename cycle: row 1 'Alpha' -> 'Bravo'")
    assert ": updated 2, unchanged 2" in r.stderr  # the temporary rename is no row of the file
    assert _held(cli, client) == {"Alpha": ids["Bravo"], "Bravo": ids["Alpha"], "Charlie": ids["Charlie"],
                                  "Delta": ids["Delta"]}
    run = runs(cli)[0]
    assert run["state"] == "complete" and {k: v for k, v in run["counts"].items() if v} == {"updated": 2, "unchanged": 2}
    shown = cli("imports", "show", run["run"])
    assert shown.exit_code == 0, shown
    # the temporary rename is an action on a record (issue 46), no row of the file
    assert f"\nupdate  Alpha  ({ids['Alpha']})\n  name: Alpha -> Alpha (renaming)\n" in shown.stdout
    assert "row 5" not in shown.stdout
    lines = [json.loads(line) for line in _journal(cli, run["run"]).read_text().splitlines()[1:]]
    assert [line["k"] for line in lines if "o" in line] == [["site", ids["Alpha"], "rename"]] * 2  # intent, outcome
    assert f"row 1  update  Alpha (renaming)  ({ids['Alpha']})\n  name: Alpha (renaming) -> Bravo\n" in shown.stdout

    undone = cli("imports", "undo", run["run"], "--yes")
    assert undone.exit_code == 0, undone
    assert undone.stderr.endswith(f"of run {run['run']}: restored 2 sites\n"), undone
    assert _held(cli, client) == ids  # in order, through the temporary name again


def _journal(cli: Any, run: str) -> Path:
    return Path(cli.tmp_path) / "state" / "wfctl" / "runs" / "default" / f"{run}.journal"


def test_a_journal_that_keyed_the_temporary_rename_by_a_made_up_row_still_resumes_and_undoes(
        logged_in: Any, tmp_path: Path) -> None:
    """Journals written before issue 46 keyed a cycle's temporary rename by a row after the file's rows
    (`"r": rows read + its first row`): such a run, stopped before its end, resumes and is undone."""
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path)
    rows = _export(cli, client)
    rows[1][1], rows[2][1] = "Bravo", "Alpha"
    path = _write(tmp_path / "swapped.csv", rows)
    assert cli("sites", "import", str(path), "--client", client, "--on-existing", "update").exit_code == 0
    run = runs(cli)[0]["run"]
    journal = _journal(cli, run)
    header, *lines = journal.read_text().splitlines()
    old = []
    for text in lines:
        line = json.loads(text)
        if "end" in line:
            continue  # stopped before its end
        if "o" in line:  # the old form: a row after the file's 4
            line = {"r": 5, **{k: v for k, v in line.items() if k != "k"}}
        old.append(json.dumps(line, separators=(",", ":")))
    journal.write_text("\n".join([header, *old]) + "\n")
    assert {r["run"]: r["state"] for r in runs(cli)}[run] == "interrupted"

    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert "resuming run" in r.stderr and "rename cycle" not in r.stderr, r
    assert {r["run"]: r["state"] for r in runs(cli)}[run] == "complete"
    undone = cli("imports", "undo", run, "--yes")
    assert undone.exit_code == 0, undone
    assert undone.stderr.endswith(f"of run {run}: restored 2 sites\n"), undone
    assert _held(cli, client) == ids  # through the temporary name again, by the old key's order


def test_the_name_column_sorted_alone_and_a_rotation_are_cycles_a_chain_is_sent_in_order(
        logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path, SITES + "Echo,5 High St\n")
    rows = _export(cli, client)
    names = [row[1] for row in rows[1:]]
    for row, name in zip(rows[1:], reversed(names), strict=True):  # sorted Z-A: the name column alone
        row[1] = name
    path = _write(tmp_path / "sorted.csv", rows)
    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[:2] == [
        "rename cycle: row 1 'Alpha' -> 'Echo', row 5 'Echo' -> 'Alpha' (through a temporary name: 1 more update)",
        "rename cycle: row 2 'Bravo' -> 'Delta', row 4 'Delta' -> 'Bravo' (through a temporary name: 1 more update)"]
    assert _held(cli, client) == dict(zip(reversed(names), [ids[n] for n in names], strict=True))
    undone = cli("imports", "undo", runs(cli)[0]["run"], "--yes")
    assert undone.exit_code == 0 and undone.stderr.endswith(": restored 4 sites\n"), undone
    assert _held(cli, client) == ids

    rows = _export(cli, client)  # a rotation of three: Alpha -> Bravo -> Charlie -> Alpha
    rows[1][1], rows[2][1], rows[3][1] = "Bravo", "Charlie", "Alpha"
    r = cli("sites", "import", str(_write(tmp_path / "rotated.csv", rows)), "--client", client,
            "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[0] == ("rename cycle: row 1 'Alpha' -> 'Bravo', row 2 'Bravo' -> 'Charlie', "
                                        "row 3 'Charlie' -> 'Alpha' (through a temporary name: 1 more update)")
    assert _held(cli, client) == {"Bravo": ids["Alpha"], "Charlie": ids["Bravo"], "Alpha": ids["Charlie"],
                                  "Delta": ids["Delta"], "Echo": ids["Echo"]}
    assert cli("imports", "undo", runs(cli)[0]["run"], "--yes").exit_code == 0
    assert _held(cli, client) == ids

    # a chain (Charlie -> Delta, Delta -> Echo, Echo -> Foxtrot): no cycle, sent from its free end, at once
    rows = _export(cli, client)
    rows[3][1], rows[4][1], rows[5][1] = "Delta", "Echo", "Foxtrot"
    r = cli("sites", "import", str(_write(tmp_path / "chain.csv", rows)), "--client", client,
            "--on-existing", "update", "--concurrency", "8")
    assert r.exit_code == 0 and "rename cycle" not in r.stderr, r
    assert _held(cli, client) == {"Alpha": ids["Alpha"], "Bravo": ids["Bravo"], "Delta": ids["Charlie"],
                                  "Echo": ids["Delta"], "Foxtrot": ids["Echo"]}
    # without --on-existing update a row matched by its id is skipped: nothing is renamed
    r = cli("sites", "import", str(path), "--client", client)
    assert r.exit_code == 0 and "rename cycle" not in r.stderr, r


def test_a_chain_of_renames_is_undone_in_one_go(logged_in: Any, tmp_path: Path) -> None:
    """The run sends a chain from its free end (Echo -> Foxtrot first); its undo must go the other way
    (Foxtrot -> Echo only once Echo is free): taken back all at once, every row but one met a 409."""
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path, SITES + "Echo,5 High St\n")
    rows = _export(cli, client)
    following = {"Alpha": "Bravo", "Bravo": "Charlie", "Charlie": "Delta", "Delta": "Echo", "Echo": "Foxtrot"}
    for row in rows[1:]:
        row[1] = following[row[1]]
    r = cli("sites", "import", str(_write(tmp_path / "chain.csv", rows)), "--client", client,
            "--on-existing", "update", "--concurrency", "16")
    assert r.exit_code == 0 and "rename cycle" not in r.stderr, r
    assert _held(cli, client) == {following[name]: record for name, record in ids.items()}
    undone = cli("imports", "undo", runs(cli)[0]["run"], "--yes", "--concurrency", "16")
    assert undone.exit_code == 0 and undone.stderr.endswith(": restored 5 sites\n"), undone
    assert _held(cli, client) == ids


def test_a_run_killed_after_the_temporary_rename_resumes_and_undo_puts_every_name_back(
        cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    server = sandbox_factory(latency_ms=150)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    count = 12
    client, ids = _client_with_sites(cli, tmp_path, "name\n" + "".join(f"Site {n:02}\n" for n in range(count)))
    rows = _export(cli, client)
    names = [row[1] for row in rows[1:]]
    for i, row in enumerate(rows[1:]):  # every name moved one down: one cycle of 12
        row[1] = names[(i + 1) % count]
    path = _write(tmp_path / "rotated.csv", rows)
    proc = subprocess.Popen([WFCTL, "sites", "import", str(path), "--client", client, "--on-existing", "update"],
                            env=cli.env, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs_dir = tmp_path / "state" / "wfctl" / "runs" / "default"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        lines = [json.loads(line) for p in runs_dir.glob("*.journal") for line in p.read_text().splitlines()[1:]
                 if line.endswith("}")]
        if any(line.get("o") and line.get("s") == "updated" for line in lines) and \
                sum(1 for line in lines if line.get("s") == "updated" and not line.get("o")) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    held = _held(cli, client)
    assert "Site 00 (renaming)" in held and len(held) == count  # stopped in the middle of the cycle

    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert "rename cycle" not in r.stderr and "resuming run" in r.stderr  # a chain now: sent from its free end
    assert _held(cli, client) == {names[(i + 1) % count]: ids[name] for i, name in enumerate(names)}
    assert not [name for name in _held(cli, client) if "renaming" in name]

    undone = cli("imports", "undo", runs(cli)[0]["run"], "--yes")
    assert undone.exit_code == 0, undone
    assert undone.stderr.endswith(f": restored {count} sites\n"), undone
    assert _held(cli, client) == ids


def test_clients_swapped_within_a_branch_and_a_cycle_with_prune(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    first, second = new_client(cli, "Cycle Client One"), new_client(cli, "Cycle Client Two")
    branch = json.loads(cli("clients", "get", first, "-o", "json").stdout)["branchId"]
    path = tmp_path / "clients.csv"
    path.write_text(f"id,name\n{first},Cycle Client Two\n{second},Cycle Client One\n", encoding="utf-8")
    r = cli("clients", "import", str(path), "--branch", branch, "--on-existing", "update", "--prune")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[-1] == (
        "error: --prune refuses a file that renames records in a cycle (2 rows rename clients in 1 cycle); "
        "nothing was sent (import the file without it first: the cycles are then done)")
    assert json.loads(cli("clients", "get", first, "-o", "json").stdout)["name"] == "Cycle Client One"
    saved = tmp_path / "plan.json"  # a saved plan runs its rows as they are: no cycle in it
    r = cli("clients", "import", str(path), "--branch", branch, "--on-existing", "update", "--dry-run",
            "--plan-out", str(saved))
    assert r.exit_code == 2 and not saved.exists(), r
    assert r.stderr.splitlines()[-1] == (
        "error: --plan-out cannot save a rename cycle (2 rows rename clients in 1 cycle); a run would send "
        "nothing (import the file without it first: the cycles are then done)")
    r = cli("clients", "import", str(path), "--branch", branch, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[0] == ("rename cycle: row 1 'Cycle Client One' -> 'Cycle Client Two', "
                                        "row 2 'Cycle Client Two' -> 'Cycle Client One' "
                                        "(through a temporary name: 1 more update)")
    assert json.loads(cli("clients", "get", first, "-o", "json").stdout)["name"] == "Cycle Client Two"
    assert json.loads(cli("clients", "get", second, "-o", "json").stdout)["name"] == "Cycle Client One"
