"""Edits a person makes to an exported file (issue 33 §3): a copied row (id and all) is told that clearing
its id makes a new record; a row of another client's site is told what --ignore-ids does (a copy) and
how a move is done (the copy, then the original deleted); a deleted row deletes nothing, and the plan
counts the records the file lacks and says that --prune deletes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client
from tests.imports.helpers import import_file, sites_of

SITES = "name,address\nAlpha,1 High St\nBravo,2 High St\nCharlie,3 High St\n"


def _client(cli: Any, tmp_path: Path) -> tuple[str, dict[str, str]]:
    client = new_client(cli)
    import_file(cli, "sites", tmp_path / "first.csv", SITES, "--client", client)
    return client, {name: site["id"] for name, site in sites_of(cli, client).items()}


def test_a_copied_row_is_told_to_clear_its_id_and_then_is_a_new_site(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client(cli, tmp_path)
    path = tmp_path / "copied.csv"
    path.write_text(f"id,name,address\n{ids['Alpha']},Alpha,1 High St\n{ids['Alpha']},Alpha Annexe,1a High St\n",
                    encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == (
        f"invalid: row 2 (line 3), column id: id '{ids['Alpha']}' is already row 1 (a copied row? clear the id "
        "cell of this one to create it as a new site)")
    path.write_text(f"id,name,address\n{ids['Alpha']},Alpha,1 High St\n,Alpha Annexe,1a High St\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", client, "--on-existing", "update")
    assert r.exit_code == 0, r
    held = sites_of(cli, client)
    assert held["Alpha"]["id"] == ids["Alpha"] and held["Alpha Annexe"]["address"] == "1a High St"


def test_a_row_of_another_clients_site_says_what_a_copy_and_a_move_are(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    source, ids = _client(cli, tmp_path)
    target = new_client(cli)
    named = json.loads(cli("clients", "get", target, "-o", "json").stdout)["name"]
    path = tmp_path / "move.csv"
    path.write_text(f"id,clientId,name,address\n{ids['Bravo']},{source},Bravo,2 High St\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", target)
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0].endswith(
        f"(--ignore-ids copies the row to {named!r} as a new site; the original stays: to move it, delete it "
        "after the copy (--prune, or `wfctl sites delete <id>`))")
    # the client column gone, the id names another client's site: the same choice, with its id
    path.write_text(f"id,name,address\n{ids['Bravo']},Bravo,2 High St\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", target)
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == (
        f"invalid: row 1 (line 2), column id: no site with id '{ids['Bravo']}' of client {target} (clear the id "
        "cell, or give --ignore-ids, to create the row as a new site; the original stays: to move it, delete "
        f"it after the copy (--prune, or `wfctl sites delete {ids['Bravo']}`))")
    # the move, as the message says: the copy, then the original deleted
    assert cli("sites", "import", str(path), "--client", target, "--ignore-ids").exit_code == 0
    assert cli("sites", "delete", ids["Bravo"], "--yes").exit_code == 0
    assert sorted(sites_of(cli, target)) == ["Bravo"] and sorted(sites_of(cli, source)) == ["Alpha", "Charlie"]


def test_a_deleted_row_deletes_nothing_and_the_plan_counts_what_the_file_lacks(
        logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client(cli, tmp_path)
    path = tmp_path / "fewer.csv"
    path.write_text(f"id,name,address\n{ids['Alpha']},Alpha,1 High St\n", encoding="utf-8")  # two rows deleted
    args = ("sites", "import", str(path), "--client", client, "--on-existing", "update")
    plan = cli(*args, "--dry-run")
    assert plan.exit_code == 0, plan
    assert plan.stdout == ("to create        0\nto update        0\nunchanged        1\nskipped (exist)  0\n"
                           "invalid          0\n")
    assert plan.stderr == ("2 sites of the file's clients have no row in it: kept, as a row deleted from the file "
                           "deletes nothing (--prune deletes them)\n")
    document = json.loads(cli(*args, "--dry-run", "-o", "json").stdout)
    assert document["summary"]["notInFile"] == 2
    r = cli(*args, "-o", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["notInFile"] == 2, r
    assert sorted(sites_of(cli, client)) == ["Alpha", "Bravo", "Charlie"]  # nothing deleted
    pruned = cli(*args, "--prune", "--allow-deletes", "2", "--dry-run")
    assert pruned.exit_code == 0 and "have no row in it" not in pruned.stderr, pruned  # its deletes are listed
    assert "Bravo" in pruned.stdout and "Charlie" in pruned.stdout
