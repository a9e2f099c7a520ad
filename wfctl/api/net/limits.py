"""What the client accepts from a server: a bounded answer, within a deadline.

- Size: an answer's body is read (and decompressed) up to `MAX_ANSWER_BYTES` (64 MiB, far above the
  largest page the contract allows: 100 records of a few KB each). A larger one, by its
  Content-Length or as it arrives, stops with `AnswerTooLarge`; a compressed body is inflated in
  bounded pieces, so a gzip bomb costs at most the limit, never its inflated size. Only the
  encodings wfctl asks for (gzip, deflate) are accepted; another one is refused the same way.
- Time: every exchange (connecting, sending, the status line, the headers and the whole body) ends
  within one deadline, the Client's `timeout` (default 30 s). Each socket read and write waits at most
  what is left of it, so a server that drips its answer a byte a second is dropped when the deadline
  passes (`AnswerDeadline`), not after the per-read timeout has been reset a thousand times.

The deadline of the exchange running on this thread is kept in a thread-local: the retry transport
(wfctl.api.net.transport) sets it around each attempt and each read of the body; the socket streams under
httpx (`DeadlineBackend`) and under the bulk import's lean writer (`DeadlineReader`) clamp their
timeouts to it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

import httpx

#: The largest answer body (after decompression) wfctl reads; and what the process holds of answers at once,
#: every request and thread together (`ANSWERS`).
MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: The encodings wfctl asks for and inflates itself (in bounded pieces).
ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 64 * 1024

_local = threading.local()


class AnswerTooLarge(httpx.TransportError):
    """The answer's body is larger than the limit, or in an encoding wfctl did not ask for."""


class AnswerMalformed(AnswerTooLarge):
    """The answer's head (status line and headers) is one no HTTP client reads: larger than the reader takes
    (httpx: 100 KiB; the lean writer's http.client: a line of 64 KiB, 100 headers), or not HTTP. Refused as
    an answer too large is (said, not sent again): the service answered, so it is not "cannot reach"."""


#: How h11 (under httpx) begins the message of a head it cannot read; anything else (a connection closed or
#: reset mid-answer) is the network's failure.
_MALFORMED_HEAD = ("illegal", "bad content-length", "conflicting content-length", "continuation line",
                   "multiple transfer-encoding", "only transfer-encoding", "malformed", "no response line",
                   "status code must be", "response status_code", "found multiple host")


def refused_head(exc: BaseException) -> AnswerMalformed | None:
    """The AnswerMalformed a failure to read an answer's head stands for, or None when the connection was
    lost (closed, reset, nothing answered: the network's failure, as before)."""
    import http.client

    text = " ".join(str(exc).split())
    if isinstance(exc, httpx.RemoteProtocolError):
        if "Receive buffer too long" in text:
            return AnswerMalformed("the answer's status line and headers are larger than 100 KiB")
        if text.lower().startswith(_MALFORMED_HEAD):
            return AnswerMalformed(f"the answer's status line or headers are not HTTP ({text[:200]})")
        return None
    if isinstance(exc, http.client.LineTooLong):
        return AnswerMalformed("a line of the answer's status line and headers is longer than 64 KiB")
    if isinstance(exc, http.client.HTTPException) and "got more than" in text:
        return AnswerMalformed(f"the answer has too many headers ({text})")
    return None


class AnswerDeadline(httpx.TimeoutException):
    """The exchange did not finish within its deadline."""

    def __init__(self, message: str, *, request: httpx.Request | None = None, seconds: float = 0.0) -> None:
        super().__init__(message, request=request)
        self.seconds = seconds


