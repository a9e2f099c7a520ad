"""Lean writes for bulk runs: one persistent `http.client` connection per worker thread.

Why not the Client's httpx session for the row writes: with several threads creating records on one
server, `http.client` connections serve far more requests a second than a shared httpx.Client (README,
Performance, notes). The per-request cost of httpx's pool and
h11 is what the import's throughput is made of, so the rows take the lean path; everything else
(listing, lookups, the token and its refresh, error mapping) stays with the Client.

Used only where it changes nothing else: plain http(s) without a proxy, no verbose log, no custom
transport, and the Client's G19 check passed (`Client.lean_writer` decides, and hands over its retry
policy and the pause of its transport). `WFCTL_BULK_HTTPX=1` turns it off.

What is sent again, and after what wait, is the Client's `RetryPolicy` (wfctl.api.retry), as for every
request through httpx: the same attempts, the same waits, and a wait here holds the Client's requests too.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from wfctl.api.limits import (
    AnswerDeadline,
    AnswerTooLarge,
    DeadlineReader,
    deadline_at,
    give_back_read,
    read_bounded,
    refused_head,
)
from wfctl.api.retry import OUTAGE_STATUSES, Pause, RetryPolicy, transient

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


class LeanSender:
    """`request(method, path, body, idempotency_key)` -> decoded JSON; non-2xx raises ApiError.

    `api` is the Client (its public `base_url`, `timeout`, `ssl_context()`, `token_pair()` and, for a
    401, `request()`); `policy` and `pause` say what is sent again and hold the pool during a wait."""

    def __init__(self, api: Any, *, policy: RetryPolicy | None = None, pause: Pause | None = None) -> None:
        self.api = api
        self.policy = policy or RetryPolicy()
        self.pause = pause or Pause()
        parts = urlsplit(api.base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._local = threading.local()
        self._pair: Any = None
        self._token_lock = threading.Lock()
        from wfctl.api.responses import user_agent

        self._user_agent = user_agent()

    @staticmethod
    def usable(base_url: str) -> bool:
        """Whether the environment lets the lean path change nothing but speed (no proxy, http(s), not
        turned off); the Client checks its own options (see `Client.lean_writer`)."""
        if os.environ.get("WFCTL_BULK_HTTPX", "") not in ("", "0"):
            return False
        if any(os.environ.get(name) for name in PROXY_VARIABLES):
            return False
        return urlsplit(base_url).scheme in ("http", "https")

    def request(self, method: str, path: str, body: Any, idempotency_key: str | None = None) -> Any:
        try:
            return self._request(method, path, body, idempotency_key)
        except Exception as exc:
            # The frames of its traceback hold the answer's bytes (a refused one too): dropped here, as the
            # budget they are given back to (wfctl.api.limits.ANSWERS) says, not when the caller is done.
            exc.__context__ = exc.__cause__ = None
            raise exc.with_traceback(None) from None
        finally:
            give_back_read()
            self.pause.done()

    def _request(self, method: str, path: str, body: Any, idempotency_key: str | None) -> Any:
        payload = json.dumps(body).encode() if body is not None else b""  # None: no body (a DELETE)
        self._local.replayed = False
        policy, pause = self.policy, self.pause
        pause.wait()
        started = time.monotonic()
        slept = 0.0  # what we waited, counted even when the Client's `sleep` is a test's fake
        attempt = 0
        while True:
            attempt += 1
            headers = {"Accept": "application/json", "Authorization": f"Bearer {self._access_token()}",
                       "User-Agent": self._user_agent}
            if payload:
                headers["Content-Type"] = "application/json"
            if idempotency_key:
                headers["Idempotency-Key"] = idempotency_key
            timeout = float(getattr(self.api, "timeout", 30.0))
            try:
                conn = self._connection()
                if conn.sock is None:  # connected apart: a failure here means the request never left
                    with deadline_at(time.monotonic() + timeout):
                        conn.connect()
            except (OSError, http.client.HTTPException) as exc:
                slept += self._wait_to_resend(exc, method, attempt, started, slept, never_sent=True)
                continue
            try:
                with deadline_at(time.monotonic() + timeout):  # the whole exchange, body included
                    conn.request(method, self._prefix + path, body=payload, headers=headers)
                    response = conn.getresponse()
                    data = read_bounded(response)
            except AnswerDeadline:
                self._drop_connection()
                from wfctl.api.errors import NetworkError

                raise NetworkError(f"no complete answer from {self.api.base_url} within {timeout:g} s",
                                   detail=f"the request's deadline (timeout {timeout:g} s) passed") from None
            except (AnswerTooLarge, http.client.HTTPException, OSError) as exc:
                # An answer too large, or a head no client reads, is the service's answer: refused, not resent.
                refused = exc if isinstance(exc, AnswerTooLarge) else refused_head(exc)
                if refused is None:
                    # The answer is lost: a PUT is sent again (idempotent); a create is the Client's to look up.
                    slept += self._wait_to_resend(exc, method, attempt, started, slept, never_sent=False)
                    continue
                self._drop_connection()
                from wfctl.api.errors import ServerError

                raise ServerError(f"refused the answer of {self.api.base_url}", detail=str(refused)) from None
            if response.will_close:
                self._drop_connection()
            status = response.status
            if status == 401 or 300 <= status < 400:
                # Let the Client do what it does on a 401 (refresh once and replay) and on a redirect
                # (httpx follows it by its rules, to the service's own origin only).
                if status == 401:
                    self._pair = None
                from wfctl.api.responses import decode_body

                answer = self.api.send(method, path, json=body, idempotency_key=idempotency_key)
                self._local.replayed = answer.headers.get("Idempotent-Replayed", "").lower() == "true"
                return decode_body(answer)
            outage = pause.note_outage() if status in OUTAGE_STATUSES else None
            if outage is None:
                pause.note_answer()
            if status >= 400:
                if policy.retries_answer(method, status, keyed=bool(idempotency_key)):
                    delay = policy.delay(attempt, max(time.monotonic() - started, slept),
                                         response.getheader("Retry-After"), date=response.getheader("Date"),
                                         outage=outage)
                    if delay is not None:
                        slept += delay
                        pause.hold(delay, outage=outage is not None)
                        continue
                raise self._error(method, path, status, response.getheaders(), data)
            self._local.replayed = (response.getheader("Idempotent-Replayed") or "").lower() == "true"
            if not data.strip():
                return None
            from wfctl.api.responses import parse_json

            return parse_json(data, status=status)

    def replayed(self) -> bool:
        """Whether this thread's last answer was a replay of an earlier one for its Idempotency-Key."""
        return bool(getattr(self._local, "replayed", False))

    # -- private -----------------------------------------------------------------------------

    def _access_token(self) -> str:
        pair = self._pair
        if pair is None or (pair.expires_at and pair.needs_refresh()):
            with self._token_lock:
                pair = self._pair
                if pair is None or (pair.expires_at and pair.needs_refresh()):
                    pair = self._pair = self.api.token_pair()
        return str(pair.access_token)

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and _closed_by_server(conn):
            # The server closed this kept-alive connection (its idle timeout): a request written to it
            # would be lost unread, and a create then looked up by name. A new connection instead: the
            # request provably never left, so nothing needs looking up.
            self._drop_connection()
            conn = None
        if conn is None:
            timeout = float(getattr(self.api, "timeout", 30.0))
            if self._https:  # the Client's own SSL context: the same CAs as every other request
                conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                                   context=self.api.ssl_context())
            else:
                conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
            conn.response_class = _DeadlineResponse
            self._local.conn = conn
        return conn

    def _wait_to_resend(self, exc: Exception, method: str, attempt: int, started: float, slept: float, *,
                        never_sent: bool) -> float:
        """After a failed attempt (the request `never_sent`, or its answer lost): wait as the policy says
        before the next one and return the wait, or raise the network error when it says to give up."""
        self._drop_connection()
        policy = self.policy
        outage = self.pause.note_outage() if transient(exc) else None
        delay = (policy.delay(attempt, max(time.monotonic() - started, slept), outage=outage)
                 if outage is not None and policy.retries_failure(method, never_sent=never_sent) else None)
        if delay is None:
            from wfctl.api.responses import network_error

            raise network_error(self.api.base_url, exc) from None
        self.pause.hold(delay, outage=True)
        return delay

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _error(self, method: str, path: str, status: int, headers: list[tuple[str, str]], data: bytes) -> Exception:
        import httpx

        from wfctl.api.responses import error_from_response

        request = httpx.Request(method, self.api.base_url + path)
        # http.client gave the header values as latin-1 text: back to their bytes, which httpx takes whatever
        # they hold (as text it would take ASCII only: `Retry-After: ²` was a raw UnicodeEncodeError).
        raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        error = error_from_response(httpx.Response(status, headers=raw, content=data, request=request))
        retry_after = next((value for name, value in headers if name.lower() == "retry-after"), None)
        if retry_after is not None:
            from wfctl.api.retry import parse_retry_after

            date = next((value for name, value in headers if name.lower() == "date"), None)
            error.retry_after = parse_retry_after(retry_after, date=date)  # type: ignore[attr-defined]
        return error


def _closed_by_server(conn: http.client.HTTPConnection) -> bool:
    """Whether an idle kept-alive connection was closed (or reset) by the server: its socket is readable
    before any request was written on it (an EOF, or bytes nobody asked for)."""
    import select

    sock = conn.sock
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _DeadlineResponse(http.client.HTTPResponse):
    """http.client's response, reading its socket through DeadlineReader: the status line, the headers
    and the body all end by the exchange's deadline, however slowly the server sends them."""

    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        # http.client's own file on the socket is kept until the response is done: while it is open, the
        # connection closing its socket (a `Connection: close` answer) leaves the descriptor to us.
        self._socket_file: Any = self.fp
        self.fp = io.BufferedReader(DeadlineReader(sock, sock.gettimeout()))

    def _close_conn(self) -> None:
        super()._close_conn()  # type: ignore[misc]
        socket_file, self._socket_file = self._socket_file, None
        if socket_file is not None:
            socket_file.close()
