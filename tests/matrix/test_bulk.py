"""Import and export on every deployment: `list -o csv` and `export` fed back to `import --on-existing update`
change nothing the server holds (rates, departments, bannedWorkers, billingAddress kept), and a file with
only some columns changes only those."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.matrix.conftest import (
    FOR_CREATES,
    FOR_RECORDS,
    FOR_ROUND_TRIPS,
    Deployment,
    Run,
    unique,
    without_stamps,
)

KINDS = ["branches", "clients", "sites"]


def _family(deployment: Deployment, kind: str) -> tuple[list[str], list[str], list[str]]:
    """Two records of `kind` under a parent of their own: (their ids, the list args, the export args)."""
    if kind == "branches":
        ids = [deployment.branch()["id"] for _ in range(2)]
        return ids, [], []
    if kind == "clients":
        branch = deployment.branch()
        ids = [deployment.client(branch["id"])["id"] for _ in range(2)]
        return ids, ["--branch", branch["id"]], ["--branch", branch["id"]]
    client = deployment.client()
    ids = [deployment.site(client["id"])["id"] for _ in range(2)]
    return ids, ["--client", client["id"]], ["--client", client["id"]]


def _held(deployment: Deployment, kind: str, ids: list[str]) -> list[dict[str, Any] | None]:
    return [deployment.get(kind, record_id) for record_id in ids]


def _all_branches(deployment: Deployment) -> list[dict[str, Any] | None]:
    # branches list -o csv holds the agency's first page of branches, not only this test's; a branch list
    # item is the whole record.
    return [without_stamps(row) for row in deployment.all("/api/branches")]


def _imported_again(deployment: Deployment, run: Run, kind: str, ids: Any, tmp_path: Path,
                    *command: str) -> tuple[Any, Any, Any]:
    """What the server held before, what `wfctl <kind> <command...>` wrote, and what the server holds after
    that output was imported again with --on-existing update."""
    before = _all_branches(deployment) if kind == "branches" else _held(deployment, kind, ids)
    written = run(kind, *command)
    assert written.exit_code == 0, written
    path = tmp_path / f"{kind}.csv"
    path.write_text(written.stdout, encoding="utf-8")
    imported = run(kind, "import", str(path), "--on-existing", "update")
    assert imported.exit_code == 0, imported
    return before, written, _all_branches(deployment) if kind == "branches" else _held(deployment, kind, ids)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_ROUND_TRIPS, indirect=True)
def test_list_csv_into_import_update_changes_nothing(deployment: Deployment, run: Run, kind: str,
                                                     tmp_path: Path) -> None:
    ids, list_args, _ = _family(deployment, kind)
    before, listed, after = _imported_again(deployment, run, kind, ids, tmp_path, "list", *list_args, "-o", "csv")
    assert after == before, f"csv header: {listed.stdout.splitlines()[0]!r}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_ROUND_TRIPS, indirect=True)
def test_export_into_import_update_changes_nothing(deployment: Deployment, run: Run, kind: str,
                                                   tmp_path: Path) -> None:
    ids, _, export_args = _family(deployment, kind)
    before, exported, after = _imported_again(deployment, run, kind, ids, tmp_path, "export", *export_args)
    assert after == before
    again = run(kind, "export", *export_args)
    assert again.stdout == exported.stdout


PARTIAL = {"branches": ("name,phone", lambda r: f"{r['name']},+44 20 7946 0123"),
           "clients": ("name,branchId,phone", lambda r: f"{r['name']},{r['branchId']},+44 20 7946 0123"),
           "sites": ("clientId,name,phone", lambda r: f"{r['clientId']},{r['name']},+44 20 7946 0123")}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_import_of_some_columns_changes_only_those(deployment: Deployment, run: Run, kind: str,
                                                   tmp_path: Path) -> None:
    ids, _, _ = _family(deployment, kind)
    before = _held(deployment, kind, ids)
    header, row = PARTIAL[kind]
    path = tmp_path / f"{kind}.csv"
    path.write_text("\n".join([header, *(row(record) for record in before if record)]) + "\n", encoding="utf-8")
    imported = run(kind, "import", str(path), "--on-existing", "update")
    assert imported.exit_code == 0, imported
    assert _held(deployment, kind, ids) == [{**r, "phone": "+44 20 7946 0123"} for r in before if r]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_CREATES, indirect=True)
def test_import_creates_each_row_once(deployment: Deployment, run: Run, kind: str, tmp_path: Path) -> None:
    names = [unique(kind.title()) for _ in range(2)]
    if kind == "branches":
        header, rows, path = "name,phone", [f"{n},0161" for n in names], "/api/branches"
    elif kind == "clients":
        branch = deployment.branch()["id"]
        header, rows, path = "name,branchId,phone", [f"{n},{branch},0161" for n in names], "/api/clients"
    else:
        client = deployment.client()["id"]
        header, rows = "clientId,name,rates", [f"{client},{n},Forklift=13.25" for n in names]
        path = f"/api/clients/{client}/sites"
    file = tmp_path / f"{kind}.csv"
    file.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    imported = run(kind, "import", str(file))
    held = {name: len(deployment.named(path, name)) for name in names}
    assert held == dict.fromkeys(names, 1), imported
    assert imported.exit_code == 0, imported
    # what it made is the run's (issue 30 §1): counted created, and undo takes back exactly that
    assert imported.stderr.splitlines()[-1].endswith(": created 2"), imported
    undone = run("imports", "undo", json.loads(run("imports", "list", "-o", "json").stdout)[0]["run"], "--yes")
    assert undone.exit_code == 0, undone
    assert {name: len(deployment.named(path, name)) for name in names} == dict.fromkeys(names, 0), undone
