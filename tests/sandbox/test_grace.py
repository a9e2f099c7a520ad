"""G3's grace window: a refresh whose answer was lost, sent again within 15 minutes with the same access
token, gets the same new pair (on any server of the database); outside the window, or with another access
token, or once the new pair was used, it is a reuse that revokes the login."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import assert_problem
from wfctl.sandbox.auth import REFRESH_GRACE
from wfctl.sandbox.store import open_store


def _refresh(server: SandboxServer, access: str, refresh: str) -> httpx.Response:
    return httpx.post(f"{server.url}/identity/refresh", json={"accessToken": access, "refreshToken": refresh},
                      timeout=10)


def _agency(server: SandboxServer, access: str) -> int:
    return httpx.get(f"{server.url}/api/agency/", headers={"Authorization": f"Bearer {access}"}).status_code


def _age_rotations(database: str, seconds: float) -> None:
    """Move every rotation of the database `seconds` into the past (as if that much time had gone by)."""
    store = open_store(database)
    try:
        store.db.execute("UPDATE refresh_tokens SET spent_at = spent_at - ? WHERE spent_at IS NOT NULL", (seconds,))
    finally:
        store.close()


def test_a_lost_answer_is_answered_again_with_the_same_pair(sandbox_factory: Callable[..., SandboxServer]) -> None:
    from wfctl.api.net.retry import OUTAGE_SECONDS
    from wfctl.api.session.store import REFRESH_GRACE as CLI_GRACE
    from wfctl.api.session.store import REFRESH_RESEND_WINDOW

    assert REFRESH_GRACE == 900  # a command riding out a 60 s outage, and the next one minutes later
    # The CLI resends within the same window, less a margin, and rides out a shorter outage than that.
    assert CLI_GRACE == REFRESH_GRACE and REFRESH_RESEND_WINDOW == REFRESH_GRACE - 60 > OUTAGE_SECONDS
    one = sandbox_factory()
    two = sandbox_factory(db_path=one.db_path)  # another worker of the same database
    first = login_token(one, *ADMIN)
    answer = _refresh(one, first["accessToken"], first["refreshToken"])
    assert answer.status_code == 200
    second = answer.json()
    # The answer was lost: the client sends the same request again, here to the other server.
    for server in (two, one):
        again = _refresh(server, first["accessToken"], first["refreshToken"])
        assert again.status_code == 200, again.text
        assert again.json() == second
    assert _agency(one, second["accessToken"]) == 200
    _age_rotations(one.db_path, REFRESH_GRACE - 5)  # still inside the window
    assert _refresh(two, first["accessToken"], first["refreshToken"]).json() == second
    assert one.reuse_detections() == 0
    # The new pair rotates as usual; once it is used, the old token's answer is not given again.
    third = _refresh(one, second["accessToken"], second["refreshToken"]).json()
    assert _agency(one, third["accessToken"]) == 200
    assert_problem(_refresh(two, first["accessToken"], first["refreshToken"]), 401)
    assert one.reuse_detections() == 1
    assert _agency(one, third["accessToken"]) == 401


def test_outside_the_window_reuse_revokes_the_login(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory()
    first = login_token(server, *ADMIN)
    second = _refresh(server, first["accessToken"], first["refreshToken"]).json()
    _age_rotations(server.db_path, REFRESH_GRACE + 1)
    body = assert_problem(_refresh(server, first["accessToken"], first["refreshToken"]), 401)
    assert body["detail"] == "this refresh token was already used; every token of this login is revoked"
    assert server.reuse_detections() == 1
    assert _agency(server, second["accessToken"]) == 401
    assert_problem(_refresh(server, second["accessToken"], second["refreshToken"]), 401)


def test_within_the_window_another_access_token_is_reuse(sandbox_factory: Callable[..., SandboxServer]) -> None:
    """Only the request that was sent (the same access token with the same refresh token) is answered again."""
    server = sandbox_factory()
    first = login_token(server, *ADMIN)
    second = _refresh(server, first["accessToken"], first["refreshToken"]).json()
    assert_problem(_refresh(server, second["accessToken"], first["refreshToken"]), 401)
    assert server.reuse_detections() == 1
    assert _agency(server, second["accessToken"]) == 401


def test_the_kept_answer_is_not_readable_in_the_database(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory()
    first = login_token(server, *ADMIN)
    second = _refresh(server, first["accessToken"], first["refreshToken"]).json()
    store = open_store(server.db_path)
    try:
        rows = store.db.execute("SELECT * FROM refresh_tokens").fetchall()
    finally:
        store.close()
    dump = repr(rows) + "".join(bytes(value).decode("latin-1") for row in rows for value in row
                                if isinstance(value, (bytes, memoryview)))
    for token in (first["accessToken"], first["refreshToken"], second["accessToken"], second["refreshToken"]):
        assert token not in dump and token[4:20] not in dump
