"""What the injectors' proxies share: a loopback listener on a free port, each connection served by a thread."""

from __future__ import annotations

import socket
import threading


class Listener:
    """Listens on 127.0.0.1:<free port> (`port`) from construction until `stop()`; `_serve(conn)` each
    connection in a thread of its own, unless `_admit(conn)` says no (and closed it)."""

    def __init__(self, name: str) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._stopped = False
        threading.Thread(target=self._accept, daemon=True, name=name).start()

    def stop(self) -> None:
        self._stopped = True
        self._server.close()

    def _admit(self, conn: socket.socket) -> bool:
        return True

    def _serve(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def _accept(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            if self._admit(conn):
                threading.Thread(target=self._serve, args=(conn,), daemon=True).start()
