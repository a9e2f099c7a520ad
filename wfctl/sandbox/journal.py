"""The sandbox's request journal: every request as a structured record, kept in a bounded ring.

    journal = app.state.journal                    # create_app records every request into one
    journal.records()                              # the newest `capacity` RequestRecords, oldest first
    journal.bodies = True                          # from now on, keep bodies too (secrets redacted)
    journal.listen(lambda record: print(record.line()))   # `--log-requests`: the text line of each

A record holds the method, path, query, status, milliseconds, the user and the tenant (agency id) the
request was made as, its Idempotency-Key, the answer's Retry-After, and a request id (a number, in the
order the answers ended). Bodies are kept only when asked (`bodies`), and then without secrets: a JSON
body's passwords and tokens are replaced by `REDACTED` at any depth, and a body of `/identity/` that is
not JSON is not kept at all. Headers other than those two never are (an Authorization header least of
all). The ring is per process, as the behaviour is (behaviour.py).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wfctl.sandbox.clock import Clock

#: Records kept by default (the oldest is dropped past it).
DEFAULT_CAPACITY = 10_000
REDACTED = "<redacted>"
#: Bytes of one body kept in a record; the rest is cut (`...` says so).
BODY_LIMIT = 64 * 1024
_SECRET_WORDS = ("password", "secret")


@dataclass(slots=True)
class RequestRecord:
    """One request, as it was answered (never changed once written)."""

    id: int
    at: float                      # the sandbox's clock (clock.py) when the request arrived
    method: str
    path: str
    query: str
    status: int                    # 0: no answer (the client left, or the answer was dropped)
    ms: float
    user: str | None = None        # the login name the request was made as
    tenant: str | None = None      # that user's agency id
    note: str | None = None        # what --log-requests adds: the user, or "login failed: <name>"
    idempotency_key: str | None = None
    retry_after: str | None = None
    request_body: Any = None       # only when the journal keeps bodies; secrets redacted
    response_body: Any = None

    def line(self) -> str:
        """The `--log-requests` line: `GET /api/clients?page=2 200 4 ms admin@northwind.test`, control
        characters escaped."""
        shown = str(self.status) if self.status else "---"
        path = f"{self.path}?{self.query}" if self.query else self.path
        line = f"{path} {shown} {self.ms:.0f} ms" + (f" {self.note}" if self.note else "")
        line = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in line)
        return f"{self.method} {line}"

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (bodies left out unless they were kept)."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if not self.request_body and not self.response_body:
            out.pop("request_body")
            out.pop("response_body")
        return out


class RequestJournal:
    """A bounded ring of RequestRecords, and the listeners told of each one as it is written."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, *, bodies: bool = False) -> None:
        self.bodies = bodies
        self._ring: deque[RequestRecord] = deque(maxlen=capacity)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._listeners: list[Callable[[RequestRecord], None]] = []

    @property
    def capacity(self) -> int:
        return self._ring.maxlen or 0

    def listen(self, listener: Callable[[RequestRecord], None]) -> None:
        self._listeners.append(listener)

    def records(self) -> list[RequestRecord]:
        """What the ring holds, oldest first."""
        with self._lock:
            return list(self._ring)

    def clear(self) -> None:
        with self._lock:
            self._ring.clear()

    def add(self, **fields: Any) -> RequestRecord:
        with self._lock:
            record = RequestRecord(id=next(self._ids), **fields)
            self._ring.append(record)
        for listener in self._listeners:
            listener(record)
        return record


class Recorder:
    """Pure ASGI, outermost: records each HTTP request into `journal` once its answer is sent (or given up)."""

    def __init__(self, app: ASGIApp, journal: RequestJournal, clock: Clock | None = None) -> None:
        self.app = app
        self.journal = journal
        self.clock = clock or Clock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, at = time.monotonic(), self.clock.time()
        keep = self.journal.bodies
        status = 0
        retry_after: str | None = None
        sent: list[bytes] = []
        received: list[bytes] = []
        recorded = False

        async def recording_receive() -> Message:
            message = await receive()
            if keep and message["type"] == "http.request":
                received.append(message.get("body", b""))
            return message

        async def recording_send(message: Message) -> None:
            nonlocal status, retry_after, recorded
            if message["type"] == "http.response.start":
                status = int(message.get("status", 0))
                if status >= 300:  # a 429 or a 503 (any answer but a success may say when to come back)
                    retry_after = next((value.decode("latin-1") for name, value in message.get("headers", [])
                                        if name.lower() == b"retry-after"), None)
            elif keep and message["type"] == "http.response.body":
                sent.append(message.get("body", b""))
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body") and not recorded:
                recorded = True
                self._record(scope, at, started, status, retry_after, received, sent, keep)

        try:
            await self.app(scope, recording_receive if keep else receive, recording_send)
        finally:
            if not recorded:  # no answer (the client left, an answer dropped on purpose, or the app failed)
                self._record(scope, at, started, status, retry_after, received, sent, keep)

    def _record(self, scope: Scope, at: float, started: float, status: int, retry_after: str | None,
                received: list[bytes], sent: list[bytes], keep: bool) -> None:
        state = scope.get("state") or {}
        path = scope.get("path", "")
        key = None
        if scope.get("method") == "POST":
            key = next((value.decode("latin-1") for name, value in scope.get("headers", [])
                        if name == b"idempotency-key"), None)
        self.journal.add(
            at=at, method=scope.get("method", "?"), path=path,
            query=(scope.get("query_string") or b"").decode("latin-1"), status=status,
            ms=(time.monotonic() - started) * 1000, user=state.get("log_user"), tenant=state.get("log_tenant"),
            note=state.get("log_note"), idempotency_key=key, retry_after=retry_after,
            request_body=redacted_body(path, b"".join(received)) if keep else None,
            response_body=redacted_body(path, b"".join(sent)) if keep else None)


def redacted_body(path: str, body: bytes) -> Any:
    """What a record keeps of a body: JSON with its secrets replaced, other text (never an identity
    endpoint's), or None for no body."""
    if not body:
        return None
    try:
        return _redact(json.loads(body))
    except ValueError:
        if path.startswith("/identity/"):
            return REDACTED
        text = body[:BODY_LIMIT].decode("utf-8", "replace")
        return text + ("..." if len(body) > BODY_LIMIT else "")


def _secret(key: str) -> bool:
    """A password, a secret or a token (`accessToken`, `refresh_token`; not `tokenType`)."""
    return key.endswith("token") or any(word in key for word in _SECRET_WORDS)


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: REDACTED if isinstance(key, str) and _secret(key.lower()) else _redact(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value
