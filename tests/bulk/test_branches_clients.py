"""`branches import|export` and `clients import|export` work like the sites ones."""

from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path
from typing import Any

from tests.bulk.helpers import write


def test_branches_import_export(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    tag = uuid.uuid4().hex[:8]
    path = write(tmp_path / "b.csv", f"name;address;phone;email\nBulk {tag} A;1 Road;'+44 1;a@example.com\n"
                 f"Bulk {tag} B;;;\n")
    r = cli("branches", "import", str(path), "--report", str(tmp_path / "r.csv"))
    assert r.exit_code == 0, r
    r = cli("branches", "import", str(path), "-o", "json")
    assert json.loads(r.stdout)["created"] == 0, r
    exported = cli("branches", "export").stdout
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(exported, newline=""))}
    made = rows[f"Bulk {tag} A"].pop("id")
    assert rows[f"Bulk {tag} A"] == {"name": f"Bulk {tag} A", "address": "1 Road", "phone": "'+44 1",
                                     "email": "a@example.com"}
    assert json.loads(cli("branches", "get", made, "-o", "json").stdout)["name"] == f"Bulk {tag} A"


def test_clients_import_by_branch_name_and_export(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    branches = json.loads(cli("branches", "list", "-o", "json").stdout)
    branch = branches[0]
    tag = uuid.uuid4().hex[:8]
    path = write(tmp_path / "c.csv", f"branch,name,email,phone,billingAddress\n{branch['name']},Client {tag},"
                 f"x@example.com,,\"1 Way\nLeeds\"\n")
    r = cli("clients", "import", str(path))
    assert r.exit_code == 0, r
    exported = cli("clients", "export", "--branch", branch["id"]).stdout
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(exported, newline=""))}
    assert rows[f"Client {tag}"]["billingAddress"] == "1 Way\nLeeds"
    assert rows[f"Client {tag}"]["branchId"] == branch["id"]
    r = cli("clients", "import", "-", input=exported, env={})
    assert r.exit_code == 0, r
    assert "created" not in r.stderr.split(":", 1)[1], r


def test_example_file_imports_into_the_seeded_clients(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    example = Path(__file__).resolve().parents[2] / "examples" / "sites.csv"
    r = cli("sites", "import", str(example), "--dry-run")
    assert r.exit_code == 0, r
    assert "\nto create        20\n" in r.stdout and r.stdout.count("  create  ") == 20, r
    r = cli("sites", "import", str(example))
    assert r.exit_code == 0, r
