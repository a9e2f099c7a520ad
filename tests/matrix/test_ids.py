"""A row that carries an id is that record (issue 21 §1): matched by id, never by name, on every deployment.

An export edited in a spreadsheet and imported back renames by id, creates nothing, and undo takes the
rename back; an id that is not the parent's, or that two rows carry, is a row error before anything is sent.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.matrix.conftest import FOR_RECORDS, Deployment, Run, unique


def _export(run: Run, client_id: str) -> list[dict[str, str]]:
    r = run("sites", "export", "--client", client_id)
    assert r.exit_code == 0, r
    return list(csv.DictReader(io.StringIO(r.stdout)))


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_a_row_with_an_id_and_a_new_name_renames_that_record(deployment: Deployment, run: Run,
                                                             tmp_path: Path) -> None:
    client = deployment.client()
    first, second = deployment.site(client["id"]), deployment.site(client["id"])
    rows = _export(run, client["id"])
    renamed = unique("Card Depot North")
    for row in rows:
        if row["id"] == first["id"]:
            row["name"] = renamed
    path = _write(tmp_path / "sites.csv", rows)
    plan = run("sites", "import", str(path), "--on-existing", "update", "--dry-run")
    assert plan.exit_code == 0, plan
    assert f"name: {first['name']} -> {renamed}" in plan.stdout
    r = run("sites", "import", str(path), "--on-existing", "update")
    assert r.exit_code == 0, r
    held = deployment.all(f"/api/clients/{client['id']}/sites")
    assert sorted(site["id"] for site in held) == sorted([first["id"], second["id"]])  # nothing created
    after = deployment.get("sites", first["id"])
    assert after is not None and after["name"] == renamed
    before = {k: v for k, v in first.items() if k not in ("name", "createdOn", "modifiedOn", "updatedOn")}
    assert {k: after[k] for k in before} == before  # every other field as it was

    run_id = json.loads(run("imports", "list", "-o", "json").stdout)[0]["run"]
    undone = run("imports", "undo", run_id, "--yes")
    assert undone.exit_code == 0, undone
    back = deployment.get("sites", first["id"])
    assert back is not None and back["name"] == first["name"]


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_with_skip_a_row_matched_by_id_leaves_the_record(deployment: Deployment, run: Run, tmp_path: Path) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])
    rows = _export(run, client["id"])
    rows[0]["name"] = unique("Other")
    r = run("sites", "import", str(_write(tmp_path / "s.csv", rows)))
    assert r.exit_code == 0, r
    held = deployment.all(f"/api/clients/{client['id']}/sites")
    assert [s["id"] for s in held] == [site["id"]] and held[0]["name"] == site["name"]


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_an_id_that_is_not_the_parents_or_is_given_twice_is_a_row_error(deployment: Deployment, run: Run,
                                                                        tmp_path: Path) -> None:
    client, other = deployment.client(), deployment.client()
    site, foreign = deployment.site(client["id"]), deployment.site(other["id"])
    text = (f"id,name\n{site['id']},{site['name']}\nno-such-id,Ghost\n{foreign['id']},Foreign\n"
            f"{site['id']},Again\n")
    path = tmp_path / "ids.csv"
    path.write_text(text, encoding="utf-8")
    r = run("sites", "import", str(path), "--client", client["id"], "--on-existing", "update")
    assert r.exit_code == 2, r
    assert f"row 2 (line 3), column id: no site with id 'no-such-id' of client {client['id']}" in r.stderr
    assert f"row 3 (line 4), column id: no site with id '{foreign['id']}' of client {client['id']}" in r.stderr
    assert f"row 4 (line 5), column id: id '{site['id']}' is already row 1" in r.stderr
    assert [s["id"] for s in deployment.all(f"/api/clients/{client['id']}/sites")] == [site["id"]]
    assert deployment.get("sites", foreign["id"]) is not None
