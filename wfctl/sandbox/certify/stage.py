"""The stage a scenario is played on: a pure ASGI layer, outermost, that plays the scenario's faults and keeps
the trace of every exchange as the program saw it (its own journal, with monotonic times the checks need).

    stage = Stage(Forward(sandbox.url), scenario.faults, expire=lambda: sandbox.expire_access(tenant), trap_port=8766)
    stage.exchanges       # [Exchange], in the order the requests arrived

A fault answered here never reaches the sandbox (a 429, a 503, a failed write); a lost refresh answer is
applied by the sandbox and then not sent (middleware.drop_answer). Tokens are kept only as a digest (to
tell one from another), never as given; bodies are kept as JSON for the checks and never written out.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wfctl.sandbox.certify.scenarios import Faults
from wfctl.sandbox.middleware import AnswerDropped, drop_answer, error_body
from wfctl.sandbox.tenancy import read_body, replay

#: Every answer waits this long, as on a network, so requests a program sends at once are in flight at once.
ANSWER_DELAY = 0.02
WRITES = ("POST", "PUT", "PATCH", "DELETE")


@dataclass
class Exchange:
    """One request and what the program got."""

    number: int                  # 1-based, in the order the requests arrived
    start: float                 # time.monotonic() when it arrived
    method: str
    path: str
    query: dict[str, list[str]]
    port: int                    # the listener it came to (the trap's: a token sent to another origin)
    token: str | None = None     # a digest of the bearer token, if any
    idempotency_key: str | None = None
    request: Any = None          # the JSON body, if any
    end: float = 0.0
    status: int = 0              # 0: no answer (dropped, or the program left)
    retry_after: float | None = None
    response: Any = None
    injected: str | None = None  # the fault that answered instead of the sandbox
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def api(self) -> bool:
        return self.path.startswith("/api/")


class Stage:
    def __init__(self, app: ASGIApp, faults: Faults, *, expire: Callable[[], None], trap_port: int | None = None,
                 error_form: str = "problem") -> None:
        self.app = app
        self.error_form = error_form
        self.faults = faults
        self.expire = expire  # every access token of the tenant expires (its clock moves: target.Sandbox)
        self.trap_port = trap_port
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._writes = 0
        self._refreshes = 0
        self._expired = False
        self._foreign_done = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = await read_body(receive)
        exchange = self._begin(scope, raw)
        await asyncio.sleep(ANSWER_DELAY)
        try:
            fault = self._fault(exchange)
            if fault is not None:
                status, retry_after, exchange.injected = fault
                await self._answer(send, exchange, status, retry_after)
                return
            start: Message = {}
            chunks: list[bytes] = []

            async def keep(message: Message) -> None:
                nonlocal start
                if message["type"] == "http.response.start":
                    start = message
                elif message["type"] == "http.response.body":
                    chunks.append(message.get("body", b""))

            try:
                await self.app(scope, replay(raw), keep)
            except AnswerDropped:  # drop-create-answer, inside the sandbox: the program gets nothing either
                exchange.injected = "drop-create-answer"
                await drop_answer(send, exchange.path, b"drop-create-answer")
            body = b"".join(chunks)
            if exchange.path == "/identity/refresh" and self._lost_refresh(start):
                exchange.injected = "drop_refresh_answer"
                await drop_answer(send, exchange.path, b"certify-lost-refresh-answer")
            body = self._rewritten(exchange, body)
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            exchange.status = int(start.get("status", 0))
            exchange.headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers}
            exchange.retry_after = _seconds(exchange.headers.get("retry-after"))
            exchange.response = _json(body)
            await send({"type": "http.response.start", "status": exchange.status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        finally:
            exchange.end = time.monotonic()
            self._after(exchange)

    def _begin(self, scope: Scope, raw: bytes) -> Exchange:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        auth = headers.get("authorization", "")
        token = hashlib.sha256(auth.encode()).hexdigest()[:16] if auth else None
        with self._lock:
            exchange = Exchange(number=len(self.exchanges) + 1, start=time.monotonic(), method=scope["method"],
                                path=scope["path"], query=parse_qs((scope.get("query_string") or b"").decode()),
                                port=int((scope.get("server") or ("", 0))[1]), token=token,
                                idempotency_key=headers.get("idempotency-key"), request=_json(raw))
            self.exchanges.append(exchange)
        return exchange

    def _fault(self, exchange: Exchange) -> tuple[int, int, str] | None:
        if self.trap_port is not None and exchange.port == self.trap_port:
            return 404, 0, "trap"
        if exchange.number in self.faults.throttle.at:
            return 429, self.faults.throttle.retry_after, "throttle"
        if exchange.number in self.faults.unavailable.at:
            return 503, self.faults.unavailable.retry_after, "unavailable"
        if exchange.api and exchange.method in WRITES:
            with self._lock:
                self._writes += 1
                nth = self._writes
            if nth == self.faults.fail_write:
                return 500, 0, "fail_write"
        return None

    def _lost_refresh(self, start: Message) -> bool:
        if int(start.get("status", 0)) != 200 or not self.faults.drop_refresh_answer:
            return False
        with self._lock:
            self._refreshes += 1
            return self._refreshes == self.faults.drop_refresh_answer

    def _rewritten(self, exchange: Exchange, body: bytes) -> bytes:
        """foreign_next_page: the first list page with a next page links it on the trap's origin."""
        if (not self.faults.foreign_next_page or self._foreign_done or self.trap_port is None
                or exchange.method != "GET" or not exchange.api):
            return body
        answer = _json(body)
        if not isinstance(answer, dict) or not isinstance(answer.get("nextPage"), str):
            return body
        self._foreign_done = True
        link = urlsplit(answer["nextPage"])
        answer["nextPage"] = urlunsplit(("http", f"localhost:{self.trap_port}", link.path or exchange.path,
                                         link.query, ""))
        return json.dumps(answer).encode()

    def _after(self, exchange: Exchange) -> None:
        after = self.faults.expire_access_after
        if after and not self._expired and exchange.number >= after:
            self._expired = True
            self.expire()

    async def _answer(self, send: Send, exchange: Exchange, status: int, retry_after: int) -> None:
        titles = {429: "Too Many Requests", 503: "Service Unavailable", 500: "Internal Server Error", 404: "Not Found"}
        problem = {"type": "about:blank", "title": titles[status], "status": status,
                   "detail": f"certification fault: {exchange.injected}"}
        # the scenario's error form (errors=FORM, G10) for its own faults too, as the sandbox writes it
        kind, body = error_body(self.error_form, status, json.dumps(problem).encode())
        headers = [(b"content-length", str(len(body)).encode())]
        if kind:
            headers.append((b"content-type", kind.encode()))
        if retry_after:
            headers.append((b"retry-after", str(retry_after).encode()))
        exchange.status, exchange.retry_after, exchange.response = status, float(retry_after) or None, problem
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
