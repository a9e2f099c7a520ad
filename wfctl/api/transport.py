"""The transport under the Client: retries with backoff, and the verbose log of every attempt.

Retries (bounded in attempts and in total time):
- GET, HEAD, OPTIONS, PUT and DELETE on a connection error, a timeout, or 408/425/429/500/502/503/504;
- POST only when the request provably never left (the connection could not be made), or when the
  service refused it without acting (429; 503 for a POST that carries an `Idempotency-Key`). A POST whose answer was lost, or answered 408/425/500/
  502/504, is not resent here: the Client looks the record up by its natural key first, since a
  deployment may ignore `Idempotency-Key` (G20).
Delays are capped exponential backoff with full jitter; a `Retry-After` (seconds or an HTTP date)
is honoured up to a cap (G18): one longer than the cap (the sandbox's login lock says 15 minutes) ends
the retries at once, and the answer is reported.
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

from wfctl.api.redact import redact_body, redact_headers, redact_text

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
# The request never reached the service: safe to send again whatever the method.
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass
class RetryPolicy:
    max_attempts: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    total_time: float = 60.0

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))]."""
        return random.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))


class RetryTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, *, policy: RetryPolicy | None = None,
                 log: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
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
        attempt = 0
        slept = 0.0  # what we waited, counted even when `sleep` is a test's fake
        while True:
            attempt += 1
            if self.log:
                self._log_request(request, attempt)
            try:
                response = self.inner.handle_request(request)
            except httpx.TransportError as exc:
                # A create whose answer was lost is not resent here: the Client looks it up by its natural
                # key first (G20), since a deployment may ignore Idempotency-Key.
                retry = isinstance(exc, _NEVER_SENT) or idempotent
                delay = self._delay(attempt, started, slept, None) if retry else None
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
            # A POST is resent only after a refusal (429; 503 when it carries a key); any other answer may
            # follow a create the service applied, and a deployment may ignore Idempotency-Key: the
            # Client looks the record up before sending it again (G20).
            if status in RETRY_STATUSES and (idempotent or status == 429 or (status == 503 and keyed)):
                delay = self._delay(attempt, started, slept, response.headers.get("retry-after"))
                if delay is not None:
                    if self.log:
                        self.log(f"! HTTP {status}: retrying in {delay:.1f} s")
                    response.close()
                    slept += delay
                    self._pause(delay)
                    continue
            return response

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

    def _delay(self, attempt: int, started: float, slept: float, retry_after: str | None) -> float | None:
        """Seconds to wait before the next attempt, or None when attempts or time are used up."""
        if attempt >= self.policy.max_attempts:
            return None
        delay = self.policy.backoff(attempt)
        wanted = parse_retry_after(retry_after) if retry_after else None
        if wanted is not None:
            if wanted > self.policy.retry_after_cap:
                return None  # asked to come back later than we would ever wait (a login lock): say so now
            delay = wanted
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


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds or an HTTP date; None when unreadable."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _request_body(request: httpx.Request) -> bytes:
    try:
        return request.content
    except httpx.RequestNotRead:
        return b""


def make_transport(*, inner: httpx.BaseTransport | None = None, policy: RetryPolicy | None = None,
                   log: Callable[[str], None] | None = None, sleep: Callable[[float], None] | None = None,
                   tls: bool = True, verify: ssl.SSLContext | None = None,
                   **transport_options: Any) -> RetryTransport:
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
    base = inner if inner is not None else httpx.HTTPTransport(**transport_options)
    return RetryTransport(base, policy=policy, log=log, sleep=sleep or time.sleep)
