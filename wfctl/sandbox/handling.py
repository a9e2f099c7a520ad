"""What every sandbox handler uses: the service's state (`Service`: the store, tokens, quirks), the name
key and put-clears rules, the UNIQUE guard (G12), the G13 update, and JSON in and out."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.accounts import LOGIN_FAILURE_LIMIT, LoginThrottle
from wfctl.sandbox.auth import Tokens
from wfctl.sandbox.listquirks import Churn
from wfctl.sandbox.problems import ApiProblem, invalid
from wfctl.sandbox.quirks import Quirks
from wfctl.sandbox.store import Connection, Store, name_key

JSON_TYPE = "application/json"
_CLEARED: dict[str, Any] = {"assessmentRequired": False, "departments": [], "rates": [], "bannedWorkers": []}


class Service:
    """The sandbox's state, shared by its handlers (one module per resource: identity, agency, branches,
    clients, sites)."""

    def __init__(self, store: Store, tokens: Tokens, quirks: Quirks | None = None, *, exposed: bool = False,
                 login_failure_limit: int = LOGIN_FAILURE_LIMIT) -> None:
        self.store = store
        self.exposed = exposed
        self.db = store.db
        self.tokens = tokens
        self.quirks = quirks or Quirks()
        self.created = 200 if self.quirks.create_200 else 201
        self.throttle = LoginThrottle(store, limit=login_failure_limit)
        self.churn = Churn() if self.quirks.churn_pages else None  # quirk churn-pages (listquirks.py)

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
    return v.parse_json_body(await request.body())


def json_answer(payload: Any, status: int = 200) -> Response:
    return Response(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode(),
                    status_code=status, media_type=JSON_TYPE)


def log_note(request: Request, note: str) -> None:
    """What the request log (server.RequestLog, --log-requests) adds to this request's line: the user,
    or a failed login's name. Never a password or a token."""
    request.state.log_note = note




def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def timestamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
