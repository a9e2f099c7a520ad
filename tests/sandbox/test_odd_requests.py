"""What a request can hold that the sandbox must not act on (issue 30 section 6), on both backends: a NUL
(U+0000) in an id is the 404 of any unknown id, never a 500 (PostgreSQL cannot hold NUL in text, G11); a
Host header naming another server never becomes the origin of a page link or a redirect."""

from __future__ import annotations

import httpx
import pytest

from tests.fixtures.sandbox import SandboxServer

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


def _hosts(sandbox: SandboxServer) -> dict[str, str]:
    """Host header -> the origin links and redirects carry ("" for a relative link)."""
    own = sandbox.url.removeprefix("http://")
    port = own.rsplit(":", 1)[1]
    return {own: sandbox.url, f"localhost:{port}": f"http://localhost:{port}",
            "evil.test": "", f"evil.test:{port}": "", "127.0.0.1:1": "", f"10.0.0.1:{port}": "", "[::1": ""}


def test_a_page_link_names_this_server_or_is_relative(admin: httpx.Client, sandbox: SandboxServer) -> None:
    for host, origin in _hosts(sandbox).items():
        response = admin.get("/api/branches", params={"pageSize": 1}, headers={"Host": host})
        assert response.status_code == 200, (host, response.text)
        link = response.json()["nextPage"]
        assert link.startswith(f"{origin}/api/branches?pageSize=1&pageNumber=2"), (host, link)


@pytest.mark.parametrize(("path", "target"), [("/api/branches/", "/api/branches"), ("/api/agency", "/api/agency/")])
def test_a_redirect_names_this_server_or_is_relative(admin: httpx.Client, sandbox: SandboxServer, path: str,
                                                      target: str) -> None:
    for host, origin in _hosts(sandbox).items():
        response = admin.get(path, headers={"Host": host}, follow_redirects=False)
        assert response.status_code == 307, (host, response.text)
        assert response.headers["location"] == f"{origin}{target}", host
