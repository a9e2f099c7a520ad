"""A fault-injecting HTTP/1.1 proxy on a real socket: it forwards each request to the upstream
server, reads the whole answer, and for a chosen share of matching requests closes the client's
connection instead of passing the answer on (the service applied the request; the client never
hears so). Handles keep-alive connections and Content-Length bodies (what httpx and uvicorn use)."""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Callable

from wfctl.sandbox.injectors.listener import Listener


class FaultProxy(Listener):
    def __init__(self, upstream: str, *, drop: Callable[[str, str], bool], seed: int = 5,
                 share: float = 0.05, unsent: bool = False,
                 answer: Callable[[str, str], bytes | None] | None = None) -> None:
        """`unsent`: a dropped request is not forwarded at all (it never reaches the service), instead
        of being applied with its answer lost. `answer(method, path)`: a whole HTTP answer the proxy gives
        itself instead of forwarding the request (called under the proxy's lock), or None to forward it."""
        self.answer = answer
        self.share = share
        self.unsent = unsent
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.drop = drop
        self.random = random.Random(seed)
        self.dropped = 0
        self.forwarded = 0
        self._lock = threading.Lock()
        super().__init__("fault-proxy")
        self.url = f"http://127.0.0.1:{self.port}"

    def _serve(self, conn: socket.socket) -> None:
        up = socket.create_connection(self.upstream)
        client, upstream = _Reader(conn), _Reader(up)
        try:
            while True:
                request = client.message(is_request=True)
                if request is None:
                    return
                line = request.split(b"\r\n", 1)[0].decode("latin-1")
                method, path = line.split(" ")[:2]
                if self.answer is not None:
                    with self._lock:
                        own = self.answer(method, path)
                    if own is not None:
                        conn.sendall(own)
                        continue
                if self.unsent:
                    with self._lock:
                        lost = self.drop(method, path) and self.random.random() < self.share
                        self.dropped += lost
                    if lost:
                        return  # closed before the request reached the service
                    up.sendall(request)
                    response = upstream.message(is_request=False)
                    if response is None:
                        return
                    conn.sendall(response)
                    continue
                up.sendall(request)
                response = upstream.message(is_request=False)
                if response is None:
                    return
                with self._lock:
                    drop = self.drop(method, path) and self.random.random() < self.share
                    if drop:
                        self.dropped += 1
                    else:
                        self.forwarded += 1
                if drop:
                    return  # applied upstream, answer lost: close the client connection
                conn.sendall(response)
        except OSError:
            return
        finally:
            conn.close()
            up.close()


class _Reader:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        if not chunk:
            return False
        self.buf += chunk
        return True

    def message(self, *, is_request: bool) -> bytes | None:
        while b"\r\n\r\n" not in self.buf:
            if not self._fill():
                return None
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        length = 0
        for header in head.split(b"\r\n")[1:]:
            name, _, value = header.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
            if name.strip().lower() == b"transfer-encoding" and b"chunked" in value.lower():
                raise OSError("chunked bodies are not supported by this test proxy")
        while len(rest) < length:
            if not self._fill():
                return None
            head, _, rest = self.buf.partition(b"\r\n\r\n")
        message = head + b"\r\n\r\n" + rest[:length]
        self.buf = rest[length:]
        return message
