"""Role matrix (G5): admin, manager and staff on every write, and what staff may read.

admin: everything, including the agency update. manager: agency-wide CRUD on branches, clients and
sites, no agency update. staff: bound to one branch; reads branches; reads and writes only that
branch's clients and their sites; other branches' clients and sites are invisible (404).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.sandbox.helpers import all_pages, assert_problem, create_branch, create_client, create_site, unique

ROLES = ["admin", "manager", "staff"]


@pytest.fixture
def as_role(request: pytest.FixtureRequest, backend: str) -> httpx.Client:
    # `backend` named here: the role's client is then looked up on the backend this test runs on.
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("as_role", "allowed"), [("admin", True), ("manager", False), ("staff", False)],
                         indirect=["as_role"])
def test_agency_update(as_role: httpx.Client, allowed: bool) -> None:
    current = as_role.get("/api/agency/").json()
    response = as_role.put("/api/agency/", json={"phone": current["phone"]})  # a no-op change
    if allowed:
        assert response.status_code == 200 and response.json() == current
    else:
        assert_problem(response, 403)


@pytest.mark.parametrize(("as_role", "allowed"), [("admin", True), ("manager", True), ("staff", False)],
                         indirect=["as_role"])
def test_branch_writes(as_role: httpx.Client, allowed: bool, admin: httpx.Client) -> None:
    target = create_branch(admin)
    create = as_role.post("/api/branches", json={"name": unique("Branch")})
    update = as_role.put(f"/api/branches/{target['id']}", json={"phone": "+44 9"})
    delete = as_role.delete(f"/api/branches/{target['id']}")
    if allowed:
        assert (create.status_code, update.status_code, delete.status_code) == (201, 200, 200)
    else:
        for response in (create, update, delete):
            assert_problem(response, 403)
        assert admin.get(f"/api/branches/{target['id']}").json() == target


@pytest.mark.parametrize("as_role", ROLES, indirect=True)
def test_client_and_site_writes_in_the_staff_branch(as_role: httpx.Client, staff_branch_id: str) -> None:
    client = create_client(as_role, staff_branch_id)
    assert as_role.put(f"/api/clients/{client['id']}", json={"phone": "+44 7"}).status_code == 200
    site = create_site(as_role, client["id"], rates=[{"skill": "Cook", "hourlyRate": 12}])
    assert as_role.put(f"/api/sites/{site['id']}", json={"assessmentRequired": True}).status_code == 200
    assert as_role.delete(f"/api/sites/{site['id']}").status_code == 200
    assert as_role.delete(f"/api/clients/{client['id']}").status_code == 200


@pytest.mark.parametrize(("as_role", "allowed"), [("admin", True), ("manager", True), ("staff", False)],
                         indirect=["as_role"])
def test_client_and_site_writes_in_another_branch(as_role: httpx.Client, allowed: bool, admin: httpx.Client,
                                                  other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    site = create_site(admin, client["id"])
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", f"/api/clients/{client['id']}/sites", {"name": unique("Site")}),
        ("PUT", f"/api/sites/{site['id']}", {"phone": "1"}),
        ("DELETE", f"/api/sites/{site['id']}", None),
        ("PUT", f"/api/clients/{client['id']}", {"phone": "1"}),
    ]
    new_client = as_role.post("/api/clients", json={"name": unique("Client"), "branchId": other_branch_id})
    if allowed:
        assert new_client.status_code == 201
        for method, path, body in calls:
            assert as_role.request(method, path, json=body).status_code in (200, 201)
        created_site = all_pages(admin, f"/api/clients/{client['id']}/sites")[0]
        assert as_role.delete(f"/api/sites/{created_site['id']}").status_code == 200
        assert as_role.delete(f"/api/clients/{client['id']}").status_code == 200
    else:
        assert_problem(new_client, 403)  # a branch of the agency that is not the staff member's
        for method, path, body in calls:
            assert_problem(as_role.request(method, path, json=body), 404)  # invisible to staff
        assert_problem(as_role.delete(f"/api/clients/{client['id']}"), 404)
        assert admin.get(f"/api/sites/{site['id']}").json() == site
        assert admin.get(f"/api/clients/{client['id']}").json() == client


def test_staff_reads(staff: httpx.Client, admin: httpx.Client, staff_branch_id: str,
                     other_branch_id: str) -> None:
    # Branches: all of the agency's.
    assert {b["id"] for b in all_pages(staff, "/api/branches")} == {b["id"] for b in all_pages(admin, "/api/branches")}
    assert staff.get(f"/api/branches/{other_branch_id}").status_code == 200
    # Clients and sites: only the staff member's branch.
    mine = create_client(admin, staff_branch_id)
    theirs = create_client(admin, other_branch_id)
    their_site = create_site(admin, theirs["id"])
    visible = all_pages(staff, "/api/clients")
    assert visible and all(c["branchId"] == staff_branch_id for c in visible)
    assert mine["id"] in {c["id"] for c in visible}
    assert all_pages(staff, "/api/clients", branchId=other_branch_id) == []
    assert staff.get(f"/api/clients/{mine['id']}").status_code == 200
    assert_problem(staff.get(f"/api/clients/{theirs['id']}"), 404)
    assert_problem(staff.get(f"/api/clients/{theirs['id']}/sites"), 404)
    assert_problem(staff.get(f"/api/sites/{their_site['id']}"), 404)
