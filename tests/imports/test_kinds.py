"""Undo of `branches import` and `clients import` runs; a delete the service refuses (409) is reported."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from tests.imports.helpers import get, import_file, runs


def test_undo_a_branches_import(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    tag = uuid.uuid4().hex[:8]
    run = import_file(cli, "branches", tmp_path / "b.csv",
                      f"name,address,email\nBranch {tag} A,1 Road,a@x.test\nBranch {tag} B,2 Road,\n")
    document = json.loads(cli("imports", "show", run, "-o", "json").stdout)
    ids = [row["id"] for row in document["rows"]]
    assert [row["action"] for row in document["rows"]] == ["create", "create"] and all(ids)
    assert document["summary"]["kind"] == "branch"
    updated = import_file(cli, "branches", tmp_path / "b2.csv", f"name,phone\nBranch {tag} A,0113 000\n",
                          "--on-existing", "update")
    r = cli("imports", "undo", updated, "--yes")
    assert (r.exit_code, r.stderr.split(": ", 1)[1]) == (0, "restored 1 branch\n"), r
    assert get(cli, "branches", ids[0])["phone"] == ""  # type: ignore[index]
    r = cli("imports", "undo", run, "--yes")
    assert (r.exit_code, r.stderr.split(": ", 1)[1]) == (0, "deleted 2 branches\n"), r
    assert [get(cli, "branches", i) for i in ids] == [None, None]


def test_undo_a_clients_import_that_meets_409_then_finishes(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    branch = json.loads(cli("branches", "list", "-o", "json").stdout)[0]["id"]
    tag = uuid.uuid4().hex[:8]
    run = import_file(cli, "clients", tmp_path / "c.csv",
                      f"name,email\nClient {tag} A,a@x.test\nClient {tag} B,\n", "--branch", branch)
    rows = json.loads(cli("imports", "show", run, "-o", "json").stdout)["rows"]
    a, b = rows[0]["id"], rows[1]["id"]
    r = cli("sites", "create", "--client", a, "--name", "Yard", "-o", "json")  # client A now has a site
    assert r.exit_code == 0, r
    site = json.loads(r.stdout)["id"]

    r = cli("imports", "undo", run, "--yes")
    assert r.exit_code == 10, r
    undo_run = runs(cli)[0]["run"]
    assert r.stderr == (f"row 1  failed  Client {tag} A  ({a})  error: Conflict: client {a} still has 1 site(s); "
                        "delete them first (HTTP 409)\n"
                        f"undo run {undo_run} of run {run}: deleted 1 client, 1 failed\n")
    assert get(cli, "clients", a) is not None and get(cli, "clients", b) is None
    assert {x["run"]: x["state"] for x in runs(cli)}[run] == "partly undone"

    assert cli("sites", "delete", site, "--yes").exit_code == 0
    r = cli("imports", "undo", run, "--yes", "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)["summary"]
    assert (summary["deleted"], summary["failed"], summary["undo"]) == (1, 0, run)
    assert get(cli, "clients", a) is None
    assert {x["run"]: x["state"] for x in runs(cli)}[run] == "undone"
