"""Every endpoint of the sandbox over a real socket: the happy path and each error path of the contract."""

from __future__ import annotations

import json
import time
from importlib import resources

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, MANAGER, STAFF, SandboxServer, login_token
from tests.sandbox.helpers import (
    all_pages,
    api_client,
    assert_problem,
    create_branch,
    create_client,
    create_site,
    unique,
)

BRANCH_KEYS = {"id", "name", "address", "phone", "email", "createdOn"}
CLIENT_SUMMARY_KEYS = {"id", "name", "branchId", "email", "phone", "createdOn"}
SITE_SUMMARY_KEYS = {"id", "clientId", "name", "address", "phone", "email", "assessmentRequired", "createdOn"}
SITE_KEYS = SITE_SUMMARY_KEYS | {"departments", "rates", "bannedWorkers", "documents"}
PAGE_KEYS = {"data", "pageNumber", "pageSize", "nextPage", "previousPage", "pageCount", "totalRecordCount"}
TIMESTAMP = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"

PROTECTED = [
    ("GET", "/api/agency/"), ("PUT", "/api/agency/"),
    ("GET", "/api/branches"), ("POST", "/api/branches"),
    ("GET", "/api/branches/x"), ("PUT", "/api/branches/x"), ("DELETE", "/api/branches/x"),
    ("GET", "/api/clients"), ("POST", "/api/clients"),
    ("GET", "/api/clients/x"), ("PUT", "/api/clients/x"), ("DELETE", "/api/clients/x"),
    ("GET", "/api/clients/x/sites"), ("POST", "/api/clients/x/sites"),
    ("GET", "/api/sites/x"), ("PUT", "/api/sites/x"), ("DELETE", "/api/sites/x"),
]


# ---- identity ---------------------------------------------------------------------------------


def test_login_answers_a_token_pair(sandbox: SandboxServer) -> None:
    pair = login_token(sandbox, "ADMIN@northwind.test", "sandbox-admin")  # user names are case-insensitive
    assert set(pair) == {"accessToken", "refreshToken", "tokenType", "expiresIn"}
    assert pair["tokenType"] == "Bearer" and pair["expiresIn"] == 900
    assert pair["accessToken"] != pair["refreshToken"]


@pytest.mark.parametrize("body", [
    {"username": "admin@northwind.test", "password": "wrong"},
    {"username": "nobody@northwind.test", "password": "sandbox-admin"},
    {"username": "admin@northwind.test", "password": " sandbox-admin"},
])
def test_login_with_bad_credentials_is_401(anonymous: httpx.Client, body: dict[str, str]) -> None:
    assert_problem(anonymous.post("/identity/login", json=body), 401)


@pytest.mark.parametrize(("body", "fields"), [
    ({"username": "admin@northwind.test"}, ["password"]),
    ({"password": "x"}, ["username"]),
    ({"username": "", "password": ""}, ["username", "password"]),
    ({"username": "a", "password": "b", "email": "c"}, ["email"]),
    ({"username": 1, "password": None}, ["username", "password"]),
])
def test_login_with_a_malformed_body_is_400(anonymous: httpx.Client, body: dict[str, object],
                                             fields: list[str]) -> None:
    assert_problem(anonymous.post("/identity/login", json=body), 400, *fields)


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"username": NaN}'])
def test_a_body_that_is_not_a_json_object_is_400(anonymous: httpx.Client, raw: bytes) -> None:
    response = anonymous.post("/identity/login", content=raw, headers={"Content-Type": "application/json"})
    assert_problem(response, 400)


@pytest.mark.parametrize(("method", "path"), PROTECTED)
def test_every_protected_endpoint_needs_a_token(anonymous: httpx.Client, method: str, path: str) -> None:
    assert_problem(anonymous.request(method, path), 401)
    bad = {"Authorization": "Bearer wsa_not-a-token"}
    assert_problem(anonymous.request(method, path, headers=bad), 401)
    basic = {"Authorization": "Basic YWRtaW46YWRtaW4="}
    assert_problem(anonymous.request(method, path, headers=basic), 401)


