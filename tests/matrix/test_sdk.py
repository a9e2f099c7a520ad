"""The SDK (`from wfctl.api import Client`) on every deployment: the same promises as the CLI verbs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.matrix.conftest import FOR_CREATES, FOR_LISTS, FOR_RECORDS, Deployment, unique, without_stamps

KINDS = ["branches", "clients", "sites"]
SINGULAR = {"branches": "branch", "clients": "client", "sites": "site"}


def _method(sdk: Any, verb: str, kind: str) -> Any:
    return getattr(sdk, f"{verb}_{SINGULAR[kind]}")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_CREATES, indirect=True)
def test_create_returns_the_record_held_once(deployment: Deployment, sdk: Any, kind: str) -> None:
    name = unique(SINGULAR[kind].title())
    if kind == "branches":
        created = sdk.create_branch({"name": name, "phone": "0161"})
        path = "/api/branches"
    elif kind == "clients":
        created = sdk.create_client({"name": name, "branchId": deployment.branch()["id"], "phone": "0161"})
        path = "/api/clients"
    else:
        client = deployment.client()
        created = sdk.create_site(client["id"], {"name": name, "phone": "0161", "bannedWorkers": ["W-1"]})
        path = f"/api/clients/{client['id']}/sites"
    held = deployment.named(path, name)
    assert [row["id"] for row in held] == [created["id"]]
    assert without_stamps(created) == deployment.get(kind, created["id"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_update_changes_only_the_field_it_names(deployment: Deployment, sdk: Any, kind: str) -> None:
    record = deployment.make(kind)
    before = deployment.get(kind, record["id"])
    assert before is not None
    _method(sdk, "update", kind)(record["id"], {"phone": "+44 20 7946 0999"})
    assert deployment.get(kind, record["id"]) == {**before, "phone": "+44 20 7946 0999"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_a_record_from_get_goes_back_through_update_unchanged(deployment: Deployment, sdk: Any, kind: str) -> None:
    record = deployment.make(kind)
    before = deployment.get(kind, record["id"])
    got = _method(sdk, "get", kind)(record["id"])
    assert without_stamps(got) == before
    _method(sdk, "update", kind)(record["id"], got)
    assert deployment.get(kind, record["id"]) == before


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_delete_removes_it(deployment: Deployment, sdk: Any, kind: str) -> None:
    record = deployment.make(kind)
    assert _method(sdk, "delete", kind)(record["id"])["status"] == "success"
    assert deployment.get(kind, record["id"]) is None


@pytest.mark.parametrize("deployment", FOR_LISTS, indirect=True)
def test_list_and_iter_follow_every_page(deployment: Deployment, sdk: Any) -> None:
    client = deployment.client()
    for _ in range(5):
        deployment.site(client["id"])
    held = [row["id"] for row in deployment.all(f"/api/clients/{client['id']}/sites")]
    assert [row["id"] for row in sdk.iter_sites(client["id"], page_size=2)] == held
    pages = list(sdk.list_sites(client["id"], page_size=2, all_pages=True))
    assert [row["id"] for page in pages for row in page.data] == held
    assert [page.page_number for page in pages] == [1, 2, 3]
    assert [row["id"] for row in sdk.iter_branches(page_size=3)] == [row["id"] for row in deployment.all("/api/branches")]


@pytest.mark.parametrize("deployment", FOR_LISTS, indirect=True)
def test_clients_of_a_branch_are_only_that_branch(deployment: Deployment, sdk: Any) -> None:
    mine, other = deployment.branch(), deployment.branch()
    for _ in range(3):
        deployment.client(mine["id"])
    deployment.client(other["id"])
    ours = [row["id"] for row in deployment.all("/api/clients", branchId=mine["id"])]
    assert [row["id"] for row in sdk.iter_clients(branch_id=mine["id"], page_size=2)] == ours
    (second,) = sdk.list_clients(branch_id=mine["id"], page=2, page_size=1)
    assert [row["id"] for row in second.data] == ours[1:2]
    assert (second.page_number, second.total_record_count, second.page_count) == (2, 3, 3)
