"""Each CLI verb (list, get, create, update, delete) of branches, clients and sites on every deployment.

What is asserted is what the server holds afterwards, read back through a default sandbox on the same
database: an update changes only what it names, a create is held exactly once and reported as done,
a list shows every record (each nextPage form followed), `--branch` is always true.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.matrix.conftest import FOR_CREATES, FOR_LISTS, FOR_RECORDS, Deployment, Run, unique, without_stamps

KINDS = ["branches", "clients", "sites"]


def _create_args(deployment: Deployment, kind: str, name: str) -> tuple[list[str], dict[str, Any]]:
    """The `create` command line for a record of `kind`, and what the server should then hold."""
    if kind == "branches":
        return (["--name", name, "--address", "1 Dock Rd", "--phone", "+44 113 496 0001", "--email", "b@example.com"],
                {"name": name, "address": "1 Dock Rd", "phone": "+44 113 496 0001", "email": "b@example.com"})
    if kind == "clients":
        branch = deployment.branch()
        return (["--name", name, "--branch", branch["id"], "--phone", "0161", "--email", "c@example.com",
                 "--billing-address", "2 Ledger St"],
                {"name": name, "branchId": branch["id"], "phone": "0161", "email": "c@example.com",
                 "billingAddress": "2 Ledger St"})
    client = deployment.client()
    return (["--client", client["id"], "--name", name, "--phone", "01482", "--assessment-required",
             "--rate", "Forklift=13.25", "--department", "Goods In:Ann Lee:ann@example.com", "--banned-worker", "W-1"],
            {"name": name, "clientId": client["id"], "phone": "01482", "assessmentRequired": True,
             "rates": [{"skill": "Forklift", "hourlyRate": 13.25}],
             "departments": [{"name": "Goods In", "contactPerson": "Ann Lee", "email": "ann@example.com"}],
             "bannedWorkers": ["W-1"]})


def _list_path(kind: str, record: dict[str, Any]) -> str:
    return f"/api/clients/{record['clientId']}/sites" if kind == "sites" else f"/api/{kind}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_CREATES, indirect=True)
def test_create_is_held_once_and_reported_created(deployment: Deployment, run: Run, kind: str) -> None:
    name = unique(kind.title())
    args, expected = _create_args(deployment, kind, name)
    result = run(kind, "create", *args, "-o", "json")
    parent = {"clientId": expected["clientId"]} if kind == "sites" else {}
    held = deployment.named(_list_path(kind, parent), name)
    assert len(held) == 1, f"{len(held)} {kind} named {name!r} held; wfctl said {result!r}"
    assert result.exit_code == 0, result
    printed = json.loads(result.stdout)
    assert printed["id"] == held[0]["id"]
    full = deployment.get(kind, held[0]["id"])
    assert full is not None
    assert {k: full[k] for k in expected} == expected


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_update_changes_only_the_field_it_names(deployment: Deployment, run: Run, kind: str) -> None:
    record = deployment.make(kind)
    before = deployment.get(kind, record["id"])
    assert before is not None
    result = run(kind, "update", record["id"], "--phone", "+44 20 7946 0999", "-o", "json")
    assert result.exit_code == 0, result
    assert deployment.get(kind, record["id"]) == {**before, "phone": "+44 20 7946 0999"}


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_site_list_edits_keep_the_rest_of_the_list(deployment: Deployment, run: Run) -> None:
    site = deployment.site()
    before = deployment.get("sites", site["id"])
    assert before is not None
    result = run("sites", "update", site["id"], "--add-banned-worker", "W-3", "--set-rate", "Picker=12.00", "-o",
                 "json")
    assert result.exit_code == 0, result
    assert deployment.get("sites", site["id"]) == {
        **before, "bannedWorkers": ["W-1", "W-2", "W-3"],
        "rates": [{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 12}]}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_get_shows_what_is_held(deployment: Deployment, run: Run, kind: str) -> None:
    record = deployment.make(kind)
    result = run(kind, "get", record["id"], "-o", "json")
    assert result.exit_code == 0, result
    assert without_stamps(json.loads(result.stdout)) == deployment.get(kind, record["id"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_delete_removes_it(deployment: Deployment, run: Run, kind: str) -> None:
    record = deployment.make(kind)
    result = run(kind, "delete", record["id"], "--yes", "-o", "json")
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["status"] == "success"
    assert deployment.get(kind, record["id"]) is None


@pytest.mark.parametrize("deployment", FOR_LISTS, indirect=True)
def test_list_all_follows_every_page(deployment: Deployment, run: Run) -> None:
    client = deployment.client()
    for _ in range(5):
        deployment.site(client["id"])
    held = [row["id"] for row in deployment.all(f"/api/clients/{client['id']}/sites")]
    result = run("sites", "list", "--client", client["id"], "--all", "--page-size", "2", "-o", "json")
    assert result.exit_code == 0, result
    assert [row["id"] for row in json.loads(result.stdout)] == held
    branches = run("branches", "list", "--all", "--page-size", "3", "-o", "jsonl")
    assert branches.exit_code == 0, branches
    assert [json.loads(line)["id"] for line in branches.stdout.splitlines()] == [
        row["id"] for row in deployment.all("/api/branches")]


@pytest.mark.parametrize("deployment", FOR_LISTS, indirect=True)
def test_clients_list_branch_is_always_true(deployment: Deployment, run: Run) -> None:
    mine, other = deployment.branch(), deployment.branch()
    for _ in range(3):
        deployment.client(mine["id"])
    deployment.client(other["id"])
    ours = [row["id"] for row in deployment.all("/api/clients", branchId=mine["id"])]  # the service's order
    every = run("clients", "list", "--branch", mine["id"], "--all", "--page-size", "2", "-o", "json")
    assert every.exit_code == 0, every
    assert [row["id"] for row in json.loads(every.stdout)] == ours
    second = run("clients", "list", "--branch", mine["id"], "--page", "2", "--page-size", "1", "-o", "json")
    assert second.exit_code == 0, second
    assert [row["id"] for row in json.loads(second.stdout)] == ours[1:2]
    limited = run("clients", "list", "--branch", mine["id"], "--limit", "2", "-o", "json")
    assert limited.exit_code == 0, limited
    assert [row["id"] for row in json.loads(limited.stdout)] == ours[:2]
