"""What every sandbox handler uses: the service's state (`Service`: the store, tokens, the behaviour it plays
and its clock), the name
key and put-clears rules, the UNIQUE guard (G12), the G13 update, and JSON in and out."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.accounts import LOGIN_FAILURE_LIMIT, LoginThrottle
from wfctl.sandbox.auth import Principal, Tokens
from wfctl.sandbox.behaviour import Behaviour
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.listquirks import Churn
from wfctl.sandbox.problems import ApiProblem, invalid, not_found
from wfctl.sandbox.quirks import Quirks
from wfctl.sandbox.store import CommitUnknown, Connection, Store, name_key

JSON_TYPE = "application/json"
#: (user id, Idempotency-Key) of a request that holds the key's reservation (idempotency.py).
KeyRef = tuple[str, str]
_CLEARED: dict[str, Any] = {"assessmentRequired": False, "departments": [], "rates": [], "bannedWorkers": []}


class Service:
    """The sandbox's state, shared by its handlers (one module per resource: identity, agency, branches,
    clients, sites)."""

    def __init__(self, store: Store, tokens: Tokens, behaviour: Behaviour | None = None, *, exposed: bool = False,
                 login_failure_limit: int = LOGIN_FAILURE_LIMIT) -> None:
        self.store = store
        self.exposed = exposed
        self.db = store.db
        self.tokens = tokens
        self.behaviour = behaviour or tokens.behaviour
        self.clock: Clock = tokens.clock
        self.throttle = LoginThrottle(store, limit=login_failure_limit, clock=self.clock)
        self._churn = Churn(self.clock)  # quirk churn-pages (listquirks.py), while it is played
        #: Creates whose COMMIT's outcome could not be learnt (see `create`): key -> (its check, its answer).
        self.unknown: dict[KeyRef, tuple[Callable[[Connection], bool], Response]] = {}
        #: Keys whose reservation a request of this process holds and is answering (idempotency.py).
        self.answering: set[KeyRef] = set()
        #: Reservations a failed request could not release (the database refused it): key -> holder.
        self.unreleased: dict[KeyRef, str] = {}

    @property
    def quirks(self) -> Quirks:
        """The quirks played now (behaviour.py): asked on each request, never kept."""
        return self.behaviour.quirks

    @property
    def created(self) -> int:
        """The status of a create's answer: 201, or 200 under create-200 (G15)."""
        return 200 if self.quirks.create_200 else 201

    @property
    def churn(self) -> Churn | None:
        return self._churn if self.quirks.churn_pages else None

    def timestamp(self) -> str:
        """Now, as createdOn and modifiedOn say it (the sandbox's clock)."""
        return self.clock.iso()

    def name_key(self, name: str) -> str:
        """The key of the UNIQUE index (G12, store.name_key); with no-unique-names, never a duplicate."""
        if self.quirks.no_unique_names:
            return f"{name_key(name)}\n{uuid.uuid4()}"  # names are trimmed: never end in a newline
        return name_key(name)

    def replacing(self, fields: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """put-clears (G13 tolerance): a PUT is the whole record, so what it leaves out is cleared."""
        if not self.quirks.put_clears:
            return fields
        if "name" not in fields:
            raise invalid({"name": ["is required: a PUT replaces the whole record here"]})
        return {**{name: _CLEARED.get(name, "") for name in schema}, **fields}

    def unique(self, kind: str, name: str | None, scope: str = "in this agency") -> UniqueGuard:
        return UniqueGuard(self.store, kind, name, scope)

    def create(self, request: Request, table: str, record_id: str, insert: Callable[[Connection], object],
               answer: Response) -> Response:
        """Store a new record (`insert(db)`) and, in the same transaction, `answer` under the request's
        Idempotency-Key (G20): the record and its answer are committed together or not at all, so a
        create sent again after a lost answer is replayed, never met with 409 by its own record. A COMMIT
        lost on its way (PostgreSQL: the connection dropped) is resolved by looking for the record's id
        on a new connection (Store.atomic); while the database cannot be asked, the answer is a 503 and
        the next request with the key asks again (`resolve_unknown`)."""
        key: KeyRef | None = getattr(request.state, "idempotency_key", None)
        if key is None and not self.store.commit_may_be_lost:
            with self.store.statement() as db:  # one statement, one implicit transaction (SQLite's fastest)
                insert(db)
            return answer

        def work(db: Connection) -> None:
            insert(db)
            if key is not None and not store_answer(db, key, answer, request.state.idempotency_holder):
                # Taken over meanwhile (this request was judged gone: its database session ended): the
                # other request's create stands, this one rolls back.
                raise ApiProblem(503, "this Idempotency-Key was taken over by a retry of the request; retry it",
                                 headers={"Retry-After": "1"})

        def committed(db: Connection) -> bool:
            return db.execute(f"SELECT 1 FROM {table} WHERE id = ?", (record_id,)).fetchone() is not None

        try:
            self.store.atomic(work, committed)
        except CommitUnknown:
            if key is not None:
                self.unknown[key] = (committed, answer)
            raise
        if key is not None:
            request.state.idempotency_answered = True
        return answer

    def resolve_unknown(self, key: KeyRef) -> Response | None:
        """A create with this key whose COMMIT's outcome this process could not learn: learn it now. Its
        answer (stored under the key now) when it was committed; None when it was not or was never
        unknown here (the reservation is then released for the request to run)."""
        pending = self.unknown.get(key)
        if pending is None:
            return None
        committed, answer = pending
        with self.store.statement() as db:
            stored = committed(db)
            if stored:
                store_answer(db, key, answer)
            else:
                db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND status = 0", key)
        del self.unknown[key]
        return answer if stored else None

    def delete(self, kind: str, table: str, record_id: str,
               dependents: Callable[[Connection], None] | None = None) -> Response:
        """Delete one record: of two deletes of it at the same moment (in any server process), one is
        answered 200 and the other 404. `dependents(db)` raises a 409 while records depend on it."""
        def work(db: Connection) -> None:
            if dependents is not None:
                dependents(db)
            if db.execute(f"DELETE FROM {table} WHERE id = ? RETURNING id", (record_id,)).fetchone() is None:
                raise not_found(kind, record_id)

        def committed(db: Connection) -> bool:
            return db.execute(f"SELECT 1 FROM {table} WHERE id = ?", (record_id,)).fetchone() is None

        self.store.atomic(work, committed)
        return deleted(kind)


class UniqueGuard:
    """Turns the integrity error of a UNIQUE index (G12) into a 409, whatever the concurrency."""

    def __init__(self, store: Store, kind: str, name: str | None, scope: str) -> None:
        self.store, self.kind, self.name, self.scope = store, kind, name, scope

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        if exc is not None and isinstance(exc, self.store.integrity_errors):
            if self.store.is_unique_violation(exc):
                raise ApiProblem(409, f"a {self.kind} named {self.name!r} already exists {self.scope}") from None
            raise ApiProblem(409, f"the {self.kind} conflicts with another record: {exc}") from None


def store_answer(db: Connection, key: KeyRef, answer: Response, holder: str | None = None) -> bool:
    """Keep `answer` as the one a request with this Idempotency-Key is replayed (G20); with `holder`, only
    while that holder still holds the key's reservation (idempotency.py: a holder judged gone may have been
    taken over). Whether it was kept."""
    if holder is None:
        db.execute("UPDATE idempotency_keys SET status = ?, media_type = ?, body = ? WHERE user_id = ? AND key = ?",
                   (answer.status_code, answer.media_type or JSON_TYPE, bytes(answer.body), *key))
        return True
    return db.execute("UPDATE idempotency_keys SET status = ?, media_type = ?, body = ? WHERE user_id = ? "
                      "AND key = ? AND status = 0 AND media_type = ? RETURNING status",
                      (answer.status_code, answer.media_type or JSON_TYPE, bytes(answer.body), *key,
                       holder)).fetchone() is not None


def release(db: Connection, key: KeyRef, holder: str) -> None:
    """Release the reservation of an Idempotency-Key that `holder` still holds (its request failed)."""
    db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND status = 0 AND media_type = ?",
               (*key, holder))


