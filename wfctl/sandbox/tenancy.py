"""Whose request this is: the tenant (agency) a request belongs to, so what is played can differ per tenant.

    TENANT.get()          # the agency id of the request being served, or None (no login yet, or not asked)

A tenant is an agency (G17). `TenantScope` (a pure ASGI layer, app.py) names the request's tenant before
anything that plays a behaviour reads it: the agency of the bearer token's login, of the user a login names,
or of the login a refresh or logout token belongs to. It does so only while some tenant plays something of
its own (`wanted()`: a behaviour or a clock offset set per tenant through the control plane) or a rate limit
is played (each tenant's requests are counted apart, middleware.Throttle), so a sandbox that plays one thing
for all pays nothing. behaviour.py, clock.py and the rate limit read `TENANT`; everything else asks them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The agency id of the request being served (None: the sandbox's default behaviour and clock).
TENANT: ContextVar[str | None] = ContextVar("wfctl_sandbox_tenant", default=None)

_TOKEN_PATHS = ("/identity/refresh", "/identity/logout")
_TOKEN_AGENCY = ("SELECT u.agency_id FROM {table} t JOIN token_families f ON f.id = t.family_id "
                 "JOIN users u ON u.id = f.user_id WHERE t.token_hash = ?")


class TenantScope:
    """Pure ASGI: sets `TENANT` for the rest of the request (see the module's docstring)."""

    def __init__(self, app: ASGIApp, *, store: Any, wanted: Callable[[], bool],
                 token_hash: Callable[[str], str]) -> None:
        self.app = app
        self.store = store
        self.wanted = wanted
        self.token_hash = token_hash  # auth.token_hash, given (auth reads behaviour, which reads this module)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.wanted():
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        body: bytes | None = None
        if scope.get("method") == "POST" and path.startswith("/identity/"):
            body = await read_body(receive)
            receive = replay(body)
        mark = TENANT.set(self._tenant(scope, path, body))
        try:
            await self.app(scope, receive, send)
        finally:
            TENANT.reset(mark)

    def _tenant(self, scope: Scope, path: str, body: bytes | None) -> str | None:
        token_hash = self.token_hash
        try:
            if body is not None:
                return self._of_body(path, body, token_hash)
            headers = dict(scope.get("headers") or [])
            scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                return None
            return self._one(_TOKEN_AGENCY.format(table="access_tokens"), (token_hash(token.strip()),))
        except Exception:  # a tenant that cannot be told (the database is down): the default behaviour
            return None

    def _of_body(self, path: str, body: bytes, token_hash: Callable[[str], str]) -> str | None:
        try:
            document = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(document, dict):
            return None
        if path in _TOKEN_PATHS:
            token = document.get("refreshToken")
            return self._one(_TOKEN_AGENCY.format(table="refresh_tokens"), (token_hash(token),)) \
                if isinstance(token, str) else None
        # a login: whichever field names a user (the login-field quirk may rename it)
        for value in document.values():
            if isinstance(value, str) and value.strip():
                found = self._one("SELECT agency_id FROM users WHERE username = ?", (value.strip().lower(),))
                if found is not None:
                    return found
        return None

    def _one(self, sql: str, args: tuple[Any, ...]) -> str | None:
        row = self.store.db.execute(sql, args).fetchone()
        return str(row[0]) if row is not None else None


async def read_body(receive: Receive) -> bytes:
    """A request's whole body, read from `receive` (what a layer that looks at it before the app reads first)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def replay(body: bytes) -> Receive:
    """A `receive` that gives the app `body` once, as if it arrived now."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
