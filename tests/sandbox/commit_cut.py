"""A TCP proxy between the sandbox and PostgreSQL that cuts a connection at a commit, as a network cut or
a failover would: armed, it passes the next message holding `pattern` (a COMMIT, or an autocommit
statement, whose answer is its commit) on to PostgreSQL, which makes it, and then closes the connection
before PostgreSQL's answer reaches the sandbox. The sandbox cannot know whether it was committed; it was.

    cut = CommitCut(database_url)             # cut.url: the same database, through the proxy
    cut.arm(b"UPDATE sites", times=2)         # the next two such statements, on any connection
    cut.cut.wait(10)                          # set once the last has happened
"""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit, urlunsplit


class CommitCut:
    def __init__(self, database_url: str) -> None:
        parts = urlsplit(database_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._server = socket.create_server(("127.0.0.1", 0))
        port = self._server.getsockname()[1]
        netloc = parts.netloc.rsplit(":", 1)[0] + f":{port}"
        query = "&".join(q for q in (parts.query, "sslmode=disable") if q)  # the COMMIT must be readable
        self.url = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
        self._armed = threading.Event()
        self._pattern, self._times = b"COMMIT\x00", 0
        self._lock = threading.Lock()
        self.cut = threading.Event()
        self._stopped = False
        threading.Thread(target=self._accept, daemon=True, name="commit-cut").start()

    def arm(self, pattern: bytes = b"COMMIT\x00", times: int = 1) -> None:
        with self._lock:
            self._pattern, self._times = pattern, times
            self.cut.clear()
            self._armed.set()

    def stop(self) -> None:
        self._stopped = True
        self._server.close()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            cutting = threading.Event()
            threading.Thread(target=self._to_server, args=(conn, up, cutting), daemon=True).start()
            threading.Thread(target=self._to_sandbox, args=(up, conn, cutting), daemon=True).start()

    def _to_server(self, conn: socket.socket, up: socket.socket, cutting: threading.Event) -> None:
        try:
            while data := conn.recv(65536):
                if self._armed.is_set():
                    with self._lock:
                        if self._pattern in data and self._times > 0:
                            self._times -= 1
                            cutting.set()  # PostgreSQL's answer to this never reaches the sandbox
                            if not self._times:
                                self._armed.clear()
                up.sendall(data)
        except OSError:
            pass
        finally:
            _close(conn, up)

    def _to_sandbox(self, up: socket.socket, conn: socket.socket, cutting: threading.Event) -> None:
        try:
            while data := up.recv(65536):
                if cutting.is_set():
                    _close(conn, up)
                    if not self._armed.is_set():
                        self.cut.set()
                    return
                conn.sendall(data)
        except OSError:
            pass
        finally:
            _close(conn, up)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