def deleted(kind: str) -> Response:
    return json_answer({"status": "success", "message": f"{kind} deleted"})


def update_fields(db: Connection, table: str, record_id: str, fields: dict[str, Any],
                  columns: dict[str, str], stamp_column: str, now: str, name_key: Callable[[str], str]) -> None:
    """G13: only the fields sent change; a field left out keeps its value."""
    sets = [f"{columns[k]} = ?" for k in fields]
    args = list(fields.values())
    if "name" in fields:
        sets.append("name_key = ?")
        args.append(name_key(str(fields["name"])))
    sets.append(f"{stamp_column} = ?")
    args.append(now)
    db.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE id = ?", (*args, record_id))


async def read_body(request: Request) -> Any:
    return v.parse_json_body(await request.body(), request.headers.get("content-type"))


def json_answer(payload: Any, status: int = 200) -> Response:
    return Response(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode(),
                    status_code=status, media_type=JSON_TYPE)


def log_note(request: Request, note: str, *, user: str | None = None, tenant: str | None = None) -> None:
    """What the request's record (journal.py; its --log-requests line) adds: the user, or a failed login's
    name. Never a password or a token. `user`, `tenant`: the login the request was made as, and its agency."""
    # scope["state"] is what request.state wraps: one update of the dict rather than three setattr calls
    state = request.scope.setdefault("state", {})
    state["log_note"] = note
    if user is not None:
        state["log_user"] = user
        state["log_tenant"] = tenant


def log_caller(request: Request, who: Principal) -> None:
    """The request's record names its caller: the user and the tenant (agency)."""
    log_note(request, who.username, user=who.username, tenant=who.agency_id)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

