"""Running the sandbox under uvicorn: one process, uvloop + httptools when they are installed.

One process on SQLite on purpose: several uvicorn workers served small requests slower than one (and the
SQLite writer is one anyway), and uvloop and httptools are faster than uvicorn's defaults; the figures
are bench/sandbox.py's (docs/sandbox.md, "Throughput"). On PostgreSQL, `workers` > 1 runs that many
processes (supervisor.py).
"""

from __future__ import annotations

import importlib.util
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from wfctl.sandbox.app import create_app
from wfctl.sandbox.journal import Recorder, RequestJournal

#: TLS 1.2 suites the sandbox agrees to: forward secret and AEAD only (OpenSSL's default list also holds the
#: CBC suites ECDHE-*-AES128-SHA256 and -AES256-SHA384). TLS 1.3's suites are all AEAD and are not set here.
TLS12_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL"


def uvicorn_config(app: Any, *, host: str = "127.0.0.1", port: int = 8765, log_level: str = "warning",
                   tls_cert: str | None = None, tls_key: str | None = None) -> uvicorn.Config:
    """The uvicorn settings of the sandbox: fastest available loop and parser, no access log; https when
    given a certificate chain and its key (PEM files), TLS 1.2 with AEAD suites only (TLS12_CIPHERS). The request head's size and header count and the time
    to receive a head and a body are bounded (guard.py)."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    try:
        from wfctl.sandbox.guard import MAX_HEAD_BYTES, GuardedHttpToolsProtocol
    except ImportError:  # pragma: no cover - without httptools, uvicorn's h11 bounds the head's size only
        http: Any = "h11"
        max_head = 32 * 1024
    else:
        http, max_head = GuardedHttpToolsProtocol, MAX_HEAD_BYTES
    return uvicorn.Config(app, host=host, port=port, loop=loop, http=http, lifespan="off",
                          h11_max_incomplete_event_size=max_head,
                          access_log=False, proxy_headers=False, server_header=False, log_level=log_level,
                          timeout_graceful_shutdown=3,
                          backlog=2048, ssl_certfile=tls_cert, ssl_keyfile=tls_key, ssl_ciphers=TLS12_CIPHERS)


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket (port 0: a free port chosen by the kernel)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class ThreadedServer:
    """The sandbox app served by uvicorn from a thread of this process, on a free loopback port, until
    `stop()` (a test's server: the pytest plugin's and the project's own fixtures). `graceful`: seconds a stop
    waits for open connections (the production 3 s by default)."""

    def __init__(self, app: Any, *, tls_cert: str | None = None, tls_key: str | None = None,
                 graceful: float | None = None, name: str = "wfctl-sandbox") -> None:
        import time

        self._socket = bind("127.0.0.1", 0)
        self.port = int(self._socket.getsockname()[1])
        self.url = f"{'https' if tls_cert else 'http'}://127.0.0.1:{self.port}"
        config = uvicorn_config(app, port=self.port, log_level="error", tls_cert=tls_cert, tls_key=tls_key)
        if graceful is not None:
            config.timeout_graceful_shutdown = graceful  # type: ignore[assignment]
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True,
                                        name=f"{name}-{self.port}")
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox on {self.url} did not start")
            time.sleep(0.01)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def request_stop(self) -> None:
        """Ask the server to stop without waiting (stop several at once: request_stop each, then stop)."""
        self._server.should_exit = True

    def stop(self) -> None:
        self.request_stop()
        self._thread.join(timeout=10)
        self._socket.close()


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    database: str | None = None,
    workers: int = 1,
    sock: socket.socket | None = None,
    ready: Callable[[dict[str, str]], None] | None = None,
    log_requests: Callable[[str], None] | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    **app_options: Any,
) -> None:
    """Run the sandbox in the foreground until Ctrl-C or SIGTERM; `ready` is called once it can answer,
    with the passwords of the logins this start created with random passwords (create_app, `exposed`).

    `app_options` go to create_app (seed, access_ttl, rate_limit, latency_ms, max_body, quirks, exposed,
    token_form, token_size).
    Pass a socket from `bind` to report a port in use before anything else (an OSError there).
    uvicorn shuts down gracefully on SIGINT and SIGTERM and then re-raises the signal; SIGTERM is made a
    KeyboardInterrupt like Ctrl-C (from the start, so a stop during start-up is clean too).
    `log_requests` is given one line per answered request (`GET /api/branches 200 3 ms`), from the app's
    request journal (journal.py).
    `workers` > 1 forks that many server processes on the socket (supervisor.py; PostgreSQL only)."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main else None
    app = None

    def make_server(app: Any, started: Callable[[], None] | None) -> uvicorn.Server:
        if log_requests is not None:
            write = log_requests
            app.state.journal.listen(lambda record: write(record.line()))
        server = uvicorn.Server(uvicorn_config(app, host=host, port=port, tls_cert=tls_cert, tls_key=tls_key))
        if started is not None:
            _notify_when_started(server, started)
        return server

    try:
        sock = sock or bind(host, port)
        # The database is prepared (schema, seed) here, once, before any worker starts.
        app = create_app(database, **app_options)
        new_passwords: dict[str, str] = app.state.new_passwords
        notify = None if ready is None else (lambda: ready(new_passwords))
        if workers > 1:
            from wfctl.sandbox.supervisor import run_workers

            app.state.store.close()
            app = None
            if in_main:
                signal.signal(signal.SIGTERM, previous)
            run_workers(workers, sock, lambda started: make_server(create_app(database, **app_options), started),
                        notify)
            return
        make_server(app, notify).run(sockets=[sock])
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
        if sock is not None:
            sock.close()
        if app is not None:
            app.state.store.close()


class RequestLog(Recorder):
    """ASGI wrapper around any app: one line per HTTP request once its answer is sent (`GET /api/clients?page=2
    200 4 ms`), rendered from its record (journal.RequestRecord.line). create_app's apps record every request
    themselves (`app.state.journal`), and `serve` writes their lines from there."""

    def __init__(self, app: Any, write: Callable[[str], None]) -> None:
        journal = RequestJournal(capacity=1)
        journal.listen(lambda record: write(record.line()))
        super().__init__(app, journal)


def _notify_when_started(server: uvicorn.Server, ready: Callable[[], None]) -> None:
    """Call `ready` from the event loop right after uvicorn has started listening."""
    startup = server.startup

    async def startup_then_notify(sockets: list[socket.socket] | None = None) -> None:
        await startup(sockets=sockets)
        if server.started:
            ready()

    server.startup = startup_then_notify  # type: ignore[method-assign]


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
