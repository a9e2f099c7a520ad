"""Rename cycles (issue 33 §3): rows that carry ids and swap their records' names (or a sheet whose name
column alone was sorted) can be sent in no order, as names are unique per parent. The plan says each cycle
and the import refuses it before anything is sent (exit 2), naming a way through; never a run whose rows
all fail with 409 and ask to be retried."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client
from tests.imports.helpers import import_file, runs, sites_of

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


def _client_with_sites(cli: Any, tmp_path: Path) -> tuple[str, dict[str, str]]:
    client = new_client(cli)
    import_file(cli, "sites", tmp_path / "first.csv", SITES, "--client", client)
    return client, {name: site["id"] for name, site in sites_of(cli, client).items()}


def test_a_swap_of_two_names_is_refused_before_sending_naming_the_cycle(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path)
    rows = _export(cli, client)
    assert rows[0] == ["id", "name", "address"] and [row[1] for row in rows[1:]] == ["Alpha", "Bravo", "Charlie", "Delta"]
    rows[1][1], rows[2][1] = "Bravo", "Alpha"  # swapped by hand
    path = _write(tmp_path / "swapped.csv", rows)
    made = len(runs(cli))

    plan = cli("sites", "import", str(path), "--client", client, "--on-existing", "update", "--dry-run")
    assert plan.exit_code == 2, plan
    named = json.loads(cli("clients", "get", client, "-o", "json").stdout)["name"]
    assert plan.stdout == (f"row 1  update  Alpha  ({ids['Alpha']})\n  in client {named}\n  name: Alpha -> Bravo\n"
                           f"row 2  update  Bravo  ({ids['Bravo']})\n  in client {named}\n  name: Bravo -> Alpha\n"
                           "to create        0\nto update        2\nunchanged        2\nskipped (exist)  0\n"
                           "invalid          0\n")
    assert plan.stderr == (
        "rename cycle: row 1 'Alpha' -> 'Bravo', row 2 'Bravo' -> 'Alpha'\n"
        "error: 2 rows rename sites in a cycle (1 cycle): names are unique per client, so each new name is "
        "still another's; a run would send nothing (import a copy of the file first in which one row of each "
        "cycle, e.g. row 1, has a name no site holds, then this file)\n")
    document = cli("sites", "import", str(path), "--client", client, "--on-existing", "update", "--dry-run",
                   "-o", "json")
    assert document.exit_code == 2, document
    assert json.loads(document.stdout)["summary"]["renameCycles"] == [[
        {"row": 1, "id": ids["Alpha"], "from": "Alpha", "to": "Bravo"},
        {"row": 2, "id": ids["Bravo"], "from": "Bravo", "to": "Alpha"}]]

    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == "rename cycle: row 1 'Alpha' -> 'Bravo', row 2 'Bravo' -> 'Alpha'"
    assert "nothing was sent" in r.stderr and "run the same command again" not in r.stderr
    assert {name: site["id"] for name, site in sites_of(cli, client).items()} == ids  # nothing renamed
    assert len(runs(cli)) == made  # no run to resume or undo

    # the way the message names: one row of the cycle to a free name first, then the file
    first = [row[:] for row in rows]
    first[1][1] = "Alpha (renaming)"
    step = cli("sites", "import", str(_write(tmp_path / "step.csv", first)), "--client", client,
               "--on-existing", "update")
    assert step.exit_code in (0, 10), step  # Alpha's old name is free once its rename is done
    for _ in range(2):  # a chain, no cycle: a row sent before the name it takes was free is retried
        r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
        if r.exit_code == 0:
            break
        assert r.exit_code == 10 and "run the same command again to retry them" in r.stderr, r
    assert r.exit_code == 0, r
    held = {name: site["id"] for name, site in sites_of(cli, client).items()}
    assert held == {"Alpha": ids["Bravo"], "Bravo": ids["Alpha"], "Charlie": ids["Charlie"], "Delta": ids["Delta"]}


def test_the_name_column_sorted_alone_is_every_cycle_and_a_chain_is_none(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client_with_sites(cli, tmp_path)
    rows = _export(cli, client)
    names = [row[1] for row in rows[1:]]
    for row, name in zip(rows[1:], reversed(names), strict=True):  # sorted Z-A: the name column alone
        row[1] = name
    path = _write(tmp_path / "sorted.csv", rows)
    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[:2] == ["rename cycle: row 1 'Alpha' -> 'Delta', row 4 'Delta' -> 'Alpha'",
                                         "rename cycle: row 2 'Bravo' -> 'Charlie', row 3 'Charlie' -> 'Bravo'"]
    assert r.stderr.splitlines()[2].startswith("error: 4 rows rename sites in a cycle (2 cycles)")
    assert {name: site["id"] for name, site in sites_of(cli, client).items()} == ids

    # a chain (Charlie -> Delta, Delta -> Echo): no cycle, planned and done
    rows = _export(cli, client)
    rows[3][1], rows[4][1] = "Delta", "Echo"
    r = cli("sites", "import", str(_write(tmp_path / "chain.csv", rows)), "--client", client,
            "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0 and "rename cycle" not in r.stderr, r
    # without --on-existing update a row matched by its id is skipped: nothing is renamed, nothing refused
    r = cli("sites", "import", str(path), "--client", client)
    assert r.exit_code == 0 and "rename cycle" not in r.stderr, r


def test_clients_swapped_within_a_branch_are_refused_too(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    first, second = new_client(cli, "Cycle Client One"), new_client(cli, "Cycle Client Two")
    branch = json.loads(cli("clients", "get", first, "-o", "json").stdout)["branchId"]
    path = tmp_path / "clients.csv"
    path.write_text(f"id,name\n{first},Cycle Client Two\n{second},Cycle Client One\n", encoding="utf-8")
    r = cli("clients", "import", str(path), "--branch", branch, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == ("rename cycle: row 1 'Cycle Client One' -> 'Cycle Client Two', "
                                        "row 2 'Cycle Client Two' -> 'Cycle Client One'")
    assert "names are unique per branch" in r.stderr
    assert json.loads(cli("clients", "get", first, "-o", "json").stdout)["name"] == "Cycle Client One"
