"""The transport under the Client: retries with backoff, and the verbose log of every attempt.

Retries (bounded in attempts and in total time):
- GET, HEAD, OPTIONS, PUT and DELETE on a connection error, a timeout, or 408/425/429/500/502/503/504;
- POST only when the request provably never left (the connection could not be made), or when the
  service refused it without acting (429; 503 for a POST that carries an `Idempotency-Key`). A POST whose answer was lost, or answered 408/425/500/
  502/504, is not resent here: the Client looks the record up by its natural key first, since a
  deployment may ignore `Idempotency-Key` (G20).
- a request that carries the `RESEND_UNTIL` extension (a token refresh, which G3 makes safe to send again
  within its grace window) on any failure to answer and any of those statuses, until that moment.
Delays are capped exponential backoff with full jitter; a `Retry-After` (seconds or an HTTP date)
is honoured up to a cap (G18): one longer than the cap (the sandbox's login lock says 15 minutes) ends
the retries at once, and the answer is reported. An HTTP date is judged against the answer's own `Date`
header (the server's clock), so a server whose clock is off by hours neither stops nor hurries the retry.

Each attempt is bounded (wfctl.api.limits): it must end, body included, within the Client's timeout,
and its body may not exceed `MAX_ANSWER_BYTES` once inflated. An attempt past its deadline is not
retried (a server that drips its answer would drip it again), except a refresh within its window.
"""

from __future__ import annotations

import email.utils
import random
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from wfctl.api.limits import (
    MAX_ANSWER_BYTES,
    AnswerDeadline,
    AnswerTooLarge,
    bounded_response,
    deadline_at,
    install_deadline_backend,
    passed,
)
from wfctl.api.redact import redact_body, redact_headers, redact_text

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
# The request never reached the service: safe to send again whatever the method.
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
#: Request extension: the monotonic time until which this request may be sent again after any failure
#: (a lost answer, a 5xx): set by the token refresh, which the service answers again within its grace
#: window (G3).
RESEND_UNTIL = "wfctl.resend_until"
#: Request extension: a list to which each attempt's outcome is appended (its status, or the name of
#: the exception that ended it).
ATTEMPTS = "wfctl.attempts"


@dataclass
class RetryPolicy:
    max_attempts: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    total_time: float = 60.0
    #: Attempts of a request that may be resent until a moment of its own (RESEND_UNTIL: a refresh).
    resend_attempts: int = 8

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))]."""
        return random.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))


class RetryTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, *, policy: RetryPolicy | None = None,
                 log: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 deadline: float | None = None, max_answer: int = MAX_ANSWER_BYTES) -> None:
        self.inner = inner
        self.deadline = deadline  # seconds one attempt may take, body included (None: no deadline)
        self.max_answer = max_answer
        self.policy = policy or RetryPolicy()
        self.log = log
        self.sleep = sleep
        self.clock = clock
        self._paused_until = 0.0  # a retry's wait holds every request of this transport (G18)
        self._pause_lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._wait_for_pause()
        started = self.clock()
        method = request.method.upper()
        idempotent = method in IDEMPOTENT_METHODS
        keyed = "idempotency-key" in request.headers
        until = request.extensions.get(RESEND_UNTIL)
        attempt = 0
        slept = 0.0  # what we waited, counted even when `sleep` is a test's fake
        while True:
            attempt += 1
            if self.log:
                self._log_request(request, attempt)
            outcomes = request.extensions.get(ATTEMPTS)
            try:
                response = self._attempt(request, read=until is not None)
            except httpx.TransportError as exc:
                if outcomes is not None:
                    outcomes.append(type(exc).__name__)
                # A create whose answer was lost is not resent here: the Client looks it up by its natural
                # key first (G20), since a deployment may ignore Idempotency-Key. An attempt past its
                # deadline is not sent again, nor one whose answer is too large.
                bounded = isinstance(exc, (AnswerDeadline, AnswerTooLarge))
                if until is not None:
                    retry = not isinstance(exc, AnswerTooLarge)
                else:
                    retry = not bounded and (isinstance(exc, _NEVER_SENT) or idempotent)
                delay = self._delay(attempt, started, slept, None, until=until) if retry else None
                if self.log:
                    self.log(f"! {type(exc).__name__}: {redact_text(str(exc))}"
                             + (f" (retrying in {delay:.1f} s)" if delay is not None else ""))
                if delay is None:
                    raise
                slept += delay
                self._pause(delay)
                continue
            if self.log:
                response = self._log_response(response)
            status = response.status_code
            if outcomes is not None:
                outcomes.append(status)
            # A POST is resent only after a refusal (429; 503 when it carries a key); any other answer may
            # follow a create the service applied, and a deployment may ignore Idempotency-Key: the
            # Client looks the record up before sending it again (G20).
            if status in RETRY_STATUSES and (idempotent or until is not None or status == 429
                                             or (status == 503 and keyed)):
                delay = self._delay(attempt, started, slept, response.headers.get("retry-after"),
                                    date=response.headers.get("date"), until=until)
                if delay is not None:
                    if self.log:
                        self.log(f"! HTTP {status}: retrying in {delay:.1f} s")
                    response.close()
                    slept += delay
                    self._pause(delay)
                    continue
            return response

    def _attempt(self, request: httpx.Request, *, read: bool) -> httpx.Response:
        """One exchange under its deadline, its body bounded; with `read`, the body is read here too."""
        end = None if self.deadline is None else time.monotonic() + self.deadline
        with deadline_at(end):
            try:
                response = self.inner.handle_request(request)
            except httpx.TimeoutException as exc:
                if passed(end) and not isinstance(exc, AnswerDeadline):
                    raise self._late(request) from None
                raise
        response = bounded_response(response, request, limit=self.max_answer, end=end,
                                    seconds=self.deadline or 0.0)
        if read:
            try:
                response.read()
            finally:
                response.close()
        return response

    def _late(self, request: httpx.Request) -> AnswerDeadline:
        return AnswerDeadline(f"no complete answer within {self.deadline:g} s", request=request,
                              seconds=self.deadline or 0.0)

    def close(self) -> None:
        self.inner.close()

    def _pause(self, delay: float) -> None:
        """Wait `delay` before a retry, and hold every other request of this transport (the page
        reader's, the bulk workers') until then: one 429's Retry-After slows the pool down as one."""
        with self._pause_lock:
            self._paused_until = max(self._paused_until, self.clock() + delay)
        self.sleep(delay)

    def _wait_for_pause(self) -> None:
        delay = self._paused_until - self.clock()
        if delay > 0:
            self.sleep(delay)

    def _delay(self, attempt: int, started: float, slept: float, retry_after: str | None, *,
               date: str | None = None, until: float | None = None) -> float | None:
        """Seconds to wait before the next attempt, or None when attempts or time are used up (`until`:
        the moment this request may be sent again until, instead of the policy's total time)."""
        if attempt >= (self.policy.max_attempts if until is None else self.policy.resend_attempts):
            return None
        delay = self.policy.backoff(attempt)
        wanted = parse_retry_after(retry_after, date=date) if retry_after else None
        if wanted is not None:
            if wanted > self.policy.retry_after_cap:
                return None  # asked to come back later than we would ever wait (a login lock): say so now
            delay = wanted
        if until is not None:
            return delay if time.monotonic() + delay < until else None
        spent = max(self.clock() - started, slept)
        if spent + delay > self.policy.total_time:
            return None
        return delay

    def _log_request(self, request: httpx.Request, attempt: int) -> None:
        assert self.log is not None
        suffix = f" (attempt {attempt})" if attempt > 1 else ""
        self.log(f"> {request.method} {redact_text(str(request.url))}{suffix}")
        for name, value in redact_headers(request.headers):
            self.log(f"> {name}: {value}")
        body = _request_body(request)
        if body:
            self.log("> " + redact_body(body, request.headers.get("content-type", "")))

    def _log_response(self, response: httpx.Response) -> httpx.Response:
        """Log the answer; its body is read here (and kept by the response for the Client)."""
        assert self.log is not None
        raw = response.read()
        self.log(f"< HTTP {response.status_code} {response.reason_phrase}")
        for name, value in redact_headers(response.headers):
            self.log(f"< {name}: {value}")
        if raw:
            self.log("< " + redact_body(raw, response.headers.get("content-type", "")))
        return response


