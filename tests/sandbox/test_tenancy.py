"""Tenancy (G17): agency A's token on agency B's ids answers 404 on every endpoint, and no list leaks."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.sandbox.helpers import all_pages, assert_problem, create_branch, create_client, create_site, unique


@pytest.fixture(scope="module")
def southgate(other_admin: httpx.Client) -> dict[str, Any]:
    """Records of the second agency: a branch, a client and a site, plus the seeded ones."""
    branch = create_branch(other_admin)
    client = create_client(other_admin, branch["id"])
    site = create_site(other_admin, client["id"])
    return {"branch": branch, "client": client, "site": site}


def _ids_everywhere(client: httpx.Client) -> set[str]:
    """Every id the caller can reach through the lists: branches, clients, and every client's sites."""
    ids = {b["id"] for b in all_pages(client, "/api/branches")}
    clients = all_pages(client, "/api/clients")
    ids |= {c["id"] for c in clients}
    for c in clients:
        ids |= {s["id"] for s in all_pages(client, f"/api/clients/{c['id']}/sites")}
    return ids


def test_each_endpoint_refuses_another_agencys_ids(admin: httpx.Client, other_admin: httpx.Client,
                                                   southgate: dict[str, Any]) -> None:
    branch_id, client_id, site_id = (southgate[k]["id"] for k in ("branch", "client", "site"))
    calls = [
        ("GET", f"/api/branches/{branch_id}", None),
        ("PUT", f"/api/branches/{branch_id}", {"name": unique("Hijack")}),
        ("DELETE", f"/api/branches/{branch_id}", None),
        ("GET", f"/api/clients/{client_id}", None),
        ("PUT", f"/api/clients/{client_id}", {"name": unique("Hijack")}),
        ("DELETE", f"/api/clients/{client_id}", None),
        ("GET", f"/api/clients/{client_id}/sites", None),
        ("POST", f"/api/clients/{client_id}/sites", {"name": unique("Hijack")}),
        ("GET", f"/api/sites/{site_id}", None),
        ("PUT", f"/api/sites/{site_id}", {"name": unique("Hijack")}),
        ("DELETE", f"/api/sites/{site_id}", None),
        ("POST", "/api/clients", {"name": unique("Hijack"), "branchId": branch_id}),
    ]
    for method, path, body in calls:
        response = admin.request(method, path, json=body)
        problem = assert_problem(response, 404)
        # Exactly like a missing record: the same status and the same kind of message.
        missing = admin.request(method, path.replace(branch_id, "missing").replace(client_id, "missing")
                                .replace(site_id, "missing"), json=body)
        assert missing.status_code == 404 and problem["title"] == missing.json()["title"]

    # Nothing of agency B changed.
    assert other_admin.get(f"/api/branches/{branch_id}").json() == southgate["branch"]
    assert other_admin.get(f"/api/clients/{client_id}").json() == southgate["client"]
    assert other_admin.get(f"/api/sites/{site_id}").json() == southgate["site"]
    assert len(all_pages(other_admin, f"/api/clients/{client_id}/sites")) == 1
    assert len(all_pages(other_admin, "/api/clients", branchId=branch_id)) == 1


def test_no_list_leaks_another_agencys_records(admin: httpx.Client, other_admin: httpx.Client,
                                               staff: httpx.Client, manager: httpx.Client,
                                               southgate: dict[str, Any]) -> None:
    northwind_ids = _ids_everywhere(admin)
    southgate_ids = _ids_everywhere(other_admin)
    assert {southgate[k]["id"] for k in ("branch", "client", "site")} <= southgate_ids
    assert len(southgate_ids) >= 7  # the seeded Croydon branch, its client and two sites, plus ours
    assert not northwind_ids & southgate_ids
    assert not _ids_everywhere(manager) & southgate_ids
    assert not _ids_everywhere(staff) & southgate_ids
    # A filter naming B's branch finds nothing for A, and the totals count only A's records.
    page = admin.get("/api/clients", params={"branchId": southgate["branch"]["id"]}).json()
    assert page["data"] == [] and page["totalRecordCount"] == 0
    totals = admin.get("/api/branches").json()["totalRecordCount"]
    assert totals == len(all_pages(admin, "/api/branches"))


def test_the_agency_endpoint_answers_the_callers_own_agency(admin: httpx.Client,
                                                            other_admin: httpx.Client) -> None:
    assert admin.get("/api/agency/").json()["name"] == "Northwind Staffing"
    assert other_admin.get("/api/agency/").json()["name"] == "Southgate Recruitment"


def test_names_are_scoped_to_the_agency(admin: httpx.Client, other_admin: httpx.Client,
                                        southgate: dict[str, Any]) -> None:
    # Agency A may use B's branch name: uniqueness is per agency, and B's names are not revealed by a 409.
    response = admin.post("/api/branches", json={"name": southgate["branch"]["name"]})
    assert response.status_code == 201
    assert other_admin.get(f"/api/branches/{response.json()['id']}").status_code == 404