class AnswerBudget:
    """What the process holds of answers at once, every Client and thread together: one bound for a whole
    command, not one per request (issue 45: 64 MiB an answer let a hostile server take a `-j 16` import to
    859 MB, and a 56 MiB page of 600,000 records to 557 MB once decoded).

    A body takes its bytes as they arrive and gives them back when they are dropped (BoundedBody: when its
    response is freed; read_bounded: when the lean writer's request ends, `give_back_read`); decoding JSON
    takes `decoded_size` more for as long as it runs (`decoding`). What does not fit is refused
    (AnswerTooLarge) instead of waited for: a request never waits on another's memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held = 0
        self._freed = 0  # given back since memory was last handed back to the system
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        return self._held

    def take(self, size: int) -> bool:
        if self._take(size):
            return True
        # Answers dropped but not yet freed (held in a reference cycle until the cyclic collector runs: an
        # SDK user's long-lived process, a test process) still count: freed now, and asked once more.
        import gc

        gc.collect()
        return self._take(size)

    def _take(self, size: int) -> bool:
        with self._lock:
            if self._held + size > self.limit:
                return False
            self._held += size
            return True

    def give(self, size: int) -> None:
        with self._lock:
            self._held = max(0, self._held - size)
            self._freed += size
            trim = self._freed >= self.limit // 8
            if trim:
                self._freed = 0
        if trim:
            _return_free_memory()


def _return_free_memory() -> None:
    """Hand the memory of the answers dropped back to the system (glibc's malloc_trim; elsewhere nothing).
    Without it, the 64 KiB pieces of large answers read by 16 threads stay in their threads' malloc arenas
    after they are freed: a -j 16 import against 60 MiB answers grew to 340 MB with ANSWERS holding 64 MiB."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


#: The process's one budget of answers.
ANSWERS = AnswerBudget(MAX_ANSWER_BYTES)


def decoded_size(data: bytes) -> int:
    """About what decoding `data` as JSON holds at its peak besides the bytes: their text, and what json
    builds (64 bytes an object or array, 80 a member). Measured (tracemalloc) against what json.loads builds,
    it is 1.0-1.6x it for records, strings and objects with many keys, and more for arrays of small values:
    never much less."""
    return len(data) + 64 * (data.count(b"{") + data.count(b"[")) + 80 * data.count(b",")


@contextlib.contextmanager
def decoding(data: bytes) -> Iterator[None]:
    """Hold, for the block, the room decoding `data` takes (ANSWERS); AnswerTooLarge when the process cannot
    hold it besides the answers it holds already."""
    size = decoded_size(data)
    if not ANSWERS.take(size):
        raise AnswerTooLarge(f"{size_text(len(data))} of JSON, about {size_text(size)} once read: more than the "
                             f"{size_text(ANSWERS.limit)} wfctl holds of answers at once")
    try:
        yield
    finally:
        ANSWERS.give(size)


def size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"


# -- the deadline of this thread's exchange ------------------------------------------------------
def current_deadline() -> float | None:
    """The monotonic time by which this thread's exchange must end, or None."""
    return getattr(_local, "deadline", None)


@contextlib.contextmanager
def deadline_at(end: float | None) -> Iterator[None]:
    """Run the block under the deadline `end` (monotonic seconds; None: no deadline)."""
    before = getattr(_local, "deadline", None)
    _local.deadline = end
    try:
        yield
    finally:
        _local.deadline = before


def clamp(timeout: float | None) -> float | None:
    """`timeout` shortened to what is left of this thread's deadline (at least a millisecond, so a
    socket call that is already late fails at once instead of blocking)."""
    end = current_deadline()
    if end is None:
        return timeout
    left = max(0.001, end - time.monotonic())
    return left if timeout is None else min(timeout, left)


def passed(end: float | None) -> bool:
    return end is not None and time.monotonic() >= end - 0.0005


# -- httpx: a network backend whose streams honour the deadline -----------------------------------
class _DeadlineStream:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return bytes(self._inner.read(max_bytes, clamp(timeout)))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> Any:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, clamp(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend:
    """httpcore's network backend, with every read, write and connect clamped to the deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        return _DeadlineStream(self._inner.connect_tcp(host, port, clamp(timeout), local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        return _DeadlineStream(self._inner.connect_unix_socket(path, clamp(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install_deadline_backend(transport: Any) -> bool:
    """Put DeadlineBackend under an httpx.HTTPTransport's connection pool (before its first request).
    False when the pool has no backend to wrap (another httpcore layout): the deadline is then checked
    between reads only."""
    from wfctl.api.compat import pool_backend, set_pool_backend

    backend = pool_backend(transport)
    if backend is None:
        return False
    if not isinstance(backend, DeadlineBackend):
        return set_pool_backend(transport, DeadlineBackend(backend))
    return True


# -- a bounded, inflated body --------------------------------------------------------------------
class _Inflater:
    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.raw_deflate = False
        self.obj = zlib.decompressobj(zlib.MAX_WBITS | 16 if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS)
        self.started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.encoding == "deflate" and not self.started and data:
            self.started = True
            try:  # "deflate" is meant to be zlib-wrapped; some servers send a raw deflate stream
                probe = zlib.decompressobj(zlib.MAX_WBITS)
                probe.decompress(data[:64], 1)
            except zlib.error:
                self.obj = zlib.decompressobj(-zlib.MAX_WBITS)
        while True:
            try:
                out = self.obj.decompress(data, _PIECE)
            except zlib.error as exc:
                raise AnswerTooLarge(f"the answer's {self.encoding} body is damaged ({exc})") from None
            data = self.obj.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < _PIECE:
                return

    def finish(self) -> Iterator[bytes]:
        yield from self.feed(b"")
        tail = self.obj.flush()
        if tail:
            yield tail


class BoundedBody(httpx.SyncByteStream):
    """The body of `inner`: inflated (gzip/deflate, any number of layers) in pieces of at most 64 KiB,
    at most `limit` bytes at every layer, and read under the deadline `end`."""

    def __init__(self, inner: httpx.SyncByteStream, encodings: list[str], *, limit: int,
                 end: float | None, seconds: float, request: httpx.Request | None = None) -> None:
        self._inner = inner
        self._layers = [_Inflater(e) for e in reversed(encodings)]
        self._limit = limit
        self._end = end
        self._seconds = seconds
        self._request = request
        self._held = 0  # of ANSWERS: this body's bytes, given back when it closes

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._read()
        except BaseException:  # a read that failed keeps none of its bytes: given back now, not when the
            self._give_back()  # exception (and the frames holding this body) is dropped, which may be never
            raise

    def _read(self) -> Iterator[bytes]:
        sizes = [0] * (len(self._layers) + 1)
        raw = iter(self._inner)
        while True:
            with deadline_at(self._end):
                try:
                    chunk = next(raw, None)
                except httpx.TimeoutException:
                    if passed(self._end):
                        raise self._late() from None
                    raise
            if chunk is None:
                break
            if passed(self._end):
                raise self._late()
            yield from self._through(chunk, 0, sizes)
        for index in range(len(self._layers)):
            for piece in self._layers[index].finish():
                yield from self._through(piece, index + 1, sizes)

    def _through(self, data: bytes, layer: int, sizes: list[int]) -> Iterator[bytes]:
        sizes[layer] += len(data)
        if sizes[layer] > self._limit:
            raise AnswerTooLarge(f"the answer is larger than {size_text(self._limit)}", request=self._request)
        if layer == len(self._layers):
            if not ANSWERS.take(len(data)):
                raise AnswerTooLarge(f"the answers being read at once are larger than {size_text(ANSWERS.limit)}",
                                     request=self._request)
            self._held += len(data)
            yield data
            return
        for piece in self._layers[layer].feed(data):
            yield from self._through(piece, layer + 1, sizes)

    def _late(self) -> AnswerDeadline:
        return AnswerDeadline(f"no complete answer within {self._seconds:g} s", request=self._request,
                              seconds=self._seconds)

    def close(self) -> None:
        self._inner.close()

    def __del__(self) -> None:  # freed with its response, and so with the bytes read (response.content)
        self._give_back()

    def _give_back(self) -> None:
        held, self._held = getattr(self, "_held", 0), 0  # 0 when __init__ did not get as far
        ANSWERS.give(held)


def bounded_response(response: httpx.Response, request: httpx.Request, *, limit: int, end: float | None,
                     seconds: float) -> httpx.Response:
    """`response` whose body is read through BoundedBody: inflated here (its Content-Encoding and
    Content-Length headers go, so httpx does not decode it again) and bounded."""
    encodings = [v.strip().lower() for v in response.headers.get_list("content-encoding", split_commas=True)]
    encodings = [e for e in encodings if e and e != "identity"]
    unknown = [e for e in encodings if e not in ("gzip", "x-gzip", "deflate")]
    if unknown:
        response.close()
        raise AnswerTooLarge(f"the answer is in the content-encoding {unknown[0]!r}, which wfctl did not ask for",
                             request=request)
    length = response.headers.get("content-length", "")
    if _declared(length) > limit:
        response.close()
        raise AnswerTooLarge(f"the answer is larger than {size_text(limit)} (Content-Length {_declared(length):,})",
                             request=request)
    headers = httpx.Headers(response.headers)
    if encodings:
        del headers["content-encoding"]
        headers.pop("content-length", None)
    assert isinstance(response.stream, httpx.SyncByteStream)
    return httpx.Response(response.status_code, headers=headers,
                          stream=BoundedBody(response.stream, encodings, limit=limit, end=end, seconds=seconds,
                                             request=request),
                          extensions=response.extensions, request=request)


# -- http.client (the lean writer): a socket reader under the deadline -------------------------
class DeadlineReader(io.RawIOBase):
    """A raw reader of `sock` whose every read waits at most `timeout` and never past this thread's
    deadline; replaces the file http.client.HTTPResponse reads from."""

    def __init__(self, sock: socket.socket, timeout: float | None) -> None:
        super().__init__()
        self._sock = sock
        self._timeout = timeout

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        end = current_deadline()
        if passed(end):
            raise AnswerDeadline("the deadline passed")
        self._sock.settimeout(clamp(self._timeout))
        try:
            return self._sock.recv_into(buffer)
        except TimeoutError:
            if passed(end):
                raise AnswerDeadline("the deadline passed") from None
            raise
        finally:
            self._sock.settimeout(self._timeout)  # the next request's writes wait as long as ever


def _declared(length: str) -> int:
    """A Content-Length's bytes, or -1 when it is not ASCII digits (`²` is a digit to str.isdigit, not to int)."""
    length = length.strip()
    return int(length) if length.isascii() and length.isdigit() else -1


def read_bounded(response: Any, limit: int = MAX_ANSWER_BYTES) -> bytes:
    """The body of an http.client response, at most `limit` bytes (AnswerTooLarge beyond). Its bytes stay
    taken of ANSWERS until this thread calls `give_back_read` (the lean writer, as its request ends)."""
    length = response.getheader("Content-Length") or ""
    if _declared(length) > limit:
        raise AnswerTooLarge(f"the answer is larger than {size_text(limit)} (Content-Length {_declared(length):,})")
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            chunk = response.read(_PIECE)
            if not chunk:
                data = b"".join(parts)
                _local.read_held = getattr(_local, "read_held", 0) + size
                size = 0
                return data
            if size + len(chunk) > limit:
                raise AnswerTooLarge(f"the answer is larger than {size_text(limit)}")
            if not ANSWERS.take(len(chunk)):
                raise AnswerTooLarge(f"the answers being read at once are larger than {size_text(ANSWERS.limit)}")
            size += len(chunk)
            parts.append(chunk)
    finally:
        parts.clear()  # a body refused part way: its pieces are dropped here, not with the traceback
        ANSWERS.give(size)


def give_back_read() -> None:
    """Give back what read_bounded took on this thread: its bodies are no longer held."""
    held, _local.read_held = getattr(_local, "read_held", 0), 0
    ANSWERS.give(held)
