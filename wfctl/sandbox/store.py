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
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from wfctl.sandbox.names import name_key
from wfctl.sandbox.schema import (
    MIGRATIONS,
    SCHEMA,
    SCHEMA_VERSION,
    check_schema_version,
    migrate,
    rekey_names,
)
from wfctl.sandbox.storebase import (
    REUSE_DETECTED,
    CommitUnknown,
    Connection,
    ConnectionLost,
    Cursor,
    Store,
    StoreError,
    StoreUnavailable,
    describe,
)

#: The store's interface (storebase.py) and schema (schema.py) are named here too: the handlers and the
#: commands import them from store.py, whose docstring describes them.
__all__ = [
    "MIGRATIONS", "REUSE_DETECTED", "SCHEMA", "SCHEMA_VERSION", "CommitUnknown", "Connection", "ConnectionLost", "Cursor",
    "SqliteStore", "Store", "StoreError", "StoreUnavailable", "check_schema_version", "count_reuse_detections",
    "describe", "migrate", "name_key", "open_store", "rekey_names",
]


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
            # SQLite may have rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR: "cannot rollback -
            # no transaction is active"), and the error that says why is the one to raise (a full disk is a 503)
            if self.db.in_transaction:
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


def count_reuse_detections(database: str) -> int:
    """Read the reuse detections of a sandbox from outside it (its own connection)."""
    store = open_store(database)
    try:
        return store.reuse_detections()
    finally:
        store.close()
