"""The store's interface, below everything that uses a store (accounts, auth, pgstore, store.py's SQLite):
the Store base class, the Connection the handlers write through, and the errors a database raises.
store.py describes the storage and opens a store (`open_store`); schema.py holds its tables.

Standard library only, and nothing of the sandbox: the modules that work on a store import this one, and
store.py imports them, so the interface sits below both (no ring of imports).
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

REUSE_DETECTED = "refresh_token_reuse"
#: Seconds after a rotation during which the spent refresh token, with the same access token, gets the same
#: new pair again instead of revoking the login (the contract's G3 grace window; auth.py, where it is used).
#: The store drops the answers it keeps for that window once it has passed (`Store.purge_expired`).
#: 15 minutes: a client that lost the answer rides out an outage of up to 60 s and may come back with its
#: next command minutes later (docs/auth.md says what this costs).
REFRESH_GRACE = 900


class StoreError(Exception):
    """A database the sandbox cannot use (unreachable, refused, another schema version, not a database):
    the message says which, in one line, for `wfctl sandbox serve` to print before serving."""


class StoreUnavailable(Exception):
    """The database cannot be reached now (down, restarting, refusing connections): a 503 with Retry-After,
    never a 500. The message is one line without the password."""


class ConnectionLost(StoreUnavailable):
    """The connection broke inside a transaction before its COMMIT was sent: nothing of it was stored, so
    `Store.atomic` runs it again on a new connection."""


class CommitUnknown(StoreUnavailable):
    """The connection broke while COMMIT was on its way: the transaction may or may not be stored.
    `Store.atomic` with a `committed` check finds out on a new connection; without one (or while the
    database stays unreachable) it is a 503 whose outcome the next request must find out."""


#: SQLite's primary result codes of a database that cannot take a write now, whatever the request (disk
#: full, read-only file or directory, locked past the busy timeout, an I/O error, a file it cannot open).
_SQLITE_UNAVAILABLE = {5: "busy", 6: "locked", 8: "read-only", 10: "I/O error", 13: "disk full",
                       14: "cannot open the file", 15: "locking protocol"}
#: Attempts `Store.atomic` gives a transaction the database aborted to let another go first (a
#: serialization failure, a deadlock) before the request is answered 503.
CONFLICT_ATTEMPTS = 3


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
    #: Whether a COMMIT can be lost on its way (a database over a network: PostgreSQL); SQLite's cannot.
    commit_may_be_lost = False
    _count_generation: object = None

    def __init__(self) -> None:
        self._counts: dict[tuple[object, ...], int] = {}
        self._last_seconds: dict[str, int] = {}  # count_request: each tenant's second, as last counted here
        #: This process's store among every process on the database (idempotency.py names the holder of a
        #: reservation with it, `holder()`).
        self.token = f"{os.getpid()}.{secrets.token_hex(6)}"

    def unavailable(self, exc: BaseException) -> str | None:
        """Why `exc` is the database's fault and not the request's (a disk full, a read-only database, too
        many connections, a transaction aborted past its retries, a lost connection), in a few words; None
        for any other error. Such a request is answered 503 with Retry-After (app.py), never 500."""
        if isinstance(exc, StoreUnavailable):
            return str(exc)
        if isinstance(exc, sqlite3.OperationalError):
            code = getattr(exc, "sqlite_errorcode", None)
            reason = _SQLITE_UNAVAILABLE.get(code & 0xFF) if isinstance(code, int) else None
            return f"{reason}: {exc}" if reason else None
        return None

    def conflict(self, exc: BaseException) -> bool:
        """Whether `exc` aborted a transaction to let another go first (a serialization failure, a
        deadlock): worth running again at once (`atomic`)."""
        return False

    def holder(self) -> str:
        """Who holds what this process reserves now (an Idempotency-Key): this process, and on PostgreSQL
        its database session, so that another process can tell a holder that is gone (`holder_gone`)."""
        return self.token

    def mine(self, holder: str) -> bool:
        """Whether `holder` is this process (in any of its database sessions)."""
        return holder.partition("/")[0] == self.token

    def holder_gone(self, holder: str) -> bool:
        """Whether the holder of a reservation is known to be gone: another process (this machine's: a
        SQLite file is local) that no longer runs. This process's own holders are judged by the caller
        (which knows what it is still answering)."""
        pid, _, token = holder.partition(".")
        if not pid.isdigit() or not token:
            return False  # written by an earlier version: left to the reservation's time limit
        if int(pid) == os.getpid():
            return False  # another store of this process (tests run several servers in one)
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        raise NotImplementedError

    def atomic(self, work: Callable[[Any], T], committed: Callable[[Any], bool] | None = None) -> T:
        """`work(db)` in one transaction, its result. A transaction that lost its connection before COMMIT
        (ConnectionLost: nothing stored) is run once more, on a new connection; `work` must therefore
        only touch the database (and raise to roll back). One that lost it while COMMIT was on its way
        (CommitUnknown) is asked about: `committed(db)`, on a new connection, says whether it was stored
        (then its result stands) or not (then it runs once more); without `committed`, or when the
        database cannot be asked, CommitUnknown is raised. A transaction the database aborted to let
        another go first (`conflict`: a serialization failure, a deadlock) runs again, CONFLICT_ATTEMPTS
        times in all; past them, the error is raised (a 503: `unavailable`)."""
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            try:
                return self._atomic(work, committed)
            except Exception as exc:
                if attempt == CONFLICT_ATTEMPTS or not self.conflict(exc):
                    raise
        raise AssertionError("unreachable")

    def _atomic(self, work: Callable[[Any], T], committed: Callable[[Any], bool] | None) -> T:
        try:
            with self.transaction() as db:
                result = work(db)
            return result
        except ConnectionLost:
            pass
        except CommitUnknown as lost:
            if committed is None:
                raise
            try:
                with self.statement() as db:
                    stored = committed(db)
            except StoreUnavailable:
                raise lost from None
            if stored:
                return result
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

    def reuse_detections(self, agency_id: str | None = None) -> int:
        """Refresh-token reuse detected (G3): in the whole sandbox, or for one tenant's logins."""
        if agency_id is None:
            row = self.db.execute("SELECT count(*) FROM security_events WHERE kind = ?", (REUSE_DETECTED,)).fetchone()
        else:
            row = self.db.execute("SELECT count(*) FROM security_events e JOIN users u ON u.id = e.user_id "
                                  "WHERE e.kind = ? AND u.agency_id = ?", (REUSE_DETECTED, agency_id)).fetchone()
        return int(row[0])

    def purge_expired(self, now: float) -> None:
        """Drop expired access tokens and idempotency records (called now and then, not per request)."""

        def purge(db: Any) -> None:
            db.execute("DELETE FROM access_tokens WHERE family_id IN "
                       "(SELECT id FROM token_families WHERE expires_at < ?)", (now,))
            db.execute("DELETE FROM idempotency_keys WHERE created_at < ?", (now - 86400,))
            # The answers kept for the refresh grace window are of no use past it.
            db.execute("UPDATE refresh_tokens SET replay = NULL WHERE replay IS NOT NULL AND spent_at < ?",
                       (now - REFRESH_GRACE,))

        self.atomic(purge)

    def count_request(self, second: int, tenant: str | None = None) -> int:
        """`--rate-limit`: count one request of `tenant` (an agency id; None: a request of no tenant) in this
        second, for every server on the database; the tenant's count. A tenant's new second first drops its
        counts of past ones (each tenant's clock may run ahead on its own, so never another tenant's)."""
        key = tenant or ""
        if second != self._last_seconds.get(key):
            self._last_seconds[key] = second
            self.db.execute("DELETE FROM tenant_request_counts WHERE tenant = ? AND second < ?", (key, second))
        row = self.db.execute("INSERT INTO tenant_request_counts (tenant, second, count) VALUES (?, ?, 1) "
                              "ON CONFLICT (tenant, second) DO UPDATE SET count = tenant_request_counts.count + 1 "
                              "RETURNING count", (key, second)).fetchone()
        return int(row[0])

    def close(self) -> None:
        raise NotImplementedError

    def _init_meta(self, db: Any) -> None:
        """The cursor-signing key (one per database, so every server on it accepts the others' links)."""
        db.execute("INSERT INTO sandbox_meta (key, value) VALUES ('cursor_key', ?) ON CONFLICT (key) DO NOTHING",
                   (secrets.token_hex(32),))
        row = db.execute("SELECT value FROM sandbox_meta WHERE key = 'cursor_key'").fetchone()
        self.cursor_key = bytes.fromhex(row[0])


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
