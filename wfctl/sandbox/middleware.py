"""The sandbox's pure ASGI middlewares.

- BodyLimit: 413 above `--max-body` (on by default), before a body is held in memory;
- Throttle: `--latency`, an injected outage (behaviour.Faults) and `--rate-limit` (G18);
- DropCreateAnswer, EmptyAnswers, ErrorForm: the quirks drop-create-answer (G20), empty-get and the
  create answers (G15), and errors=FORM (G10), quirks.py.

AsPlayed builds the stack for what the behaviour (behaviour.py) plays now (app.py: the quirks' middlewares
and Throttle only when played, BodyLimit, Failsafe, ErrorForm only when played): each request asks which
value is played, and the stack for a value is built once, on the first request after a change. So a quirk
or a fault changed while the sandbox runs applies from the next request, and what is off costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from html import escape
from http import HTTPStatus
from typing import Any, NoReturn

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wfctl.sandbox.behaviour import Behaviour, Played
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.faults import unavailable_response
from wfctl.sandbox.problems import problem_response
from wfctl.sandbox.tenancy import TENANT

#: Stacks AsPlayed keeps built (one a value played: the sandbox's and each tenant's of its own).
_KEPT_STACKS = 64


class AsPlayed:
    """Pure ASGI: `build(app, played)` in front of `app`, for the value the behaviour plays now (see the
    module's docstring)."""

    def __init__(self, app: ASGIApp, behaviour: Behaviour, build: Callable[[ASGIApp, Played], ASGIApp]) -> None:
        self.app = app
        self.behaviour = behaviour
        self.build = build
        # by value: tenants that play different values (behaviour.py) each keep their stack
        self._built: dict[int, tuple[Played, ASGIApp]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        played = self.behaviour.now
        built = self._built.get(id(played))
        if built is None or built[0] is not played:
            if len(self._built) >= _KEPT_STACKS:
                self._built = {}
            built = (played, self.build(self.app, played))
            self._built = {**self._built, id(played): built}
        await built[1](scope, receive, send)


def played_inside(app: ASGIApp, played: Played, *, clock: Clock,
                  count_request: Callable[[int, str | None], int]) -> ASGIApp:
    """The middlewares inside the body limit that `played` asks for: the answers' quirks and Throttle."""
    quirks = played.quirks
    if quirks.drop_create_answer:
        app = DropCreateAnswer(app)
    if quirks.empty_get or quirks.empty_create_answer or quirks.text_create_answer:
        app = EmptyAnswers(app, gets=quirks.empty_get, creates=quirks.empty_create_answer or quirks.text_create_answer,
                           create_text=quirks.text_create_answer)
    if played.rate_limit or played.latency_ms or played.faults.unavailable:
        app = Throttle(app, played, clock=clock, count_request=count_request)
    return app


def played_outside(app: ASGIApp, played: Played) -> ASGIApp:
    """ErrorForm, outermost but for the recorder, when `played` asks for another error body form."""
    return app if played.quirks.errors == "problem" else ErrorForm(app, form=played.quirks.errors)


class Throttle:
    """`--latency MS`, the injected outage (Faults.unavailable: a 503 with Retry-After, as a database that
    cannot serve) and `--rate-limit N` (429 with Retry-After past N requests a second, G18), in that order.

    The requests of each second (of the sandbox's clock) are counted per tenant (tenancy.TENANT: the agency
    of the request's token, login or refresh token; the requests of none are counted together), so one
    tenant's burst never throttles another (issue 48). They are counted in the database (`count_request`),
    so N holds for all the workers and servers on one database together, not for each."""

    def __init__(self, app: ASGIApp, played: Played, clock: Clock | None = None,
                 count_request: Callable[[int, str | None], int] | None = None) -> None:
        self.app = app
        self.played = played
        self.clock = clock or Clock()
        self.counted: dict[str | None, tuple[int, int]] = {}  # tenant -> (second, count), without a database
        self.count_request = count_request or self._count_here

    def _count_here(self, second: int, tenant: str | None) -> int:
        window, count = self.counted.get(tenant, (second, 0))
        count = count + 1 if window == second else 1
        self.counted[tenant] = (second, count)
        return count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        played = self.played
        if played.latency_ms:
            await asyncio.sleep(played.latency_ms / 1000)
        if played.faults.unavailable:
            await unavailable_response(scope, "an outage played on purpose (faults: unavailable)")(
                scope, receive, send)
            return
        limit = played.rate_limit
        if limit and self.count_request(int(self.clock.time()), TENANT.get()) > limit:
            response = problem_response(429, f"more than {limit} requests a second; slow down",
                                        headers={"Retry-After": "1"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """413 above `max_body` bytes (issue 12), before the body is held in memory.

    A Content-Length above the limit is answered at once, nothing read. A body without one (chunked) is
    counted as it streams and refused at the first chunk past the limit. A body with a Content-Length
    within the limit passes untouched: the server never delivers more than it announced."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        if length is not None:
            if int(length) > self.max_body:
                await self._too_large(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_body:
                raise _BodyTooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except _BodyTooLarge:  # raised while a handler reads the body: nothing was answered yet
            await self._too_large(scope, receive, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = problem_response(413, f"the request body is larger than {self.max_body} bytes",
                                    headers={"Connection": "close"})
        await response(scope, receive, send)


class _BodyTooLarge(Exception):
    pass


class AnswerDropped(Exception):
    """Raised to make uvicorn close the connection after a create was applied (drop-create-answer)."""


async def drop_answer(send: Send, path: str, why: bytes) -> NoReturn:
    """Give the client no answer at all: a status line uvicorn refuses to write (a header value holding a line
    break), so it writes nothing and closes the connection once AnswerDropped is raised (DropCreateAnswer)."""
    logging.getLogger("uvicorn.error").addFilter(_quiet_dropped_answers)
    try:
        await send({"type": "http.response.start", "status": 500, "headers": [(b"x-sandbox-quirk", why + b"\n")]})
    except Exception as exc:  # the server refused that status line, as intended
        raise AnswerDropped(path) from exc
    raise AnswerDropped(path)  # another ASGI server: still never answer


class DropCreateAnswer:
    """drop-create-answer (G20 tolerance): the create is applied, and the client gets no answer at all.

    The answer's status line is replaced by one uvicorn refuses to write (a header value holding a
    line break): uvicorn, with httptools and with h11 alike, has then marked the response started,
    writes nothing, and closes the connection once the app raises. The client sees the connection
    drop before any byte of an answer (httpx: RemoteProtocolError "Server disconnected without
    sending a response"). A replay of an Idempotency-Key (nothing applied) is answered normally."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        logging.getLogger("uvicorn.error").addFilter(_quiet_dropped_answers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def dropping_send(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300 and not any(
                    name.lower() == b"idempotent-replayed" for name, _ in message.get("headers", [])):
                await drop_answer(send, scope["path"], b"drop-create-answer")
            await send(message)

        await self.app(scope, receive, dropping_send)


class EmptyAnswers:
    """empty-get, empty-create-answer and text-create-answer (G15 tolerance: any 2xx is success, and a
    body is not promised): a GET of one record (`/api/branches/{id}`, `/api/clients/{id}`,
    `/api/sites/{id}`) answers 200 with an empty body; a create is applied and answered 201 with an
    empty body, or (`create_text`) with the text `Created`, which is not JSON."""

    def __init__(self, app: ASGIApp, gets: bool, creates: bool, create_text: bool = False) -> None:
        self.app = app
        self.gets = gets
        self.creates = creates
        self.create_text = create_text

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _emptied(scope["method"], scope["path"], gets=self.gets,
                                                   creates=self.creates):
            await self.app(scope, receive, send)
            return
        emptying = False
        body = b"Created" if self.create_text and scope["method"] == "POST" else b""
        typed = [(b"content-type", b"text/plain")] if body else []

        async def emptying_send(message: Message) -> None:
            nonlocal emptying
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                emptying = True
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-type", b"content-length")]
                await send({**message, "headers": [*headers, *typed, (b"content-length", str(len(body)).encode())]})
            elif emptying and message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": body})
            else:
                await send(message)

        await self.app(scope, receive, emptying_send)


def _emptied(method: str, path: str, *, gets: bool, creates: bool) -> bool:
    """Whether EmptyAnswers empties this request's answer: a GET of one record, or a create."""
    parts = path.strip("/").split("/")
    if method == "GET":
        return gets and len(parts) == 3 and parts[0] == "api" and parts[1] in ("branches", "clients", "sites")
    return creates and method == "POST" and parts[:1] == ["api"] and (
        parts[1:] in (["branches"], ["clients"]) or (len(parts) == 4 and parts[1] == "clients"
                                                     and parts[3] == "sites"))


class ErrorForm:
    """errors=FORM (G10 tolerance): every problem+json answer rewritten to another body form.

    Status and headers (WWW-Authenticate, Retry-After, Allow) are kept; only the body and its type change."""

    def __init__(self, app: ASGIApp, form: str) -> None:
        self.app = app
        self.form = form

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        form = self.form
        start: Message | None = None
        chunks: list[bytes] = []

        async def rewriting_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if dict(message.get("headers", [])).get(b"content-type", b"").startswith(b"application/problem+json"):
                    start = message
                    return
                await send(message)
            elif start is None:
                await send(message)
            else:
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    status = start["status"]
                    media_type, body = error_body(form, status, b"".join(chunks))
                    headers = [(k, v) for k, v in start.get("headers", [])
                               if k.lower() not in (b"content-type", b"content-length")]
                    headers.append((b"content-length", str(len(body)).encode()))
                    if media_type:
                        headers.append((b"content-type", media_type.encode()))
                    await send({"type": "http.response.start", "status": status, "headers": headers})
                    await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, rewriting_send)


def error_body(form: str, status: int, problem: bytes) -> tuple[str | None, bytes]:
    """The body (and its media type) a deployment of this error form sends for a problem document."""
    try:
        doc: dict[str, Any] = json.loads(problem)
    except ValueError:
        doc = {}
    phrase = HTTPStatus(status).phrase
    detail = str(doc.get("detail") or phrase)
    errors = doc.get("errors") or {}
    if form == "message":
        return "application/json", _dumps({"message": detail})
    if form == "error":
        return "application/json", _dumps({"error": detail})
    if form == "list":
        items = [f"{field}: {msg}" for field, msgs in errors.items() for msg in msgs] or [detail]
        return "application/json", _dumps({"errors": items})
    if form == "text":
        return "text/plain; charset=utf-8", detail.encode()
    if form == "html":
        page = (f"<!DOCTYPE html><html><head><title>{status} {phrase}</title></head>"
                f"<body><h1>{status} {phrase}</h1><p>{escape(detail)}</p></body></html>")
        return "text/html; charset=utf-8", page.encode()
    if form == "empty":
        return None, b""
    return "application/problem+json", problem


# ---- private helpers --------------------------------------------------------------------------


def _quiet_dropped_answers(record: logging.LogRecord) -> bool:
    """uvicorn logs every exception of the app; a dropped answer is the quirk working, not an error."""
    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, AnswerDropped)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


class OwnRedirects:
    """A redirect (Starlette's to the path with or without its trailing slash) names this server, never the
    origin a Host header made up: its `Location` is rewritten to the origin of `origin.link_origin`, or made
    relative."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def own_send(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                from urllib.parse import urlsplit

                from wfctl.sandbox.origin import link_origin

                headers = []
                for name, value in message.get("headers", []):
                    if name.lower() == b"location":
                        parts = urlsplit(value.decode("latin-1"))
                        target = parts.path + (f"?{parts.query}" if parts.query else "")
                        value = f"{link_origin(scope)}{target}".encode("latin-1")
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, own_send)
