"""The transport under the Client: retries with backoff, and the verbose log of every attempt.

Which requests are sent again, how often and after what wait is wfctl.api.net.retry's `RetryPolicy`, the
one the bulk runs' lean writer asks too; a wait holds every request of this transport (`Pause`, G18).

Each attempt is bounded (wfctl.api.net.limits): it must end, body included, within the Client's timeout,
and its body may not exceed `MAX_ANSWER_BYTES` once inflated. An attempt past its deadline is not
retried (a server that drips its answer would drip it again), except a refresh within its window.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable
from typing import Any

import httpx

from wfctl.api.net.limits import (
    MAX_ANSWER_BYTES,
    AnswerDeadline,
    AnswerTooLarge,
    bounded_response,
    deadline_at,
    install_deadline_backend,
    passed,
    refused_head,
)
from wfctl.api.net.redact import redact_body, redact_headers, redact_text
from wfctl.api.net.retry import (
    IDEMPOTENT_METHODS,
    OUTAGE_STATUSES,
    RETRY_STATUSES,
    Pause,
    RetryPolicy,
    parse_retry_after,
    refused_at_first,
    transient,
)

__all__ = ["ATTEMPTS", "IDEMPOTENT_METHODS", "RESEND_UNTIL", "RETRY_STATUSES", "RetryPolicy", "RetryTransport",
           "make_transport", "parse_retry_after"]

# The request never reached the service: safe to send again whatever the method.
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
#: Request extension: the monotonic time until which this request may be sent again after any failure
#: (a lost answer, a 5xx): set by the token refresh, which the service answers again within its grace
#: window (G3).
RESEND_UNTIL = "wfctl.resend_until"
#: Request extension: a list to which each attempt's outcome is appended (its status, or the name of
#: the exception that ended it).
ATTEMPTS = "wfctl.attempts"


class RetryTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, *, policy: RetryPolicy | None = None,
                 log: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 deadline: float | None = None, max_answer: int = MAX_ANSWER_BYTES,
                 pause: Pause | None = None) -> None:
        self.inner = inner
        self.deadline = deadline  # seconds one attempt may take, body included (None: no deadline)
        self.max_answer = max_answer
        self.policy = policy or RetryPolicy()
        self.log = log
        self.sleep = sleep
        self.clock = clock
        #: A retry's wait holds every request of this transport (G18), and of the lean writer given it.
        self.pause = pause or Pause(sleep, clock)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return self._handle(request)
        finally:
            self.pause.done()

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.pause.wait()
        started = self.clock()
        method = request.method.upper()
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
                with self.pause.admitted():  # fewer at once while the service answers 429
                    response = self._attempt(request, read=until is not None)
            except httpx.TransportError as exc:
                if outcomes is not None:
                    outcomes.append(type(exc).__name__)
                if refused_at_first(exc, self.pause):
                    raise  # nothing listens there: said at once, not ridden out as an outage
                # A create whose answer was lost is not resent here: the Client looks it up by its natural
                # key first (G20), since a deployment may ignore Idempotency-Key. An attempt past its
                # deadline is not sent again, nor one whose answer is too large.
                bounded = isinstance(exc, AnswerDeadline | AnswerTooLarge)
                retry = self.policy.retries_failure(
                    method, never_sent=isinstance(exc, _NEVER_SENT), bounded=isinstance(exc, AnswerDeadline),
                    too_large=isinstance(exc, AnswerTooLarge), resendable=until is not None)
                outage = None if bounded or not transient(exc) else self.pause.note_outage()
                delay = self._delay(attempt, started, slept, None, until=until, outage=outage) if retry else None
                if self.log:
                    self.log(f"! {type(exc).__name__}: {redact_text(str(exc))}"
                             + (f" (retrying in {delay:.1f} s)" if delay is not None else ""))
                if delay is None:
                    raise
                slept += delay
                self.pause.hold(delay, outage=outage is not None)
                continue
            if self.log:
                response = self._log_response(response)
            status = response.status_code
            self.pause.reached = True
            if outcomes is not None:
                outcomes.append(status)
            outage = self.pause.note_outage() if status in OUTAGE_STATUSES else None
            if outage is None:
                self.pause.note_answer(refused=status == 429)
            # A POST is resent only after a refusal (429; 503 when it carries a key); any other answer may
            # follow a create the service applied, and a deployment may ignore Idempotency-Key: the
            # Client looks the record up before sending it again (G20).
            if self.policy.retries_answer(method, status, keyed=keyed, resendable=until is not None):
                delay = self._delay(attempt, started, slept, response.headers.get("retry-after"),
                                    date=response.headers.get("date"), until=until, outage=outage,
                                    refused=status == 429)
                if delay is not None:
                    if self.log:
                        self.log(f"! HTTP {status}: retrying in {delay:.1f} s")
                    response.close()
                    slept += delay
                    if status == 429:
                        self.pause.throttle(delay)  # paced, the pool with it: not a try of this request
                    else:
                        self.pause.hold(delay, outage=outage is not None)
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
            except httpx.RemoteProtocolError as exc:  # a head no client reads is the service's answer, refused
                refused = refused_head(exc)
                if refused is None:
                    raise
                refused.request = request
                raise refused from None
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

    def _delay(self, attempt: int, started: float, slept: float, retry_after: str | None, *,
               date: str | None = None, until: float | None = None, outage: float | None = None,
               refused: bool = False) -> float | None:
        """The policy's wait before the next attempt, or None (what we waited counts even when `sleep`
        is a test's fake)."""
        return self.policy.delay(attempt, max(self.clock() - started, slept), retry_after, date=date,
                                 until=until, outage=outage, refused=refused)

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


def _request_body(request: httpx.Request) -> bytes:
    try:
        return request.content
    except httpx.RequestNotRead:
        return b""


def make_transport(*, inner: httpx.BaseTransport | None = None, policy: RetryPolicy | None = None,
                   log: Callable[[str], None] | None = None, sleep: Callable[[float], None] | None = None,
                   tls: bool = True, verify: ssl.SSLContext | None = None, deadline: float | None = None,
                   max_answer: int = MAX_ANSWER_BYTES, pause: Pause | None = None,
                   **transport_options: Any) -> RetryTransport:
    """The retrying transport. With `tls`, https connections use `verify`, or else the default trust of
    wfctl.api.net.tls (the OS store and certifi). `tls=False` for a Client whose origin is http://: it never
    leaves that origin (every URL, redirect and nextPage is checked), so its pool never starts TLS and
    loading CAs (a start-up cost) is skipped; the context given instead has no CA at all, so a TLS connection
    through it would fail verification rather than go unchecked."""
    if inner is None and tls:
        if verify is None:
            from wfctl.api.net.tls import ssl_context

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
                          max_answer=max_answer, pause=pause)
