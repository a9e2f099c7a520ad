"""Bounds on what one connection may make the server hold or wait for, before any login (issue 26 §4).

uvicorn's httptools protocol accumulates a request's head (request line and headers) for as long as it
keeps coming, and waits for it and for the body without a deadline: a few very large headers were all held in
memory, and a head dripped a byte at a time holds a connection for ever. `GuardedHttpToolsProtocol` is that
protocol with limits (h11, uvicorn's fallback without httptools, bounds the head size by its own
`h11_max_incomplete_event_size`; the deadlines are httptools-only):

- a request head above MAX_HEAD_BYTES, or with more than MAX_HEADERS header fields: 431, connection closed
  (the bytes past the limit are never fed to the parser, so nothing grows);
- a head not complete HEAD_TIMEOUT seconds after the connection opened (or after its first byte, for a
  later request on a kept-alive connection): 408, closed (a connection that sent nothing is just closed);
- a body not complete BODY_TIMEOUT seconds after its head: 408, closed (the handler sees the client gone).

Every answer here is a problem document (G10) with `Connection: close`. Other connections are not slowed:
everything is bounded per connection, on the event loop, without a thread.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Bytes of a request line and its headers together (nginx's default large_client_header_buffers is 4 x 8 KiB).
MAX_HEAD_BYTES = 32 * 1024
#: Header fields of one request (Apache's LimitRequestFields).
MAX_HEADERS = 100
#: Seconds to receive a request's head.
HEAD_TIMEOUT = 10.0
#: Seconds to receive a request's body once its head has arrived (1 MiB, --max-body's default, at 35 KB/s).
BODY_TIMEOUT = 30.0
#: Seconds a refused connection is still read (and what arrives dropped) after its answer, before it is closed:
#: closing with unread data would reset the connection and could destroy the answer before the client reads it.
LINGER = 2.0


class _Refused(Exception):
    """Raised in a parser callback: the request is refused with this status (the parser stops)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    max_head_bytes = MAX_HEAD_BYTES
    max_headers = MAX_HEADERS
    head_timeout = HEAD_TIMEOUT
    body_timeout = BODY_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._head_bytes = 0
        self._header_count = 0
        self._refusal: _Refused | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._discarding = False

    # ---- deadlines --------------------------------------------------------------------------------

    def _arm(self, seconds: float, status: int, detail: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expired, status, detail)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, status: int, detail: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if self._in_head and self._head_bytes == 0:
            self.transport.close()  # nothing was asked: nothing to answer
        elif cycle is not None and not self._in_head and (cycle.response_started or cycle.response_complete):
            self.transport.close()  # answered already, but the body still drips: just end it
        else:
            self._refuse(status, detail)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.head_timeout, 408, f"the request head did not arrive within {self.head_timeout:g} seconds")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    # ---- the head's size --------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        self._unset_keepalive_if_required()
        while data and not self.transport.is_closing():
            if self._in_head:
                room = self.max_head_bytes - self._head_bytes
                if room <= 0:
                    self._refuse(431, f"the request head is larger than {self.max_head_bytes} bytes")
                    return
                chunk, data = data[:room], data[room:]
                self._head_bytes += len(chunk)
            else:
                chunk, data = data, b""
            if not self._feed(chunk):
                return

    def _feed(self, chunk: bytes) -> bool:
        """Give the parser a chunk, as uvicorn's data_received does; False once the connection is done."""
        try:
            self.parser.feed_data(chunk)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return False
        except (httptools.HttpParserError, _Refused):
            if self._refusal is not None:
                self._refuse(self._refusal.status, self._refusal.detail)
            else:
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)
            return False
        return True

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_count = 0
        if self._deadline is None:  # a later request on a kept-alive connection: its head starts now
            self._arm(self.head_timeout, 408, f"the request head did not arrive within {self.head_timeout:g} "
                                              "seconds")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        if self._header_count > self.max_headers:
            self._refusal = _Refused(431, f"the request has more than {self.max_headers} header fields")
            raise self._refusal
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._arm(self.body_timeout, 408, f"the request body did not arrive within {self.body_timeout:g} seconds")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()  # until the next request's first byte, uvicorn's keep-alive timeout applies
        self._in_head, self._head_bytes = True, 0
        super().on_message_complete()

    # ---- refusing ---------------------------------------------------------------------------------

    def _refuse(self, status: int, detail: str) -> None:
        """Answer `status` (a problem document), close the connection, and let a running handler see the
        client gone."""
        self._disarm()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            started = cycle.response_started
            cycle.disconnected = True  # whatever the handler sends now is dropped
            cycle.message_event.set()
            if started:
                self.transport.close()
                return
        phrase = HTTPStatus(status).phrase
        body = json.dumps({"type": "about:blank", "title": phrase, "status": status, "detail": detail}).encode()
        head = [f"HTTP/1.1 {status} {phrase}", "content-type: application/problem+json",
                f"content-length: {len(body)}", "connection: close"]
        head += [f"{name.decode('latin-1')}: {value.decode('latin-1')}"
                 for name, value in self.server_state.default_headers]
        self.transport.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        if self.transport.can_write_eof():  # the answer, then end of stream; read and drop what still comes
            self.transport.write_eof()
            self._discarding = True
            self.loop.call_later(LINGER, self.transport.close)
        else:  # TLS: no half-close
            self.transport.close()
