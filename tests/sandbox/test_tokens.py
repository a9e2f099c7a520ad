"""Login, refresh with rotation, reuse detection (the whole family revoked), expiry (G1-G4)."""

from __future__ import annotations

import time

import httpx

from tests.fixtures.sandbox import ADMIN, STAFF, SandboxServer, login_token
from tests.sandbox.helpers import assert_problem
from wfctl.sandbox.store import open_store


def _refresh(server: SandboxServer, pair: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{server.url}/identity/refresh", timeout=10,
                      json={"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]})


def _agency(server: SandboxServer, access_token: str) -> httpx.Response:
    return httpx.get(f"{server.url}/api/agency/", headers={"Authorization": f"Bearer {access_token}"}, timeout=10)


def test_refresh_rotates_both_tokens(sandbox: SandboxServer) -> None:
    pair = login_token(sandbox, *ADMIN)
    chain = [pair]
    for _ in range(3):
        response = _refresh(sandbox, chain[-1])
        assert response.status_code == 200, response.text
        new = response.json()
        assert set(new) == {"accessToken", "refreshToken", "tokenType", "expiresIn"}
        assert new["accessToken"] != chain[-1]["accessToken"] and new["refreshToken"] != chain[-1]["refreshToken"]
        assert _agency(sandbox, new["accessToken"]).status_code == 200
        chain.append(new)


def test_a_reused_refresh_token_revokes_the_whole_family(sandbox: SandboxServer) -> None:
    before = sandbox.reuse_detections()
    unrelated = login_token(sandbox, *STAFF)
    first = login_token(sandbox, *ADMIN)
    second = _refresh(sandbox, first).json()
    third = _refresh(sandbox, second).json()
    assert _agency(sandbox, third["accessToken"]).status_code == 200

    # `first`'s refresh token is spent: presenting it again is reuse.
    assert_problem(_refresh(sandbox, first), 401)
    assert sandbox.reuse_detections() == before + 1
    # Every token of that login is revoked: the newest access token and the newest refresh token too.
    for pair in (first, second, third):
        assert_problem(_agency(sandbox, pair["accessToken"]), 401)
    assert_problem(_refresh(sandbox, third), 401)
    assert sandbox.reuse_detections() == before + 1  # a revoked family is not a new detection
    # Another login (another family) is untouched.
    assert _agency(sandbox, unrelated["accessToken"]).status_code == 200
    assert _refresh(sandbox, unrelated).status_code == 200


def test_expired_access_tokens_are_refused_and_refreshed(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory(access_ttl=1)
    pair = login_token(server, *ADMIN)
    assert pair["expiresIn"] == 1
    assert _agency(server, pair["accessToken"]).status_code == 200
    time.sleep(1.2)
    response = _agency(server, pair["accessToken"])
    assert_problem(response, 401)
    assert response.headers["www-authenticate"] == "Bearer"
    # The refresh request carries the expired access token and the refresh token (G3).
    response = _refresh(server, pair)
    assert response.status_code == 200
    assert _agency(server, response.json()["accessToken"]).status_code == 200


def test_refresh_needs_the_matching_access_token(sandbox: SandboxServer) -> None:
    before = sandbox.reuse_detections()
    mine, other = login_token(sandbox, *ADMIN), login_token(sandbox, *ADMIN)
    mixed = {"accessToken": other["accessToken"], "refreshToken": mine["refreshToken"]}
    assert_problem(_refresh(sandbox, mixed), 401)
    assert_problem(_refresh(sandbox, {"accessToken": "x", "refreshToken": "wsr_unknown"}), 401)
    assert sandbox.reuse_detections() == before
    assert _refresh(sandbox, mine).status_code == 200  # not spent by the failed attempts


def test_refresh_body_rules(sandbox: SandboxServer) -> None:
    url = f"{sandbox.url}/identity/refresh"
    assert_problem(httpx.post(url, json={"refreshToken": "x"}, timeout=10), 400, "accessToken")
    assert_problem(httpx.post(url, json={"accessToken": "x"}, timeout=10), 400, "refreshToken")
    assert_problem(httpx.post(url, json={"accessToken": "x", "refreshToken": "y", "z": 1}, timeout=10), 400, "z")


def test_tokens_and_passwords_are_stored_only_as_hashes(sandbox: SandboxServer) -> None:
    pair = login_token(sandbox, *ADMIN)
    store = open_store(sandbox.db_path)
    try:
        tables = ("agencies", "users", "token_families", "refresh_tokens", "access_tokens", "security_events",
                  "idempotency_keys", "sandbox_meta")
        dump = "\n".join(repr(store.db.execute(f"SELECT * FROM {table}").fetchall()) for table in tables)
        families = store.db.execute("SELECT created_at, expires_at FROM token_families").fetchall()
        hashes = [row[0] for row in store.db.execute("SELECT password_hash FROM users").fetchall()]
    finally:
        store.close()
    assert pair["refreshToken"] not in dump and pair["accessToken"] not in dump
    assert "sandbox-admin" not in dump
    assert hashes and all(h.startswith("scrypt$") for h in hashes)
    # Refresh tokens live 30 days from login (G4).
    assert all(abs((exp - created) - 30 * 86400) < 1 for created, exp in families)
