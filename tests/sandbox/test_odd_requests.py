"""What a request can hold that no record can (issue 30 section 6), on both backends: a NUL (U+0000) in an
id is the 404 of any unknown id, never a 500 (PostgreSQL cannot hold NUL in text, G11)."""

from __future__ import annotations

import httpx
import pytest

NUL_ID = "a%00b"


@pytest.mark.parametrize(("method", "path", "kind"), [
    ("GET", f"/api/branches/{NUL_ID}", "branch"),
    ("PUT", f"/api/branches/{NUL_ID}", "branch"),
    ("DELETE", f"/api/branches/{NUL_ID}", "branch"),
    ("GET", f"/api/clients/{NUL_ID}", "client"),
    ("PUT", f"/api/clients/{NUL_ID}", "client"),
    ("DELETE", f"/api/clients/{NUL_ID}", "client"),
    ("GET", f"/api/sites/{NUL_ID}", "site"),
    ("PUT", f"/api/sites/{NUL_ID}", "site"),
    ("DELETE", f"/api/sites/{NUL_ID}", "site"),
    ("GET", f"/api/clients/{NUL_ID}/sites", "client"),
    ("POST", f"/api/clients/{NUL_ID}/sites", "client"),
])
def test_a_nul_in_an_id_is_not_found(admin: httpx.Client, method: str, path: str, kind: str) -> None:
    body = {"name": "Nul"} if method in ("PUT", "POST") else None
    response = admin.request(method, path, json=body)
    assert response.status_code == 404, response.text
    assert response.json()["detail"] == f"{kind} a\x00b not found"


def test_a_nul_in_the_branch_filter_finds_no_client(admin: httpx.Client) -> None:
    response = admin.get("/api/clients", params={"branchId": "a\x00b"})
    assert response.status_code == 200, response.text
    assert (response.json()["data"], response.json()["totalRecordCount"]) == ([], 0)
