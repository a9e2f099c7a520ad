"""The sandbox's storage: SQLite (the embedded default) or PostgreSQL (`wfctl[sandbox,postgres]`, pgstore.py).

Both give the handlers one interface: `store.db.execute(sql, params)` with `?` placeholders and portable
SQL (`INSERT ... ON CONFLICT`, row values, `RETURNING`), `store.transaction()` for several statements that
must hold together, `store.statement()` for one, and `store.count()` for a list's total. Everything that
must hold across processes is enforced by the database: uniqueness (G12) by UNIQUE indexes on a
name key (`name_key`: names that look the same have the same key; a duplicate under any concurrency is an
integrity error that becomes a 409, never a 500), refresh-token rotation by a locked read (SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE),
and an Idempotency-Key by its primary key (the first request reserves it).

`store.atomic(fn)` runs `fn(db)` in one transaction: on PostgreSQL, a transaction whose connection was
lost before its COMMIT was sent (nothing was stored) runs once more on a new connection. A database that
cannot be reached raises StoreUnavailable, which the app answers 503 with Retry-After.

SQLite: one connection per process, WAL, foreign keys on. The handlers run on one event loop and never
await while a transaction is open, so within a process every write is atomic with respect to every other
request; across processes `BEGIN IMMEDIATE` and a busy timeout serialise writers.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from wfctl.sandbox.accounts import SCHEMA as ACCOUNTS_SCHEMA
from wfctl.sandbox.names import name_key

#: The version of the schema below, kept in sandbox_meta: a database of an older version is migrated at
#: start (MIGRATIONS), one of a newer version is refused (rather than misread).
#: 2: name keys by `name_key` (was str.casefold); refresh tokens keep what the grace window replays.
SCHEMA_VERSION = 2

T = TypeVar("T")

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
    created_at REAL NOT NULL,
    parent_hash TEXT,
    spent_at REAL,
    presented_access TEXT,
    replay BLOB
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
CREATE TABLE IF NOT EXISTS request_counts (
    second INTEGER PRIMARY KEY,
    count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sandbox_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
SCHEMA += ACCOUNTS_SCHEMA  # login_failures: the login throttle (accounts.py)

#: Version 1 -> 2, run in one transaction: the refresh tokens' new columns, then every name key again
#: (`rekey_names`, between dropping and re-creating the unique indexes).
MIGRATIONS: dict[int, list[str]] = {
    1: ["ALTER TABLE refresh_tokens ADD COLUMN parent_hash TEXT",
        "ALTER TABLE refresh_tokens ADD COLUMN spent_at REAL",
        "ALTER TABLE refresh_tokens ADD COLUMN presented_access TEXT",
        "ALTER TABLE refresh_tokens ADD COLUMN replay BLOB"],
}
#: (table, the column that scopes its names, its unique index)
_NAMED = (("branches", "agency_id", "branches_name"), ("clients", "branch_id", "clients_name"),
          ("sites", "client_id", "sites_name"))

REUSE_DETECTED = "refresh_token_reuse"


def rekey_names(db: Any) -> int:
    """Inside a transaction, with the unique name indexes dropped: every name key computed again by
    `name_key`. Records that were distinct before and now have the same key stay distinct (the later one
    keeps a key of its own, `<key>\n<id>`, as no-unique-names does); a new record of that name is a
    duplicate of the first. Returns how many keys changed."""
    changed = 0
    for table, scope, _ in _NAMED:
        seen: set[tuple[str, str]] = set()
        rows = db.execute(f"SELECT id, {scope}, name, name_key FROM {table} ORDER BY created_on, id").fetchall()
        for record_id, parent, name, old in rows:
            key = name_key(name)
            if (parent, key) in seen:
                key = f"{key}\n{record_id}"
            seen.add((parent, key))
            if key != old:
                db.execute(f"UPDATE {table} SET name_key = ? WHERE id = ?", (key, record_id))
                changed += 1
    return changed


class StoreError(Exception):
    """A database the sandbox cannot use (unreachable, refused, another schema version, not a database):
    the message says which, in one line, for `wfctl sandbox serve` to print before serving."""


class StoreUnavailable(Exception):
    """The database cannot be reached now (down, restarting, refusing connections): a 503 with Retry-After,
    never a 500. The message is one line without the password."""


class ConnectionLost(StoreUnavailable):
    """The connection broke inside a transaction before its COMMIT was sent: nothing of it was stored, so
    `Store.atomic` runs it again on a new connection."""


class Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What the handlers use of a connection: `execute` with `?` placeholders."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...


class Store:
    """The database of one sandbox process: `db` to read and write, `transaction()`/`statement()` to write."""

    db: Any
    #: A description for people (`sandbox.db`, `postgresql://staging@db:5432/wfctl`), never a password.
    location: str
    cursor_key: bytes
    #: Appended to the SELECT that reads a refresh token before rotating it (PostgreSQL: a row lock).
    for_update: str = ""
    #: The exception types of a broken constraint (UNIQUE, foreign key): a 409, not a 500.
    integrity_errors: tuple[type[BaseException], ...] = (sqlite3.IntegrityError,)
    _last_second = 0
    _count_generation: object = None

    def __init__(self) -> None:
        self._counts: dict[tuple[object, ...], int] = {}

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        raise NotImplementedError

    def atomic(self, work: Callable[[Any], T]) -> T:
        """`work(db)` in one transaction, its result. A transaction that lost its connection before COMMIT
        (ConnectionLost: nothing stored) is run once more, on a new connection; `work` must therefore
        only touch the database (and raise to roll back)."""
        try:
            with self.transaction() as db:
                return work(db)
        except ConnectionLost:
            pass
        with self.transaction() as db:
            return work(db)

    @contextmanager
    def statement(self) -> Iterator[Any]:
        raise NotImplementedError

    def count(self, table: str, where: str, args: list[object]) -> int:
        """`SELECT count(*)` of a list, remembered while the data is the same: a list's every page reports
        its total (G7), and counting 100,000 rows per page would make reading a long list quadratic.
        Each backend names the data's state (`_generation`) and counts under a known one (`_count_rows`)."""
        generation = self._generation()
        if generation != self._count_generation:
            self._counts.clear()
            self._count_generation = generation
        key = (table, where, *args)
        total = self._counts.get(key)
        if total is None:
            total, counted_at = self._count_rows(table, where, args)
            if counted_at == generation:
                if len(self._counts) >= 1024:
                    self._counts.clear()
                self._counts[key] = total
        return total

    def _generation(self) -> object:
        raise NotImplementedError

    def _count_rows(self, table: str, where: str, args: list[object]) -> tuple[int, object]:
        """The count, and the generation it was taken in (None: unknown, not to be remembered)."""
        raise NotImplementedError

    def serialize(self, db: Any) -> None:
        """Inside a transaction: wait for any other process in such a transaction (PostgreSQL: an advisory
        lock; SQLite: BEGIN IMMEDIATE already serialises writers)."""

    def is_unique_violation(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)

    def is_empty(self, db: Any = None) -> bool:
        return (db or self.db).execute("SELECT 1 FROM agencies LIMIT 1").fetchone() is None

    def reuse_detections(self) -> int:
        row = self.db.execute("SELECT count(*) FROM security_events WHERE kind = ?", (REUSE_DETECTED,)).fetchone()
        return int(row[0])

    def purge_expired(self, now: float | None = None) -> None:
        """Drop expired access tokens and idempotency records (called now and then, not per request)."""
        now = time.time() if now is None else now
        from wfctl.sandbox.auth import REFRESH_GRACE

        def purge(db: Any) -> None:
            db.execute("DELETE FROM access_tokens WHERE family_id IN "
                       "(SELECT id FROM token_families WHERE expires_at < ?)", (now,))
            db.execute("DELETE FROM idempotency_keys WHERE created_at < ?", (now - 86400,))
            # The answers kept for the refresh grace window are of no use past it.
            db.execute("UPDATE refresh_tokens SET replay = NULL WHERE replay IS NOT NULL AND spent_at < ?",
                       (now - REFRESH_GRACE,))

        self.atomic(purge)

    def count_request(self, second: int) -> int:
        """`--rate-limit`: count one request in this second (for every server on the database); the count.
        A new second first drops the counts of past ones."""
        if second != self._last_second:
            self._last_second = second
            self.db.execute("DELETE FROM request_counts WHERE second < ?", (second,))
        row = self.db.execute("INSERT INTO request_counts (second, count) VALUES (?, 1) ON CONFLICT (second) "
                              "DO UPDATE SET count = request_counts.count + 1 RETURNING count", (second,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        raise NotImplementedError

    def _init_meta(self, db: Any) -> None:
        """The cursor-signing key (one per database, so every server on it accepts the others' links)."""
        db.execute("INSERT INTO sandbox_meta (key, value) VALUES ('cursor_key', ?) ON CONFLICT (key) DO NOTHING",
                   (secrets.token_hex(32),))
        row = db.execute("SELECT value FROM sandbox_meta WHERE key = 'cursor_key'").fetchone()
        self.cursor_key = bytes.fromhex(row[0])


def check_schema_version(found: str | None, location: str) -> None:
    """A database of this version, of one this wfctl migrates from, or new (None); else a StoreError."""
    if found is not None and found != str(SCHEMA_VERSION) and not (found.isdigit() and int(found) in MIGRATIONS):
        raise StoreError(f"{location}: holds the sandbox's schema version {found}; this wfctl uses version "
                         f"{SCHEMA_VERSION}: use a wfctl of that version, or another database")


def migrate(db: Any, found: str | None, ddl: Callable[[str], str] = lambda statement: statement) -> None:
    """Inside the transaction that holds the schema lock: bring a database of version `found` to this one
    (`ddl` gives a backend's form of a statement). A new database (None) or a current one is left alone."""
    if found is None or found == str(SCHEMA_VERSION):
        return
    check_schema_version(found, "the database")
    for version in range(int(found), SCHEMA_VERSION):
        for statement in MIGRATIONS[version]:
            db.execute(ddl(statement))
        if version == 1:
            for _, _, index in _NAMED:
                db.execute(f"DROP INDEX IF EXISTS {index}")
            rekey_names(db)
            for table, scope, index in _NAMED:
                db.execute(f"CREATE UNIQUE INDEX {index} ON {table}({scope}, name_key)")
    db.execute("INSERT INTO sandbox_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) "
               "DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))


class SqliteStore(Store):
    """One SQLite file (or memory) per process. `db_path=None` keeps everything in memory."""

    def __init__(self, db_path: str | None = None) -> None:
        super().__init__()
        self.db_path = db_path
        self.location = db_path or "memory"
        try:
            self.db = sqlite3.connect(db_path or ":memory:", isolation_level=None, check_same_thread=False,
                                      timeout=10.0)
        except sqlite3.Error as exc:
            raise StoreError(f"{db_path}: cannot open it as a SQLite database: {exc}") from None
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StoreError(f"{db_path}: cannot use it as the sandbox's database: {exc}") from None
        except StoreError:
            self.db.close()
            raise

    def _open(self) -> None:
        self.db.execute("PRAGMA foreign_keys = ON")
        if self.db_path:
            self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA busy_timeout = 10000")
        self.db.execute("PRAGMA cache_size = -16000")
        found = self._schema_version()
        check_schema_version(found, self.location)
        # An older version's tables exist (CREATE ... IF NOT EXISTS leaves them as they are) and are migrated
        # in one write transaction; another process starting on the file meanwhile waits, then finds it done.
        self.db.executescript(SCHEMA)
        if found is not None and found != str(SCHEMA_VERSION):
            with self.transaction() as db:
                migrate(db, self._schema_version())
        self.db.execute("INSERT INTO sandbox_meta (key, value) VALUES ('schema_version', ?) "
                        "ON CONFLICT (key) DO NOTHING", (str(SCHEMA_VERSION),))
        self._init_meta(self.db)

    def _schema_version(self) -> str | None:
        """The version the file holds; None for a new one. A first-release file has no version: 1."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'agencies'").fetchone():
            return None
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sandbox_meta'").fetchone():
            return "1"
        row = self.db.execute("SELECT value FROM sandbox_meta WHERE key = 'schema_version'").fetchone()
        return str(row[0]) if row else "1"

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

    def _generation(self) -> object:
        """The database changed when this connection changed a row (total_changes) or another one committed
        (PRAGMA data_version); between the two, one connection's statements see the same data."""
        return (self.db.total_changes, self.db.execute("PRAGMA data_version").fetchone()[0])

    def _count_rows(self, table: str, where: str, args: list[object]) -> tuple[int, object]:
        total = int(self.db.execute(f"SELECT count(*) FROM {table} WHERE {where}", args).fetchone()[0])
        return total, self._generation()

    def close(self) -> None:
        self.db.close()


_SCHEMES = ("sqlite://", "postgresql://", "postgres://")


def open_store(database: str | None, *, fast_commit: bool = False) -> Store:
    """The store a `--database` value names: None (in memory), a file path or `sqlite:///path`, or (with the
    `postgres` extra) `postgresql://user@host:port/db`. A database it cannot use raises StoreError.
    `fast_commit` (PostgreSQL): asynchronous commits (`synchronous_commit=off`), see pgstore.py."""
    if database and re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", database) and not database.startswith(_SCHEMES):
        scheme = database.split("://", 1)[0]
        raise StoreError(f"{describe(database)}: unknown scheme {scheme!r}; use a file, sqlite:///<file> or "
                         "postgresql://<user>@<host>:<port>/<database>")
    if database and database.startswith(("postgresql://", "postgres://")):
        from wfctl.sandbox.pgstore import PostgresStore

        return PostgresStore(database, fast_commit=fast_commit)
    if database and database.startswith("sqlite://"):
        # As SQLAlchemy spells them: sqlite:///relative.db, sqlite:////absolute/path.db, sqlite:// (memory).
        database = database.removeprefix("sqlite://").removeprefix("/") or None
    return SqliteStore(database)


def describe(database: str | None) -> str:
    """A `--database` value as it may be shown: a PostgreSQL URL without its password."""
    if database and "://" in database:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(database)
        if parts.password is not None:
            netloc = parts.netloc.rsplit("@", 1)
            user = (parts.username or "") + ":***"
            return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))
    return database or "memory"


def count_reuse_detections(database: str) -> int:
    """Read the reuse detections of a sandbox from outside it (its own connection)."""
    store = open_store(database)
    try:
        return store.reuse_detections()
    finally:
        store.close()
