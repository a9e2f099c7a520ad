"""The PostgreSQL backend through database faults (issue 26): dropped connections (pg_terminate_backend, a
restart with -m immediate) never fail a refresh; a stopped server is a quick 503 with Retry-After while what
needs no database is served, and the first request after it is back is answered; commits are durable
unless --fast-commit.

Restarts and stops use a cluster of this module's own (not the session's, which other tests share)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers, login_token, throwaway_cluster
from tests.sandbox.test_staging import _serve, _stop


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Any]:
    yield from throwaway_cluster()  # restarted and stopped here: not the session's shared cluster


def _kill_sandbox_connections(database: str) -> int:
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        row = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND application_name = 'wfctl-sandbox'").fetchone()
    assert row is not None
    return int(row[0])


def _refresh(server: SandboxServer, pair: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}/identity/refresh", timeout=30,
                      json={"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]})


def test_a_refresh_right_after_the_connection_was_killed(postgres: Any) -> None:
    """pg_terminate_backend between requests, five times: each next refresh is answered 200 at once (it was
    a 500 until some read happened to reconnect), and the new pair works."""
    database = postgres.new_database()
    server = SandboxServer(database)
    try:
        pair = login_token(server, *ADMIN)
        for _ in range(5):
            assert _kill_sandbox_connections(database) == 1
            started = time.monotonic()
            answer = _refresh(server, pair)
            assert answer.status_code == 200, answer.text
            assert time.monotonic() - started < 2
            pair = answer.json()
            assert httpx.get(f"{server.url}/api/agency/",
                             headers={"Authorization": f"Bearer {pair['accessToken']}"}).status_code == 200
        assert _kill_sandbox_connections(database) == 1
        assert login_token(server, *ADMIN)["accessToken"]  # a login is a transaction too
        assert server.reuse_detections() == 0
    finally:
        server.stop()


def test_a_refresh_right_after_an_immediate_restart(own_cluster: Any) -> None:
    """`pg_ctl restart -m immediate` (every backend killed, crash recovery): the first refresh after it is
    answered 200, and so is the first write."""
    server = SandboxServer(own_cluster.new_database())
    try:
        pair = login_token(server, *ADMIN)
        headers = auth_headers(server, *ADMIN)
        own_cluster.restart("immediate")
        answer = _refresh(server, pair)
        assert answer.status_code == 200, answer.text
        created = httpx.post(f"{server.url}/api/branches", headers=headers, json={"name": f"After {uuid.uuid4()}"})
        assert created.status_code == 201, created.text
    finally:
        server.stop()


def test_a_transaction_that_lost_its_connection_runs_again_once(postgres: Any) -> None:
    """The connection dies inside a transaction, before COMMIT: nothing of it is stored, and Store.atomic runs
    it again on a new connection (a real connection killed by the server, not a mock)."""
    from wfctl.sandbox.pgstore import PostgresStore

    store = PostgresStore(postgres.new_database())
    kind = f"probe-{uuid.uuid4()}"
    attempts: list[int] = []

    def work(db: Any) -> str:
        attempts.append(1)
        db.execute("INSERT INTO security_events (kind, at) VALUES (?, ?)", (kind, str(len(attempts))))
        if len(attempts) == 1:
            db.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return "done"

    try:
        assert store.atomic(work) == "done"
        rows = store.db.execute("SELECT at FROM security_events WHERE kind = ?", (kind,)).fetchall()
    finally:
        store.close()
    assert len(attempts) == 2
    assert [row[0] for row in rows] == ["2"]  # the first attempt's insert was never committed


def test_while_postgresql_is_down_a_quick_503_then_at_once_served_again(own_cluster: Any) -> None:
    server = SandboxServer(own_cluster.new_database())
    try:
        headers = auth_headers(server, *ADMIN)
        pair = login_token(server, *ADMIN)
        own_cluster.stop_server()
        try:
            answers: list[tuple[str, httpx.Response, float]] = []

            def call(method: str, path: str, **options: Any) -> None:
                started = time.monotonic()
                response = httpx.request(method, f"{server.url}{path}", timeout=60, **options)
                answers.append((path, response, time.monotonic() - started))

            calls = [("GET", "/api/branches", {"headers": headers}),
                     ("POST", "/identity/refresh", {"json": {"accessToken": pair["accessToken"],
                                                             "refreshToken": pair["refreshToken"]}}),
                     ("POST", "/identity/login", {"json": {"username": ADMIN[0], "password": ADMIN[1]}}),
                     ("GET", "/api/agency/", {"headers": headers})] * 3 + [("GET", "/openapi.json", {})] * 3
            threads = [threading.Thread(target=call, args=(m, p), kwargs=o) for m, p, o in calls]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len(answers) == len(calls)
            for path, response, seconds in answers:
                assert seconds < 3, (path, seconds)
                if path == "/openapi.json":
                    assert response.status_code == 200
                    continue
                assert response.status_code == 503, (path, response.text)
                assert response.headers["retry-after"] == "1"
                assert response.headers["content-type"].startswith("application/problem+json")
                assert response.json()["detail"] == ("the sandbox's database is unavailable (restarting or down); "
                                                     "retry shortly")
                assert own_cluster.password not in response.text
        finally:
            own_cluster.start_server()
        back = time.monotonic()
        while True:  # within the Retry-After the 503s named
            answer = httpx.get(f"{server.url}/api/branches", headers=headers, timeout=10)
            if answer.status_code == 200 or time.monotonic() - back > 1.5:
                break
            time.sleep(0.05)
        assert answer.status_code == 200, answer.text
        refreshed = _refresh(server, pair)  # the refresh that got a 503 had not rotated anything
        assert refreshed.status_code == 200, refreshed.text
        assert server.reuse_detections() == 0
    finally:
        server.stop()


@pytest.mark.parametrize("fast", [False, True])
def test_commits_are_durable_unless_fast_commit(postgres: Any, fast: bool) -> None:
    """What the sandbox's own session reports: synchronous_commit on by default, off with fast_commit."""
    from wfctl.sandbox.app import create_app

    app = create_app(postgres.new_database(), seed=False, fast_commit=fast)
    try:
        setting = app.state.store.db.execute("SHOW synchronous_commit").fetchone()[0]
    finally:
        app.state.store.close()
    assert setting == ("off" if fast else "on")


def test_serve_fast_commit(cli: Cli, postgres: Any, tmp_path: Any) -> None:
    refused = cli("sandbox", "serve", "--port", "0", "--db", str(tmp_path / "x.db"), "--fast-commit")
    assert refused.exit_code == 2
    assert refused.stderr == ("error: --fast-commit is for a PostgreSQL --database (SQLite commits are durable "
                              "against a crash of the sandbox as they are)\n")
    help_text = cli("sandbox", "serve", "--help").stdout
    assert "--fast-commit" in help_text and "never corrupted" in " ".join(help_text.split())
    for extra, said in (([], False), (["--fast-commit"], True)):
        proc, _ = _serve("--database", postgres.new_database(), *extra)
        try:
            banner = "".join(proc.banner)  # type: ignore[attr-defined]
        finally:
            assert _stop(proc) == 0
        assert ("fast commits (a database server crash can lose the last second of writes)" in banner) is said