def parse_retry_after(value: str, now: float | None = None, *, date: str | None = None) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds or an HTTP date; None when unreadable.

    An HTTP date is the server's clock: it is judged against the answer's `Date` header (`date`), the
    server's "now", so a server whose clock is hours off asks for the wait it means. Only without a
    readable `Date` is it judged against the local clock (`now`, default the time now)."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = _http_date(value)
    if when is None:
        return None
    sent = _http_date(date) if date else None
    if sent is not None:
        return max(0.0, when - sent)
    return max(0.0, when - (time.time() if now is None else now))


def _http_date(value: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    try:
        return when.timestamp()
    except (OverflowError, ValueError, OSError):
        return None


def _request_body(request: httpx.Request) -> bytes:
    try:
        return request.content
    except httpx.RequestNotRead:
        return b""


def make_transport(*, inner: httpx.BaseTransport | None = None, policy: RetryPolicy | None = None,
                   log: Callable[[str], None] | None = None, sleep: Callable[[float], None] | None = None,
                   tls: bool = True, verify: ssl.SSLContext | None = None, deadline: float | None = None,
                   max_answer: int = MAX_ANSWER_BYTES, **transport_options: Any) -> RetryTransport:
    """The retrying transport. With `tls`, https connections use `verify`, or else the default trust of
    wfctl.api.tls (the OS store and certifi). `tls=False` for a Client whose origin is http://: it never
    leaves that origin (every URL, redirect and nextPage is checked), so its pool never starts TLS and
    loading CAs (20-40 ms) is skipped; the context given instead has no CA at all, so a TLS connection
    through it would fail verification rather than go unchecked."""
    if inner is None and tls:
        if verify is None:
            from wfctl.api.tls import ssl_context

            verify = ssl_context()
        transport_options["verify"] = verify
    elif inner is None:
        transport_options.setdefault("verify", ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    if inner is None:
        base: httpx.BaseTransport = httpx.HTTPTransport(**transport_options)
        install_deadline_backend(base)  # every socket read and write ends by the attempt's deadline
    else:
        base = inner
    return RetryTransport(base, policy=policy, log=log, sleep=sleep or time.sleep, deadline=deadline,
                          max_answer=max_answer)
