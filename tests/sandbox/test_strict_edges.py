"""Every edge of a request is strict (issue 45), on both backends: a body that is not `application/json` in
UTF-8 is 415 (text/plain, no Content-Type, UTF-16 by its charset or by its bytes), a key sent twice in one
object is 400 (never "the last one wins"), and `pageNumber`/`pageSize` are plain ASCII digits within range or
400 (G7); and G22's logout revokes the whole login on the service."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import assert_problem, unique


def _post(client: httpx.Client, path: str, content: bytes, content_type: str | None) -> httpx.Response:
    headers = {} if content_type is None else {"Content-Type": content_type}
    return client.post(path, content=content, headers=headers)


@pytest.mark.parametrize(("content_type", "encoding"), [
    ("text/plain", "utf-8"),
    ("text/plain; charset=utf-8", "utf-8"),
    (None, "utf-8"),
    ("application/x-www-form-urlencoded", "utf-8"),
    ("application/json; charset=utf-16", "utf-16"),
    ("application/json", "utf-16"),
    ("application/json", "utf-16-le"),
    ("application/json", "utf-32"),
])
def test_a_body_that_is_not_json_in_utf8_is_415_and_stores_nothing(
        admin: httpx.Client, content_type: str | None, encoding: str) -> None:
    name = unique("Typed")
    body = json.dumps({"name": name}).encode(encoding)
    problem = assert_problem(_post(admin, "/api/branches", body, content_type), 415)
    assert "application/json" in problem["detail"] or "UTF-8" in problem["detail"]
    listed = admin.get("/api/branches", params={"pageSize": 100}).json()
    assert name not in json.dumps(listed)


def test_json_with_a_utf8_charset_and_any_case_is_taken(admin: httpx.Client) -> None:
    for content_type in ("application/json; charset=utf-8", "Application/JSON; charset=\"UTF-8\""):
        response = _post(admin, "/api/branches", json.dumps({"name": unique("Cased")}).encode(), content_type)
        assert response.status_code == 201, response.text


@pytest.mark.parametrize("path", ["/identity/login", "/identity/refresh", "/identity/logout"])
def test_the_identity_endpoints_want_json_too(anonymous: httpx.Client, path: str) -> None:
    body = json.dumps({"username": ADMIN[0], "password": ADMIN[1]}).encode()
    assert_problem(_post(anonymous, path, body, "text/plain"), 415)


def test_a_key_sent_twice_is_400_at_any_depth(admin: httpx.Client) -> None:
    twice = b'{"name": "' + unique("Twice").encode() + b'", "name": "' + unique("Other").encode() + b'"}'
    problem = assert_problem(_post(admin, "/api/branches", twice, "application/json"), 400)
    assert "'name' appears twice" in problem["detail"]
    branch = admin.post("/api/branches", json={"name": unique("Deep")}).json()
    client = admin.post("/api/clients", json={"name": unique("Deep"), "branchId": branch["id"]}).json()
    nested = (b'{"name": "S", "rates": [{"role": "Picker", "role": "Packer", "hourlyRate": 12}]}')
    problem = assert_problem(_post(admin, f"/api/clients/{client['id']}/sites", nested, "application/json"), 400)
    assert "'role' appears twice" in problem["detail"]
    login = json.dumps({"username": ADMIN[0], "password": "wrong"})[:-1] + f', "password": "{ADMIN[1]}"}}'
    assert_problem(_post(admin, "/identity/login", login.encode(), "application/json"), 400)


def test_a_replay_of_a_key_sent_twice_is_not_the_body_without_its_twin(admin: httpx.Client) -> None:
    name = unique("Replay")
    key = {"Idempotency-Key": unique("key"), "Content-Type": "application/json"}
    twice = json.dumps({"name": "first"})[:-1] + f', "name": "{name}"}}'
    assert admin.post("/api/branches", content=twice, headers=key).status_code == 400
    assert admin.post("/api/branches", content=json.dumps({"name": name}), headers=key).status_code == 422


@pytest.mark.parametrize("value", ["\u0661", "1_0", "+1", " 1", "1 ", "-1", "0", "1.0", "1e1", "", "0x1",
                                   "\uff11", "12345678901234567890", "2147483648", "²"])
@pytest.mark.parametrize("name", ["pageNumber", "pageSize"])
def test_a_page_parameter_that_is_not_plain_digits_in_range_is_400(admin: httpx.Client, name: str,
                                                                    value: str) -> None:
    for path in ("/api/branches", "/api/clients"):
        assert_problem(admin.get(path, params={name: value}), 400, name)


def test_plain_digits_in_range_are_served(admin: httpx.Client) -> None:
    page = admin.get("/api/branches", params={"pageNumber": "2147483647", "pageSize": "2147483647"})
    assert page.status_code == 200, page.text
    assert (page.json()["data"], page.json()["pageSize"]) == ([], 100)
    assert admin.get("/api/branches", params={"pageNumber": "01", "pageSize": "007"}).json()["pageSize"] == 7


# ---- G22: logout ---------------------------------------------------------------------------------

def test_logout_revokes_every_token_of_that_login_and_no_other(sandbox: SandboxServer) -> None:
    with httpx.Client(base_url=sandbox.url, timeout=10) as http:
        first, other = login_token(sandbox, *ADMIN), login_token(sandbox, *ADMIN)
        rotated = http.post("/identity/refresh", json={"accessToken": first["accessToken"],
                                                        "refreshToken": first["refreshToken"]}).json()
        answer = http.post("/identity/logout", json={"refreshToken": rotated["refreshToken"]})
        assert (answer.status_code, answer.content) == (204, b"")
        for access in (first["accessToken"], rotated["accessToken"]):
            assert_problem(http.get("/api/branches", headers={"Authorization": f"Bearer {access}"}), 401)
        again = http.post("/identity/refresh", json={"accessToken": rotated["accessToken"],
                                                      "refreshToken": rotated["refreshToken"]})
        assert "revoked" in assert_problem(again, 401)["detail"]
        kept = http.get("/api/branches", headers={"Authorization": f"Bearer {other['accessToken']}"})
        assert kept.status_code == 200  # another login of the same user is another family


def test_logout_of_an_unknown_or_spent_token_is_204_too(sandbox: SandboxServer) -> None:
    with httpx.Client(base_url=sandbox.url, timeout=10) as http:
        assert http.post("/identity/logout", json={"refreshToken": "wsr_unknown"}).status_code == 204
        pair = login_token(sandbox, *ADMIN)
        assert http.post("/identity/logout", json={"refreshToken": pair["refreshToken"]}).status_code == 204
        assert http.post("/identity/logout", json={"refreshToken": pair["refreshToken"]}).status_code == 204
        assert_problem(http.post("/identity/logout", json={}), 400, "refreshToken")
        assert_problem(http.post("/identity/logout", json={"refreshToken": "x", "other": 1}), 400, "other")


def test_a_deployment_without_logout_answers_404(sandbox_factory: object) -> None:
    server = sandbox_factory(quirks=["no-logout"])  # type: ignore[operator]
    pair = login_token(server, *ADMIN)
    assert_problem(httpx.post(f"{server.url}/identity/logout", json={"refreshToken": pair["refreshToken"]}), 404)
