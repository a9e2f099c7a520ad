"""Running the sandbox under uvicorn: one process, uvloop + httptools when they are installed.

One process on purpose: uvicorn's `--workers N` was measured at a fraction of one worker's rate on
small requests (and the SQLite writer is one anyway); uvloop and httptools are worth about 40%.
"""

from __future__ import annotations

import importlib.util
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from wfctl.sandbox.app import DEFAULT_MAX_BODY, create_app
from wfctl.sandbox.quirks import Quirks


def uvicorn_config(app: Any, *, host: str = "127.0.0.1", port: int = 8765, log_level: str = "warning") -> uvicorn.Config:
    """The uvicorn settings of the sandbox: fastest available loop and parser, no access log."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return uvicorn.Config(app, host=host, port=port, loop=loop, http=http, lifespan="off",
                          access_log=False, proxy_headers=False, server_header=False, log_level=log_level,
                          timeout_graceful_shutdown=3,
                          backlog=2048)


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket (port 0: a free port chosen by the kernel)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    db_path: str | None = None,
    seed: bool = True,
    access_ttl: int = 900,
    rate_limit: int | None = None,
    latency_ms: int = 0,
    max_body: int | None = DEFAULT_MAX_BODY,
    quirks: Quirks | None = None,
    sock: socket.socket | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    """Run the sandbox in the foreground until Ctrl-C or SIGTERM; `ready` is called once it can answer.

    Pass a socket from `bind` to report a port in use before anything else (an OSError there).
    uvicorn shuts down gracefully on SIGINT and SIGTERM and then re-raises the signal; SIGTERM is made a
    KeyboardInterrupt like Ctrl-C (from the start, so a stop during start-up is clean too)."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main else None
    app = None
    try:
        sock = sock or bind(host, port)
        app = create_app(db_path, seed=seed, access_ttl=access_ttl, rate_limit=rate_limit, latency_ms=latency_ms,
                         max_body=max_body, quirks=quirks)
        server = uvicorn.Server(uvicorn_config(app, host=host, port=port))
        if ready is not None:
            _notify_when_started(server, ready)
        server.run(sockets=[sock])
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
        if sock is not None:
            sock.close()
        if app is not None:
            app.state.store.close()


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
