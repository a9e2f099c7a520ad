"""Helpers of the sandbox API tests: clients, unique names, paging, record factories, problem checks."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.fixtures.sandbox import SandboxServer, login_token


def api_client(server: SandboxServer, login: tuple[str, str] | None) -> httpx.Client:
    headers = {}
    if login is not None:
        headers["Authorization"] = f"Bearer {login_token(server, *login)['accessToken']}"
    return httpx.Client(base_url=server.url, headers=headers, timeout=10)


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def all_pages(client: httpx.Client, path: str, **params: Any) -> list[dict[str, Any]]:
    """Every record of a list, following nextPage (an absolute URL, G8)."""
    response = client.get(path, params={"pageSize": 100, **params})
    records: list[dict[str, Any]] = []
    for _ in range(1000):
        assert response.status_code == 200, response.text
        page = response.json()
        records.extend(page["data"])
        if page["nextPage"] is None:
            return records
        response = client.get(page["nextPage"])
    raise AssertionError("more than 1000 pages")


def create_branch(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/branches", json={"name": unique("Branch"), **fields})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def create_client(client: httpx.Client, branch_id: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/clients", json={"name": unique("Client"), "branchId": branch_id, **fields})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def create_site(client: httpx.Client, client_id: str, **fields: Any) -> dict[str, Any]:
    response = client.post(f"/api/clients/{client_id}/sites", json={"name": unique("Site"), **fields})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def assert_problem(response: httpx.Response, status: int, *fields: str) -> dict[str, Any]:
    """An RFC 9457 problem (G10) with that status, and for 400 an `errors` entry per named field."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    assert body["title"] and body["detail"]
    for field in fields:
        assert field in body["errors"], body
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")
    return body  # type: ignore[no-any-return]
