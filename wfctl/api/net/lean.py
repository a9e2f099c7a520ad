"""Lean writes for bulk runs: one persistent `http.client` connection per worker thread.

Why not the Client's httpx session for the row writes: with several threads creating records on one
server, `http.client` connections serve far more requests a second than a shared httpx.Client (README,
Performance, notes). The per-request cost of httpx's pool and
h11 is what the import's throughput is made of, so the rows take the lean path; everything else
(listing, lookups, the token and its refresh, error mapping) stays with the Client.

Used only where it changes nothing else: plain http(s) without a proxy, no verbose log, no custom
transport, and the Client's G19 check passed (`RunSupport.lean_writer`, wfctl.api.runsupport, decides, and hands over its retry
policy and the pause of its transport). `WFCTL_BULK_HTTPX=1` turns it off.

What is sent again, and after what wait, is the Client's `RetryPolicy` (wfctl.api.net.retry), as for every
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

from wfctl.api.net.limits import (
    AnswerDeadline,
    AnswerTooLarge,
    DeadlineReader,
    deadline_at,
    give_back_read,
    read_bounded,
    refused_head,
)
from wfctl.api.net.retry import OUTAGE_STATUSES, Pause, RetryPolicy, refused_at_first, transient

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


class LeanSender:
    """`request(method, path, body, idempotency_key)` -> decoded JSON; non-2xx raises ApiError.

    `api` is the Client (its `base_url`, `timeout`, SSL context, `access_token()`, its token source's
    answer asked on every request, and, for a 401, `send()`); `policy` and `pause` say what is sent again
    and hold the pool during a wait."""

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
        from wfctl.api.net.responses import user_agent

        self._user_agent = user_agent()

    @staticmethod
    def usable(base_url: str) -> bool:
        """Whether the environment lets the lean path change nothing but speed (no proxy, http(s), not
        turned off); the Client checks its own options (see `RunSupport.lean_writer`)."""
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
            # budget they are given back to (wfctl.api.net.limits.ANSWERS) says, not when the caller is done.
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
                # the whole exchange, body included, under its deadline; fewer at once while answered 429
                with pause.admitted(), deadline_at(time.monotonic() + timeout):
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
            pause.reached = True
            if status == 401 or 300 <= status < 400:
                # Let the Client do what it does on a 401 (refresh once and replay) and on a redirect
                # (httpx follows it by its rules, to the service's own origin only).
                from wfctl.api.net.responses import decode_body

                answer = self.api.send(method, path, json=body, idempotency_key=idempotency_key)
                self._local.replayed = answer.headers.get("Idempotent-Replayed", "").lower() == "true"
                return decode_body(answer)
            outage = pause.note_outage() if status in OUTAGE_STATUSES else None
            if outage is None:
                pause.note_answer(refused=status == 429)
            if status >= 400:
                if policy.retries_answer(method, status, keyed=bool(idempotency_key)):
                    delay = policy.delay(attempt, max(time.monotonic() - started, slept),
                                         response.getheader("Retry-After"), date=response.getheader("Date"),
                                         outage=outage, refused=status == 429)
                    if delay is not None:
                        slept += delay
                        if status == 429:
                            pause.throttle(delay)  # paced, every worker with it: not a try of this row
                        else:
                            pause.hold(delay, outage=outage is not None)
                        continue
                raise self._error(method, path, status, response.getheaders(), data)
            self._local.replayed = (response.getheader("Idempotent-Replayed") or "").lower() == "true"
            if not data.strip():
                return None
            from wfctl.api.net.responses import parse_json

            return parse_json(data, status=status)

    def replayed(self) -> bool:
        """Whether this thread's last answer was a replay of an earlier one for its Idempotency-Key."""
        return bool(getattr(self._local, "replayed", False))

    # -- private -----------------------------------------------------------------------------

    def _access_token(self) -> str:
        """The Client's token source, asked on every request (a stored login's pair is kept in memory and
        refreshed under the login's lock when about to expire; a script's source decides for itself)."""
        return str(self.api.access_token())

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
                                                   context=self.api._ssl_context())
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
        outage = self.pause.note_outage() if transient(exc) and not refused_at_first(exc, self.pause) else None
        delay = (policy.delay(attempt, max(time.monotonic() - started, slept), outage=outage)
                 if outage is not None and policy.retries_failure(method, never_sent=never_sent) else None)
        if delay is None:
            from wfctl.api.net.responses import network_error

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

        from wfctl.api.net.responses import error_from_response

        request = httpx.Request(method, self.api.base_url + path)
        # http.client gave the header values as latin-1 text: back to their bytes, which httpx takes whatever
        # they hold (as text it would take ASCII only: `Retry-After: ²` was a raw UnicodeEncodeError).
        raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        error = error_from_response(httpx.Response(status, headers=raw, content=data, request=request))
        retry_after = next((value for name, value in headers if name.lower() == "retry-after"), None)
        if retry_after is not None:
            from wfctl.api.net.retry import parse_retry_after

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
    and the body all end by the exchange's deadline, however slowly the server sends them. Its head is
    read as `HTTPResponse.begin` reads it, but for the headers: http.client hands them to the email
    package's parser, which took more of a bulk run's client time than anything else (issue 43); here
    they are split as RFC 9112 writes them, into `_Headers`."""

    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self._asked = kwargs.get("method") or (args[1] if len(args) > 1 else None)
        # http.client's own file on the socket is kept until the response is done: while it is open, the
        # connection closing its socket (a `Connection: close` answer) leaves the descriptor to us.
        self._socket_file: Any = self.fp
        self.fp = io.BufferedReader(DeadlineReader(sock, sock.gettimeout()))

    def _close_conn(self) -> None:
        super()._close_conn()  # type: ignore[misc]
        socket_file, self._socket_file = self._socket_file, None
        if socket_file is not None:
            socket_file.close()

    def begin(self) -> None:
        if self.headers is not None:
            return
        while True:  # a 100 Continue, its headers skipped, then the answer
            version, status, reason = self._status_line()
            headers = _Headers(self._head_lines())
            if status != http.client.CONTINUE:
                break
        self.code = self.status = status
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        self.headers = self.msg = headers
        self.chunked = (headers.get("transfer-encoding") or "").lower() == "chunked"
        self.chunk_left = None
        connection = (headers.get("connection") or "").lower()
        self.will_close = ("close" in connection if self.version == 11 else
                           "keep-alive" not in connection and not headers.get("keep-alive"))
        self.length = None
        length = headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                self.length = None
            else:
                if self.length < 0:
                    self.length = None
        if status in (204, 304) or 100 <= status < 200 or self._asked == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True

    def _status_line(self) -> tuple[str, int, str]:
        line = str(self.fp.readline(_MAX_LINE + 1), "iso-8859-1")
        if len(line) > _MAX_LINE:
            raise http.client.LineTooLong("status line")
        if not line:
            raise http.client.RemoteDisconnected("Remote end closed connection without response")
        try:
            version, status, reason = line.split(None, 2)
        except ValueError:
            try:
                version, status = line.split(None, 1)
                reason = ""
            except ValueError:
                version = ""
        if not version.startswith("HTTP/"):
            self._close_conn()
            raise http.client.BadStatusLine(line)
        try:
            code = int(status)
        except ValueError:
            raise http.client.BadStatusLine(line) from None
        if code < 100 or code > 999:
            raise http.client.BadStatusLine(line)
        return version, code, reason

    def _head_lines(self) -> list[str]:
        lines: list[str] = []
        while True:
            line = self.fp.readline(_MAX_LINE + 1)
            if len(line) > _MAX_LINE:
                raise http.client.LineTooLong("header line")
            if line in (b"\r\n", b"\n", b""):
                return lines
            lines.append(line.decode("iso-8859-1"))
            if len(lines) > _MAX_HEADERS:
                raise http.client.HTTPException(f"got more than {_MAX_HEADERS} headers")


_MAX_LINE = 65536  # http.client's bounds of a head's line and of its headers
_MAX_HEADERS = 100


class _Headers:
    """An answer's headers as http.client's response reads them (`get`, `get_all`, `items`), names in
    any case; a line that starts with white space continues the one before (obsolete folding, read as
    one space)."""

    def __init__(self, lines: list[str]) -> None:
        self._items: list[tuple[str, str]] = []
        for line in lines:
            if line[:1] in (" ", "\t") and self._items:
                name, value = self._items[-1]
                self._items[-1] = (name, f"{value} {line.strip()}".strip())  # RFC 9112 5.2: a space
                continue
            name, colon, value = line.partition(":")
            if colon:
                self._items.append((name, value.lstrip(" \t").rstrip("\r\n")))
        self._by_name: dict[str, list[str]] = {}
        for name, value in self._items:
            self._by_name.setdefault(name.lower(), []).append(value)

    def get(self, name: str, default: Any = None) -> Any:
        values = self._by_name.get(name.lower())
        return values[0] if values else default

    def get_all(self, name: str, default: Any = None) -> Any:
        return list(self._by_name.get(name.lower(), ())) or default

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._by_name