def test_unknown_paths_and_methods_are_problems(admin: httpx.Client) -> None:
    assert_problem(admin.get("/api/nothing-here"), 404)
    response = admin.patch("/api/branches")
    assert_problem(response, 405)
    assert "GET" in response.headers["allow"]


# ---- agency -----------------------------------------------------------------------------------


def test_get_agency_has_exactly_the_agency_fields(admin: httpx.Client, staff: httpx.Client) -> None:
    for client in (admin, staff):
        response = client.get("/api/agency/")
        assert response.status_code == 200
        agency = response.json()
        assert set(agency) == {"name", "email", "phone", "workWeekStart", "calendarYearStart",
                               "holidayYearStart", "holidayCapHours"}
        assert agency["name"] == "Northwind Staffing"


def test_admin_updates_the_agency_and_left_out_fields_keep_their_value(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory()
    with api_client(server, ADMIN) as admin:
        before = admin.get("/api/agency/").json()
        response = admin.put("/api/agency/", json={"workWeekStart": "Sunday", "holidayCapHours": 200.5,
                                                   "phone": "  +44 1  "})
        assert response.status_code == 200, response.text
        after = response.json()
        assert after == {**before, "workWeekStart": "Sunday", "holidayCapHours": 200.5, "phone": "+44 1"}
        assert admin.get("/api/agency/").json() == after
        for body, field in [({"workWeekStart": "Caturday"}, "workWeekStart"),
                            ({"calendarYearStart": "2026-02-30"}, "calendarYearStart"),
                            ({"holidayCapHours": -1}, "holidayCapHours"), ({"name": None}, "name"),
                            ({"name": ""}, "name"), ({"email": "nope"}, "email"), ({"id": "x"}, "id")]:
            assert_problem(admin.put("/api/agency/", json=body), 400, field)
        assert admin.get("/api/agency/").json() == after
    for login in (MANAGER, STAFF):
        with api_client(server, login) as other:
            assert_problem(other.put("/api/agency/", json={"phone": "1"}), 403)
    with api_client(server, ADMIN) as admin:
        assert admin.get("/api/agency/").json() == after


# ---- pagination (G7, G8) ----------------------------------------------------------------------


def test_list_envelope_pages_and_stable_order(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    client = create_client(admin, branch["id"])
    created = [create_site(admin, client["id"])["id"] for _ in range(5)]
    path = f"/api/clients/{client['id']}/sites"

    first = admin.get(path, params={"pageSize": 2}).json()
    assert set(first) == PAGE_KEYS
    assert (first["pageNumber"], first["pageSize"], first["pageCount"], first["totalRecordCount"]) == (1, 2, 3, 5)
    assert first["previousPage"] is None
    assert first["nextPage"].startswith(f"{admin.base_url}".rstrip("/") + path)  # absolute URL (G8)
    second = admin.get(first["nextPage"]).json()
    assert second["pageNumber"] == 2 and second["previousPage"] is not None
    third = admin.get(second["nextPage"]).json()
    assert third["nextPage"] is None and len(third["data"]) == 1
    back = admin.get(third["previousPage"]).json()
    # the same page; its nextPage may carry another cursor (see test_keyset.py), to the same rows
    assert {**back, "nextPage": None} == {**second, "nextPage": None}
    assert admin.get(back["nextPage"]).json()["data"] == third["data"]
    seen = [s["id"] for s in first["data"] + second["data"] + third["data"]]
    assert sorted(seen) == sorted(created)
    order = [(s["createdOn"], s["id"]) for s in first["data"] + second["data"] + third["data"]]
    assert order == sorted(order)  # createdOn, then id

    default = admin.get(path).json()
    assert default["pageNumber"] == 1 and default["pageSize"] == 10
    assert admin.get(path, params={"pageSize": 1000}).json()["pageSize"] == 100
    past = admin.get(path, params={"pageNumber": 99}).json()
    assert past["data"] == [] and past["nextPage"] is None and past["totalRecordCount"] == 5
    assert admin.get(path, params={"pageNumber": 2**31 - 1}).json()["data"] == []
    for params, field in [({"pageNumber": 0}, "pageNumber"), ({"pageSize": 0}, "pageSize"),
                          ({"pageNumber": 10**30}, "pageNumber"),  # issue 45: past the range, not an empty page
                          ({"pageSize": -5}, "pageSize"), ({"pageNumber": "two"}, "pageNumber")]:
        assert_problem(admin.get(path, params=params), 400, field)
        assert_problem(admin.get("/api/branches", params=params), 400, field)
        assert_problem(admin.get("/api/clients", params=params), 400, field)


# ---- branches ---------------------------------------------------------------------------------


def test_branch_lifecycle(admin: httpx.Client) -> None:
    name = unique("Branch")
    response = admin.post("/api/branches", json={"name": f"  {name} ", "address": "1 High St",
                                                 "phone": "+44 1", "email": "b@example.test"})
    assert response.status_code == 201
    branch = response.json()
    assert set(branch) == BRANCH_KEYS
    assert branch["name"] == name  # trimmed (G11)
    assert admin.get(f"/api/branches/{branch['id']}").json() == branch
    listed = all_pages(admin, "/api/branches")
    assert branch in listed and all(set(b) == BRANCH_KEYS for b in listed)

    response = admin.put(f"/api/branches/{branch['id']}", json={"phone": "", "address": "2 High St"})
    assert response.status_code == 200
    updated = response.json()
    assert set(updated) == BRANCH_KEYS - {"createdOn"} | {"modifiedOn"}
    assert updated["phone"] == "" and updated["address"] == "2 High St"  # "" clears
    assert updated["name"] == name and updated["email"] == "b@example.test"  # left out: kept (G13)
    assert admin.get(f"/api/branches/{branch['id']}").json()["createdOn"] == branch["createdOn"]

    response = admin.delete(f"/api/branches/{branch['id']}")
    assert response.status_code == 200
    assert response.json() == {"status": "success", "message": "branch deleted"}
    assert_problem(admin.get(f"/api/branches/{branch['id']}"), 404)
    assert_problem(admin.delete(f"/api/branches/{branch['id']}"), 404)
    assert_problem(admin.put(f"/api/branches/{branch['id']}", json={"name": "x"}), 404)


@pytest.mark.parametrize(("body", "fields"), [
    ({}, ["name"]),
    ({"name": "   "}, ["name"]),
    ({"name": "x" * 201}, ["name"]),
    ({"name": "ok", "address": "x" * 501}, ["address"]),
    ({"name": "ok", "phone": "x" * 201}, ["phone"]),
    ({"name": "ok", "email": "not-an-address"}, ["email"]),
    ({"name": "ok", "colour": "red"}, ["colour"]),
    ({"name": "ok", "phone": None}, ["phone"]),
    ({"name": 42}, ["name"]),
])
def test_branch_create_field_rules(admin: httpx.Client, body: dict[str, object], fields: list[str]) -> None:
    assert_problem(admin.post("/api/branches", json=body), 400, *fields)


def test_branch_field_limits_are_inclusive(admin: httpx.Client) -> None:
    branch = create_branch(admin, address="a" * 500, phone="p" * 200, email="")
    assert len(branch["address"]) == 500
    long_name = unique("n" * 180)
    assert admin.put(f"/api/branches/{branch['id']}", json={"name": long_name}).status_code == 200


def test_branch_names_are_unique_in_the_agency_case_insensitively(admin: httpx.Client,
                                                                   other_admin: httpx.Client) -> None:
    branch = create_branch(admin)
    assert_problem(admin.post("/api/branches", json={"name": branch["name"].upper()}), 409)
    other = create_branch(admin)
    assert_problem(admin.put(f"/api/branches/{other['id']}", json={"name": branch["name"].lower()}), 409)
    assert admin.get(f"/api/branches/{other['id']}").json()["name"] == other["name"]
    # Renaming to its own name is not a conflict; another agency may use the same name.
    assert admin.put(f"/api/branches/{other['id']}", json={"name": other["name"]}).status_code == 200
    assert other_admin.post("/api/branches", json={"name": branch["name"]}).status_code == 201


def test_branch_update_rejects_null_and_unknown_fields(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    assert_problem(admin.put(f"/api/branches/{branch['id']}", json={"phone": None}), 400, "phone")
    assert_problem(admin.put(f"/api/branches/{branch['id']}", json={"id": "other"}), 400, "id")
    assert_problem(admin.put(f"/api/branches/{branch['id']}", json={"name": ""}), 400, "name")
    assert admin.get(f"/api/branches/{branch['id']}").json() == branch


def test_a_branch_with_clients_is_not_deleted(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    client = create_client(admin, branch["id"])
    assert_problem(admin.delete(f"/api/branches/{branch['id']}"), 409)
    assert admin.get(f"/api/branches/{branch['id']}").status_code == 200
    assert admin.delete(f"/api/clients/{client['id']}").status_code == 200
    assert admin.delete(f"/api/branches/{branch['id']}").status_code == 200


# ---- clients ----------------------------------------------------------------------------------


def test_client_lifecycle(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    response = admin.post("/api/clients", json={"name": unique("Client"), "branchId": branch["id"],
                                                "email": "ap@client.test", "phone": "1",
                                                "billingAddress": "1 Bill St"})
    assert response.status_code == 201
    client = response.json()
    assert set(client) == CLIENT_SUMMARY_KEYS | {"billingAddress"}
    assert client["branchId"] == branch["id"] and client["billingAddress"] == "1 Bill St"
    assert admin.get(f"/api/clients/{client['id']}").json() == client

    listed = all_pages(admin, "/api/clients", branchId=branch["id"])
    assert listed == [{k: v for k, v in client.items() if k != "billingAddress"}]  # no billingAddress in lists

    response = admin.put(f"/api/clients/{client['id']}", json={"billingAddress": "2 Bill St"})
    assert response.status_code == 200
    updated = response.json()
    assert set(updated) == CLIENT_SUMMARY_KEYS - {"createdOn"} | {"billingAddress", "updatedOn"}
    assert updated["billingAddress"] == "2 Bill St" and updated["email"] == "ap@client.test"
    assert updated["branchId"] == branch["id"]

    assert admin.delete(f"/api/clients/{client['id']}").json() == {"status": "success",
                                                                    "message": "client deleted"}
    assert_problem(admin.get(f"/api/clients/{client['id']}"), 404)
    assert_problem(admin.put(f"/api/clients/{client['id']}", json={"phone": "2"}), 404)
    assert_problem(admin.delete(f"/api/clients/{client['id']}"), 404)


def test_client_field_rules(admin: httpx.Client, other_branch_id: str) -> None:
    assert_problem(admin.post("/api/clients", json={"name": "x"}), 400, "branchId")
    assert_problem(admin.post("/api/clients", json={"branchId": other_branch_id}), 400, "name")
    assert_problem(admin.post("/api/clients", json={"name": "x", "branchId": other_branch_id,
                                                    "billingAddress": "b" * 501}), 400, "billingAddress")
    assert_problem(admin.post("/api/clients", json={"name": "x", "branchId": "no-such-branch"}), 404)
    client = create_client(admin, other_branch_id)
    # branchId is not part of the update body.
    assert_problem(admin.put(f"/api/clients/{client['id']}", json={"branchId": other_branch_id}), 400,
                   "branchId")
    assert_problem(admin.put(f"/api/clients/{client['id']}", json={"email": "x@"}), 400, "email")


def test_client_names_are_unique_within_their_branch(admin: httpx.Client, other_branch_id: str,
                                                     staff_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    duplicate = {"name": client["name"].swapcase(), "branchId": other_branch_id}
    assert_problem(admin.post("/api/clients", json=duplicate), 409)
    assert admin.post("/api/clients", json={**duplicate, "branchId": staff_branch_id}).status_code == 201
    second = create_client(admin, other_branch_id)
    assert_problem(admin.put(f"/api/clients/{second['id']}", json={"name": client["name"]}), 409)


def test_client_list_filters_by_branch(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    mine = {create_client(admin, branch["id"])["id"] for _ in range(3)}
    listed = all_pages(admin, "/api/clients", branchId=branch["id"])
    assert {c["id"] for c in listed} == mine
    assert all(set(c) == CLIENT_SUMMARY_KEYS for c in listed)
    assert all_pages(admin, "/api/clients", branchId="no-such-branch") == []
    page = admin.get("/api/clients", params={"branchId": branch["id"], "pageSize": 2}).json()
    assert "branchId=" in page["nextPage"]
    assert {c["id"] for c in admin.get(page["nextPage"]).json()["data"]} <= mine


def test_a_client_with_sites_is_not_deleted(admin: httpx.Client, other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    site = create_site(admin, client["id"])
    assert_problem(admin.delete(f"/api/clients/{client['id']}"), 409)
    assert admin.get(f"/api/sites/{site['id']}").status_code == 200
    assert admin.delete(f"/api/sites/{site['id']}").status_code == 200
    assert admin.delete(f"/api/clients/{client['id']}").status_code == 200


# ---- sites ------------------------------------------------------------------------------------


def test_site_lifecycle_and_shapes(admin: httpx.Client, other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    body = {"name": unique("Site"), "address": "Dock 4", "phone": "+44 2", "email": "site@x.test",
            "assessmentRequired": True,
            "departments": [{"name": "Goods In", "contactPerson": "Ann", "email": "ann@x.test"}],
            "rates": [{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11}],
            "bannedWorkers": ["W-1", "W-2"]}
    response = admin.post(f"/api/clients/{client['id']}/sites", json=body)
    assert response.status_code == 201
    site = response.json()
    assert set(site) == SITE_KEYS
    assert {k: site[k] for k in body} == body
    assert site["clientId"] == client["id"] and site["documents"] == []
    assert admin.get(f"/api/sites/{site['id']}").json() == site  # every field except updatedOn

    listed = all_pages(admin, f"/api/clients/{client['id']}/sites")
    assert listed == [{k: site[k] for k in SITE_SUMMARY_KEYS}]

    # An update answers id, clientId, only the fields sent, and updatedOn; address and email may be left out.
    response = admin.put(f"/api/sites/{site['id']}", json={"phone": " 123 ", "rates": []})
    assert response.status_code == 200
    updated = response.json()
    assert set(updated) == {"id", "clientId", "phone", "rates", "updatedOn"}
    assert updated["phone"] == "123" and updated["rates"] == []
    again = admin.get(f"/api/sites/{site['id']}").json()
    assert again == {**site, "phone": "123", "rates": []}

    assert admin.delete(f"/api/sites/{site['id']}").json() == {"status": "success", "message": "site deleted"}
    assert_problem(admin.get(f"/api/sites/{site['id']}"), 404)
    assert_problem(admin.put(f"/api/sites/{site['id']}", json={"phone": "1"}), 404)
    assert_problem(admin.delete(f"/api/sites/{site['id']}"), 404)


def test_site_create_defaults(admin: httpx.Client, other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    site = create_site(admin, client["id"])
    assert (site["address"], site["phone"], site["email"], site["assessmentRequired"]) == ("", "", "", False)
    assert site["departments"] == site["rates"] == site["bannedWorkers"] == site["documents"] == []


@pytest.mark.parametrize(("extra", "fields"), [
    ({"rates": [{"skill": "a", "hourlyRate": 1.234}]}, ["rates[0].hourlyRate"]),
    ({"rates": [{"skill": "a", "hourlyRate": -0.01}]}, ["rates[0].hourlyRate"]),
    ({"rates": [{"skill": "a", "hourlyRate": "12"}]}, ["rates[0].hourlyRate"]),
    ({"rates": [{"skill": "Chef", "hourlyRate": 1}, {"skill": "chef ", "hourlyRate": 2}]}, ["rates[1].skill"]),
    ({"rates": [{"hourlyRate": 1}]}, ["rates[0].skill"]),
    ({"rates": {"skill": "a"}}, ["rates"]),
    ({"bannedWorkers": ["W-1", " "]}, ["bannedWorkers[1]"]),
    ({"bannedWorkers": ["W-1", "W-1"]}, ["bannedWorkers[1]"]),
    ({"bannedWorkers": [7]}, ["bannedWorkers[0]"]),
    ({"departments": [{"contactPerson": "x"}]}, ["departments[0].name"]),
    ({"departments": [{"name": "x", "email": "bad"}]}, ["departments[0].email"]),
    ({"departments": [{"name": "x", "floor": 2}]}, ["departments[0].floor"]),
    ({"assessmentRequired": "yes"}, ["assessmentRequired"]),
    ({"documents": []}, ["documents"]),
    ({"email": "a@b"}, ["email"]),
    ({"address": None}, ["address"]),
])
def test_site_field_rules(admin: httpx.Client, other_branch_id: str, extra: dict[str, object],
                          fields: list[str]) -> None:
    client = create_client(admin, other_branch_id)
    path = f"/api/clients/{client['id']}/sites"
    assert_problem(admin.post(path, json={"name": unique("Site"), **extra}), 400, *fields)
    site = create_site(admin, client["id"])
    assert_problem(admin.put(f"/api/sites/{site['id']}", json=extra), 400, *fields)
    assert all_pages(admin, path) == [{k: site[k] for k in SITE_SUMMARY_KEYS}]


def test_site_names_are_unique_within_their_client(admin: httpx.Client, other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    other_client = create_client(admin, other_branch_id)
    site = create_site(admin, client["id"])
    assert_problem(admin.post(f"/api/clients/{client['id']}/sites", json={"name": site["name"].upper()}), 409)
    assert admin.post(f"/api/clients/{other_client['id']}/sites", json={"name": site["name"]}).status_code == 201
    second = create_site(admin, client["id"])
    assert_problem(admin.put(f"/api/sites/{second['id']}", json={"name": site["name"]}), 409)


def test_sites_of_a_missing_client_are_404(admin: httpx.Client) -> None:
    assert_problem(admin.get("/api/clients/no-such-client/sites"), 404)
    assert_problem(admin.post("/api/clients/no-such-client/sites", json={"name": "x"}), 404)


def test_seeded_sites_carry_rates_departments_documents_and_banned_workers(admin: httpx.Client) -> None:
    clients = all_pages(admin, "/api/clients")
    seeded = [c for c in clients if c["email"].endswith(".test") and "@client.test" not in c["email"]]
    assert len(seeded) >= 6
    sites = [s for c in seeded for s in all_pages(admin, f"/api/clients/{c['id']}/sites")]
    assert len(sites) >= 25
    full = [admin.get(f"/api/sites/{s['id']}").json() for s in sites[:6]]
    assert all(s["rates"] and s["departments"] and s["documents"] for s in full)
    assert any(s["bannedWorkers"] for s in full)
    assert len(all_pages(admin, "/api/branches")) >= 3


# ---- idempotency (G20) ------------------------------------------------------------------------


def test_idempotency_key_replays_the_first_answer(admin: httpx.Client, other_branch_id: str) -> None:
    client = create_client(admin, other_branch_id)
    path = f"/api/clients/{client['id']}/sites"
    key = {"Idempotency-Key": unique("key")}
    body = {"name": unique("Site"), "phone": "1"}
    first = admin.post(path, json=body, headers=key)
    assert first.status_code == 201
    replay = admin.post(path, content=json.dumps(body, indent=2), headers={**key, "Content-Type": "application/json"})
    assert replay.status_code == 201 and replay.json() == first.json()
    assert replay.headers["idempotent-replayed"] == "true"
    assert len(all_pages(admin, path)) == 1
    assert_problem(admin.post(path, json={**body, "phone": "2"}, headers=key), 422)
    # Another key is another request: this one is a duplicate name.
    assert_problem(admin.post(path, json=body, headers={"Idempotency-Key": unique("key")}), 409)
    assert len(all_pages(admin, path)) == 1


def test_idempotency_key_also_replays_an_error(admin: httpx.Client) -> None:
    key = {"Idempotency-Key": unique("key")}
    first = admin.post("/api/branches", json={"name": ""}, headers=key)
    assert_problem(first, 400, "name")
    assert admin.post("/api/branches", json={"name": ""}, headers=key).json() == first.json()


# ---- rate limit and latency (G18) -------------------------------------------------------------


def test_rate_limit_answers_429_with_retry_after(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory(seed=False, rate_limit=5)
    with httpx.Client(base_url=server.url, timeout=10) as client:
        statuses = []
        limited = None
        for _ in range(30):
            response = client.get("/api/branches")
            statuses.append(response.status_code)
            if response.status_code == 429:
                limited = response
        assert statuses.count(401) >= 5 and limited is not None
        assert_problem(limited, 429)
        assert int(limited.headers["retry-after"]) >= 1
        time.sleep(int(limited.headers["retry-after"]) + 0.1)
        assert client.get("/api/branches").status_code == 401


def test_latency_delays_every_answer(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory(seed=False, latency_ms=300)
    with httpx.Client(base_url=server.url, timeout=10) as client:
        client.get("/api/branches")  # connect first
        start = time.monotonic()
        assert client.get("/api/branches").status_code == 401
        assert time.monotonic() - start >= 0.3


# ---- the contract it serves -------------------------------------------------------------------


def test_openapi_json_is_the_projects_contract(anonymous: httpx.Client) -> None:
    shipped = json.loads(resources.files("wfctl.sandbox").joinpath("openapi.json").read_text())
    served = anonymous.get("/openapi.json")
    assert served.status_code == 200
    doc = served.json()
    assert doc["paths"] == shipped["paths"] and doc["components"] == shipped["components"]
    documented: dict[str, set[str]] = {}
    for path, operations in doc["paths"].items():
        documented[path] = {m.upper() for m in operations if m != "parameters"}
    assert sum(len(methods) for methods in documented.values()) == 20  # logout (G22) the 20th
    for path, methods in documented.items():
        concrete = path.replace("{branchId}", "x").replace("{clientId}", "x").replace("{siteId}", "x")
        # Each documented operation is served (no 405), and a 405 lists exactly the documented methods.
        for method in methods:
            assert anonymous.request(method, concrete).status_code != 405
        response = anonymous.request("PATCH", concrete)
        assert_problem(response, 405)
        assert set(response.headers["allow"].split(", ")) == methods
    docs = anonymous.get("/docs")
    assert docs.status_code == 200 and "/openapi.json" in docs.text


def test_data_survives_a_restart_with_the_same_db_file(sandbox_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "keep.db")
    first = sandbox_factory(db_path=db)
    with api_client(first, ADMIN) as admin:
        branch = create_branch(admin)
        before = all_pages(admin, "/api/branches")
    first.stop()
    second = sandbox_factory(db_path=db)
    with api_client(second, ADMIN) as admin:
        assert admin.get(f"/api/branches/{branch['id']}").json() == branch
        assert all_pages(admin, "/api/branches") == before  # not seeded twice


def test_without_seed_records_the_agencies_and_logins_still_exist(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory(seed=False)
    with api_client(server, ADMIN) as admin, api_client(server, STAFF) as staff:
        assert admin.get("/api/agency/").json()["name"] == "Northwind Staffing"
        assert all_pages(admin, "/api/branches") == [] and all_pages(admin, "/api/clients") == []
        branch = create_branch(admin)
        assert all_pages(staff, "/api/branches") == [branch]
        # The staff login is bound to no branch here: it sees no clients and may create none.
        create_client(admin, branch["id"])
        assert all_pages(staff, "/api/clients") == []
        assert_problem(staff.post("/api/clients", json={"name": "x", "branchId": branch["id"]}), 403)
