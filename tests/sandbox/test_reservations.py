"""Issue 45: an Idempotency-Key reserved by a request whose holder is gone is taken over at once, not
waited on for a minute; one whose holder is still at work is waited on as before (G20).

A reservation names its holder: the sandbox process, and on PostgreSQL its database session. Gone: a
process that no longer runs, a session that ended (a database restart, a lost connection, a killed
worker: its uncommitted create went with it), or this very process when none of its requests is
answering the key any more (its request failed with the database and could not release it). The
reservations are written here as a sandbox writes them, then a request with the key is timed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import unique


@pytest.fixture
def server(sandbox_factory: Any, monkeypatch: pytest.MonkeyPatch) -> SandboxServer:
    from wfctl.sandbox import idempotency

    monkeypatch.setattr(idempotency, "IDEMPOTENCY_WAIT", 1.0)  # a held key's 503 in 1 s, not 10
    return sandbox_factory()  # type: ignore[no-any-return]


def _create(server: SandboxServer, key: str, holder: str) -> tuple[httpx.Response, float]:
    """A create with `key`, after a reservation of the key for it by `holder`, as a sandbox leaves one when
    its request ends unanswered: the answer, and how long it took."""
    from wfctl.sandbox.idempotency import _fingerprint

    token = login_token(server, *ADMIN)["accessToken"]
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        client_id = client.get("/api/clients", params={"pageSize": 1}).json()["data"][0]["id"]
        path, body = f"/api/clients/{client_id}/sites", {"name": unique("Site")}
        store = server.app.state.store
        user = store.db.execute("SELECT id FROM users WHERE username = ?", (ADMIN[0],)).fetchone()[0]
        store.db.execute("INSERT INTO idempotency_keys (user_id, key, fingerprint, status, media_type, body, "
                         "created_at) VALUES (?, ?, ?, 0, ?, ?, ?)",
                         (user, key, _fingerprint(path, json.dumps(body).encode()), holder, b"", time.time()))
        started = time.monotonic()
        answer = client.post(path, json=body, headers={"Idempotency-Key": key})
        return answer, time.monotonic() - started


def _gone_process() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_reservation_of_this_process_that_no_request_answers_is_taken_over(server: SandboxServer) -> None:
    key = str(uuid.uuid4())
    answer, took = _create(server, key, server.app.state.store.holder())
    assert answer.status_code == 201, answer.text
    assert took < 1


def test_a_reservation_of_a_gone_holder_is_taken_over_at_once(server: SandboxServer) -> None:
    """SQLite: a process that no longer runs. PostgreSQL: a database session that ended (the sandbox's
    own process, whatever it is, is not asked: its session took its uncommitted create with it)."""
    store = server.app.state.store
    key = str(uuid.uuid4())
    if server.db_path.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(server.db_path) as session:
            pid, started = session.execute("SELECT pg_backend_pid(), backend_start::text FROM pg_stat_activity "
                                           "WHERE pid = pg_backend_pid()").fetchone()  # type: ignore[misc]
        holder = f"{_gone_process()}.0123456789ab/{pid}@{started}"
        for _ in range(100):  # the session's server process ends a moment after the connection closes
            if store.holder_gone(holder):
                break
            time.sleep(0.02)
    else:
        holder = f"{_gone_process()}.0123456789ab"
    answer, took = _create(server, key, holder)
    assert answer.status_code == 201, answer.text
    assert took < 1


def test_a_reservation_whose_holder_is_at_work_is_waited_on(server: SandboxServer) -> None:
    """A live holder (another process; on PostgreSQL, a session that is still open) keeps its key: the
    request waits for its answer, then says to retry (503) rather than apply the create a second time."""
    key = str(uuid.uuid4())
    if server.db_path.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(server.db_path) as session:
            pid, started = session.execute("SELECT pg_backend_pid(), backend_start::text FROM pg_stat_activity "
                                           "WHERE pid = pg_backend_pid()").fetchone()  # type: ignore[misc]
            answer, took = _create(server, key, f"1.0123456789ab/{pid}@{started}")
    else:
        answer, took = _create(server, key, "1.0123456789ab")  # pid 1: a process that runs
    assert answer.status_code == 503, answer.text
    assert answer.json()["detail"] == "a request with this Idempotency-Key is still being answered; retry it"
    assert 1 <= took < 3


def test_a_reservation_its_failed_request_could_not_release_is_released_by_the_next(
        backend: str, new_database: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers on one PostgreSQL database. On worker A a create fails with the database (disk full)
    and so does the release of its key; the key's next request, on worker B, would wait on A, whose
    session is alive: A's next request releases what it could not, and B's retry is applied at once."""
    if backend != "postgresql":
        pytest.skip("two workers on one database are PostgreSQL's")
    from wfctl.sandbox import idempotency
    from wfctl.sandbox.injectors import DISK_FULL, DatabaseFault

    monkeypatch.setattr(idempotency, "IDEMPOTENCY_WAIT", 1.0)
    database = new_database()
    a, b = SandboxServer(database), SandboxServer(database)
    try:
        fault = DatabaseFault(a)
        token = login_token(a, *ADMIN)["accessToken"]
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}
        client_id = httpx.get(f"{a.url}/api/clients", headers=headers, params={"pageSize": 1}).json()["data"][0]["id"]
        path, body = f"/api/clients/{client_id}/sites", {"name": unique("Site")}
        fault.start(DISK_FULL, "sites:INSERT", "idempotency_keys:DELETE")
        try:
            assert httpx.post(a.url + path, json=body, headers=headers, timeout=30).status_code == 503
        finally:
            fault.stop()
        held = httpx.post(b.url + path, json=body, headers=headers, timeout=30)
        assert held.status_code == 503 and "still being answered" in held.json()["detail"]
        other = {**headers, "Idempotency-Key": str(uuid.uuid4())}
        assert httpx.post(a.url + path, json={"name": unique("Site")}, headers=other, timeout=30).status_code == 201
        started = time.monotonic()
        answer = httpx.post(b.url + path, json=body, headers=headers, timeout=30)
        assert answer.status_code == 201 and answer.json()["name"] == body["name"], answer.text
        assert time.monotonic() - started < 1
    finally:
        a.stop()
        b.stop()


def test_a_server_that_starts_releases_what_gone_holders_reserved(new_database: Any) -> None:
    """A worker started again (or any server on the database) releases at its start the reservations of
    holders that are gone, and leaves a live holder's alone."""
    database = new_database()
    first = SandboxServer(database)
    try:
        store = first.app.state.store
        user = store.db.execute("SELECT id FROM users WHERE username = ?", (ADMIN[0],)).fetchone()[0]
        live = store.holder()  # the first server's own: it still runs
        for key, holder in (("gone", f"{_gone_process()}.0123456789ab"), ("live", live)):
            store.db.execute("INSERT INTO idempotency_keys (user_id, key, fingerprint, status, media_type, body, "
                             "created_at) VALUES (?, ?, 'f', 0, ?, ?, ?)", (user, key, holder, b"", time.time()))
        second = SandboxServer(database)
        second.stop()
        left = store.db.execute("SELECT key FROM idempotency_keys WHERE user_id = ? AND status = 0", (user,))
        assert [row[0] for row in left.fetchall()] == ["live"]
    finally:
        first.stop()
