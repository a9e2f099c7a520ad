"""Issue 45: a database that cannot serve (disk full, read-only, too many connections, a transaction aborted
past its retries) is an outage, not a fault of the request: `503` with `Retry-After`, one line in the log
and no traceback, the kept-alive connection kept. Any other fault is a `500` that says `Connection: close`.

Each on SQLite and PostgreSQL (the `backend` fixture), the faults made by the database itself
(wfctl/sandbox/injectors/database.py)."""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import unique
from wfctl.sandbox.injectors import DatabaseFault

UNAVAILABLE = "the sandbox's database is unavailable (restarting or down); retry shortly"


class Logged(logging.Handler):
    """What the sandbox writes to uvicorn's error log (the one `wfctl sandbox serve` shows), at serve's
    level (warning): `listen()` once the server is started (its logging configuration replaces the logger's handlers and level)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def listen(self) -> list[logging.LogRecord]:
        logger = logging.getLogger("uvicorn.error")
        logger.setLevel(logging.WARNING)
        logger.addHandler(self)
        return self.records


@pytest.fixture
def log() -> Iterator[Logged]:
    handler = Logged()
    logger = logging.getLogger("uvicorn.error")
    level = logger.level
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


class Connection:
    """One kept-alive HTTP/1.1 connection to a server: `send` tells whether the server kept it."""

    def __init__(self, server: SandboxServer) -> None:
        parts = urlsplit(server.url)
        self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        self.token = login_token(server, *ADMIN)["accessToken"]
        self.conn.connect()
        self.sock = self.conn.sock

    def send(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        answer = json.loads(data) if data else None
        return response.status, {k.lower(): v for k, v in response.getheaders()}, answer

    def same_socket(self) -> bool:
        return self.conn.sock is self.sock and self.sock is not None


def _first_client(conn: Connection) -> str:
    status, _, page = conn.send("GET", "/api/clients?pageSize=1")
    assert status == 200, page
    return str(page["data"][0]["id"])


def _assert_unavailable(status: int, headers: dict[str, str], body: Any) -> None:
    assert status == 503, body
    assert headers["retry-after"] == "1"
    assert headers["content-type"] == "application/problem+json"
    assert body["detail"] == UNAVAILABLE
    assert headers.get("connection", "").lower() != "close"


def _one_line_each(records: list[logging.LogRecord], count: int, cause: str) -> None:
    lines = [r for r in records if "the database is unavailable" in r.getMessage()]
    assert len(lines) == count, [r.getMessage() for r in records]
    for record in lines:
        assert record.exc_info is None and "\n" not in record.getMessage()
        assert cause in record.getMessage(), record.getMessage()
    assert not [r for r in records if r.exc_info or "Exception in ASGI application" in r.getMessage()]


def test_a_full_disk_is_a_503_and_the_connection_is_kept(sandbox_factory: Any,
                                                        log: Logged) -> None:
    server = sandbox_factory()
    server_log = log.listen()
    fault = DatabaseFault(server)
    conn = Connection(server)
    client_id = _first_client(conn)
    with fault.disk_full():
        # SQLite fills the file's last page first: the first answer that is not 201 is the full disk's
        for _ in range(200):
            status, headers, body = conn.send("POST", f"/api/clients/{client_id}/sites", {"name": unique("Site")})
            if status != 201:
                break
        _assert_unavailable(status, headers, body)
        assert conn.same_socket()
        status, _, _ = conn.send("GET", f"/api/clients/{client_id}")  # reads go on meanwhile
        assert status == 200 and conn.same_socket()
    _one_line_each(server_log, 1, "disk full" if fault.postgres is False else "DiskFull (53100)")
    name = unique("Site")
    status, _, body = conn.send("POST", f"/api/clients/{client_id}/sites", {"name": name})
    assert status == 201 and body["name"] == name and conn.same_socket()


def test_a_read_only_database_is_a_503_with_the_key_released(sandbox_factory: Any,
                                                             log: Logged) -> None:
    """A create with an Idempotency-Key on a read-only database: 503, and the same key is applied once the
    database is writable again (nothing of the key was left behind to wait on)."""
    server = sandbox_factory()
    server_log = log.listen()
    fault = DatabaseFault(server)
    conn = Connection(server)
    client_id = _first_client(conn)
    name = unique("Site")
    key_headers = {"Idempotency-Key": unique("key")}
    with fault.read_only():
        status, headers, body = _keyed(conn, f"/api/clients/{client_id}/sites", {"name": name}, key_headers)
        _assert_unavailable(status, headers, body)
        status, headers, body = conn.send("PUT", f"/api/clients/{client_id}", {"phone": "0161 496 0000"})
        _assert_unavailable(status, headers, body)
        assert conn.same_socket()
    _one_line_each(server_log, 2, "read-only" if not fault.postgres else "ReadOnlySqlTransaction (25006)")
    started = time.monotonic()
    status, _, body = _keyed(conn, f"/api/clients/{client_id}/sites", {"name": name}, key_headers)
    assert status == 201 and body["name"] == name, body
    assert time.monotonic() - started < 2


def _keyed(conn: Connection, path: str, body: Any, extra: dict[str, str]) -> tuple[int, dict[str, str], Any]:
    headers = {"Authorization": f"Bearer {conn.token}", "Content-Type": "application/json", **extra}
    conn.conn.request("POST", path, body=json.dumps(body), headers=headers)
    response = conn.conn.getresponse()
    data = response.read()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(data) if data else None


def test_any_other_fault_is_a_500_that_says_connection_close(sandbox_factory: Any,
                                                             log: Logged) -> None:
    """A table gone (a fault of the sandbox, not of the database's state): 500, and the server says it
    closes the connection rather than closing it under the client."""
    server = sandbox_factory()
    server_log = log.listen()
    conn = Connection(server)
    client_id = _first_client(conn)
    _rename_sites(server, "sites", "sites_gone")
    try:
        status, headers, body = conn.send("GET", f"/api/clients/{client_id}/sites")
    finally:
        _rename_sites(server, "sites_gone", "sites")
    assert status == 500 and body["detail"].startswith("internal error: ")
    assert headers["connection"] == "close"
    assert [r.getMessage() for r in server_log if r.exc_info] == [f"GET /api/clients/{client_id}/sites: 500, "
                                                                  "internal error"]


def _rename_sites(server: SandboxServer, old: str, new: str) -> None:
    if server.db_path.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(server.db_path, autocommit=True) as db:
            db.execute(f"ALTER TABLE {old} RENAME TO {new}")
    else:
        server.app.state.store.db.execute(f"ALTER TABLE {old} RENAME TO {new}")


def test_postgresql_too_many_connections_and_conflicts_past_their_retries(
        backend: str, sandbox_factory: Any, log: Logged) -> None:
    """A serialization failure on every try (40001: run three times, then given up), too many connections
    said by a pooler on a statement (53300), and a database refusing connections when the sandbox
    reconnects: each a 503, one log line, no traceback."""
    if backend != "postgresql":
        pytest.skip("PostgreSQL's: SQLite has no connections to run out of, nor serialization failures")
    import psycopg

    server = sandbox_factory()
    server_log = log.listen()
    fault = DatabaseFault(server)
    conn = Connection(server)
    client_id = _first_client(conn)
    for state in ("40001", "53300"):
        with fault.sqlstate(state):
            status, headers, body = conn.send("PUT", f"/api/clients/{client_id}", {"phone": "0161 496 0001"})
            _assert_unavailable(status, headers, body)
    database = urlsplit(server.db_path).path.lstrip("/")
    with psycopg.connect(server.db_path.replace(f"/{database}", "/postgres"), autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        try:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                          "AND application_name = 'wfctl-sandbox'", (database,))
            status, headers, body = conn.send("GET", f"/api/clients/{client_id}")
            _assert_unavailable(status, headers, body)
        finally:
            admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
    time.sleep(1.1)  # the store tries to connect again once its Retry-After has passed
    status, _, _ = conn.send("GET", f"/api/clients/{client_id}")
    assert status == 200 and conn.same_socket()
    messages = [r.getMessage() for r in server_log]
    assert sum("SerializationFailure (40001)" in m for m in messages) == 1, messages
    assert sum("TooManyConnections (53300)" in m for m in messages) == 1, messages
    assert sum("not currently accepting connections" in m for m in messages) == 1, messages
    assert not [r for r in server_log if r.exc_info]
