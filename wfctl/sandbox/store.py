"""SQLite storage: one connection per process, WAL, foreign keys on, short synchronous calls.

The handlers run on one event loop and never await while a transaction is open, so within a process
every write is atomic with respect to every other request; across processes `BEGIN IMMEDIATE` and a
busy timeout serialise writers. Uniqueness (G12) is enforced by UNIQUE indexes on a case-folded name
key, so a duplicate under any concurrency is an IntegrityError that becomes a 409, never a 500.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

SCHEMA = """
CREATE TABLE IF NOT EXISTS agencies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    work_week_start TEXT NOT NULL DEFAULT 'Monday',
    calendar_year_start TEXT NOT NULL,
    holiday_year_start TEXT NOT NULL,
    holiday_cap_hours REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS branches (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    created_on TEXT NOT NULL,
    modified_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS branches_name ON branches(agency_id, name_key);
CREATE INDEX IF NOT EXISTS branches_order ON branches(agency_id, created_on, id);
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'manager', 'staff')),
    branch_id TEXT REFERENCES branches(id) ON DELETE RESTRICT
);
CREATE TABLE IF NOT EXISTS clients (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    branch_id TEXT NOT NULL REFERENCES branches(id) ON DELETE RESTRICT,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    billing_address TEXT NOT NULL DEFAULT '',
    created_on TEXT NOT NULL,
    updated_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS clients_name ON clients(branch_id, name_key);
CREATE INDEX IF NOT EXISTS clients_order ON clients(agency_id, created_on, id);
CREATE INDEX IF NOT EXISTS clients_branch_order ON clients(branch_id, created_on, id);
CREATE TABLE IF NOT EXISTS sites (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    branch_id TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE RESTRICT,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    assessment_required INTEGER NOT NULL DEFAULT 0,
    departments TEXT NOT NULL DEFAULT '[]',
    rates TEXT NOT NULL DEFAULT '[]',
    banned_workers TEXT NOT NULL DEFAULT '[]',
    documents TEXT NOT NULL DEFAULT '[]',
    created_on TEXT NOT NULL,
    updated_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS sites_name ON sites(client_id, name_key);
CREATE INDEX IF NOT EXISTS sites_order ON sites(client_id, created_on, id);
CREATE TABLE IF NOT EXISTS token_families (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id TEXT NOT NULL REFERENCES token_families(id),
    spent INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS access_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id TEXT NOT NULL REFERENCES token_families(id),
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS access_tokens_family ON access_tokens(family_id);
CREATE TABLE IF NOT EXISTS security_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    user_id TEXT,
    family_id TEXT,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    media_type TEXT NOT NULL,
    body BLOB NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE TABLE IF NOT EXISTS sandbox_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

REUSE_DETECTED = "refresh_token_reuse"


class Store:
    """The database of one sandbox process. `db_path=None` keeps everything in memory."""

    def __init__(self, db_path: str | None = None) -> None:
        self.db_path = db_path
        self.db = sqlite3.connect(db_path or ":memory:", isolation_level=None, check_same_thread=False,
                                  timeout=10.0)
        self.db.execute("PRAGMA foreign_keys = ON")
        if db_path:
            self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA busy_timeout = 10000")
        self.db.execute("PRAGMA cache_size = -16000")
        self.db.executescript(SCHEMA)
        # The key that signs page cursors: one per database, so every server on it accepts the others' links.
        self.db.execute("INSERT OR IGNORE INTO sandbox_meta (key, value) VALUES ('cursor_key', ?)",
                        (secrets.token_hex(32),))
        row = self.db.execute("SELECT value FROM sandbox_meta WHERE key = 'cursor_key'").fetchone()
        self.cursor_key = bytes.fromhex(row[0])
        self._counts: dict[tuple[object, ...], int] = {}
        self._count_generation: tuple[int, int] | None = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE: the write lock is taken up front)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def statement(self) -> Iterator[sqlite3.Connection]:
        """One write statement in SQLite's own implicit transaction: atomic, and a third of the calls of
        BEGIN/INSERT/COMMIT (a create is one statement; constraint checks happen inside it)."""
        yield self.db

    def count(self, table: str, where: str, args: list[object]) -> int:
        """`SELECT count(*)` of a list, remembered until the database changes: a list's every page reports
        its total (G7), and counting 100,000 rows per page would make reading a long list quadratic.
        The database changed when this connection changed a row (total_changes) or another one committed
        (PRAGMA data_version), so the count is always that of the current data."""
        generation = (self.db.total_changes, self.db.execute("PRAGMA data_version").fetchone()[0])
        if generation != self._count_generation:
            self._counts.clear()
            self._count_generation = generation
        key = (table, where, *args)
        total = self._counts.get(key)
        if total is None:
            if len(self._counts) >= 1024:
                self._counts.clear()
            total = self._counts[key] = int(
                self.db.execute(f"SELECT count(*) FROM {table} WHERE {where}", args).fetchone()[0])
        return total

    def is_empty(self) -> bool:
        return self.db.execute("SELECT 1 FROM agencies LIMIT 1").fetchone() is None

    def reuse_detections(self) -> int:
        row = self.db.execute("SELECT count(*) FROM security_events WHERE kind = ?", (REUSE_DETECTED,)).fetchone()
        return int(row[0])

    def purge_expired(self, now: float | None = None) -> None:
        """Drop expired access tokens and idempotency records (called now and then, not per request)."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("DELETE FROM access_tokens WHERE family_id IN "
                       "(SELECT id FROM token_families WHERE expires_at < ?)", (now,))
            db.execute("DELETE FROM idempotency_keys WHERE created_at < ?", (now - 86400,))

    def close(self) -> None:
        self.db.close()


def open_store(database: str | None) -> Store:
    """The store a `--database` value names: None (in memory), a file path or `sqlite:///path`, or (with the
    `postgres` extra) `postgresql://user@host:port/db`."""
    if database and database.startswith("sqlite://"):
        database = database.removeprefix("sqlite://") or None
    return Store(database)


def count_reuse_detections(db_path: str) -> int:
    """Read the reuse detections of a sandbox from outside it (its own connection, read-only)."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10.0)
    try:
        row = db.execute("SELECT count(*) FROM security_events WHERE kind = ?", (REUSE_DETECTED,)).fetchone()
        return int(row[0])
    finally:
        db.close()
