"""A small hostile HTTP server on 127.0.0.1 (a thread, raw sockets): answers every request the way its
`mode` says, to see what wfctl accepts. No real server can be made to do these on purpose.

Modes: "bomb" (a 256 MiB JSON page gzipped to ~250 KB), "huge" (a 2 GiB Content-Length), "endless"
(chunked spaces with no end), "drip" (a body of 200 bytes, one a second), "drip-head" (the status line
and headers one byte every half second), "ok" (a valid empty page), "not-json", "answer" (whatever the
test's `answer(request_line, request_body)` returns: the whole answer as bytes, status line included).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import zlib
from collections.abc import Callable

PAGE = b'{"data": [], "pageNumber": 1, "pageSize": 100, "pageCount": 1, "totalRecordCount": 0}'
BOMB_SIZE = 256 * 1024 * 1024


def gzip_bomb(size: int = BOMB_SIZE) -> bytes:
    """A valid JSON page padded with spaces to `size` bytes, gzipped."""
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b" " * (1024 * 1024)
    parts = [z.compress(PAGE[:-1])]
    for _ in range(size // len(block)):
        parts.append(z.compress(block))
    parts.append(z.compress(b"}"))
    parts.append(z.flush())
    return b"".join(parts)


class HostileServer:
    def __init__(self, mode: str, answer: Callable[[str, bytes], bytes] | None = None) -> None:
        self.mode = mode
        self.answer = answer
        self.requests: list[str] = []
        self._bomb_body = gzip_bomb() if mode == "bomb" else b""
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                head += chunk
            head, _, body = head.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            length = next((int(line.split(":", 1)[1]) for line in lines[1:]
                           if line.lower().startswith("content-length:")), 0)
            while len(body) < length:  # read the whole request: closing on unread data would reset it
                chunk = conn.recv(65536)
                if not chunk:
                    return
                body += chunk
            self.requests.append(lines[0])
            if self.answer is not None:
                conn.sendall(self.answer(lines[0], body))
                return
            getattr(self, "_" + self.mode.replace("-", "_"))(conn)

    def _ok(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(PAGE), PAGE))

    def _not_json(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
                     b"Connection: close\r\n\r\n<html")

    def _bomb(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(self._bomb_body))
        conn.sendall(self._bomb_body)

    def _huge(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n"
                     b"Connection: close\r\n\r\n" + PAGE[:-1])
        block = b" " * 65536
        while not self._stop.is_set():
            conn.sendall(block)

    def _endless(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                     b"Connection: close\r\n\r\n")
        block = b"10000\r\n" + b" " * 65536 + b"\r\n"
        while not self._stop.is_set():
            conn.sendall(block)

    def _drip(self, conn: socket.socket) -> None:
        body = PAGE.ljust(200)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n" % len(body))
        for i in range(len(body)):
            if self._stop.is_set():
                return
            conn.sendall(body[i:i + 1])
            time.sleep(1.0)

    def _drip_head(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Slow-%d: yes\r\n" % i for i in range(200))
        for i in range(len(head)):
            if self._stop.is_set():
                return
            conn.sendall(head[i:i + 1])
            time.sleep(0.5)
