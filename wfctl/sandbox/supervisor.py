"""`wfctl sandbox serve --workers N`: N server processes accepting on one listening socket.

The parent binds the socket, prepares the database (schema, seed) and closes it, then forks the workers;
each opens its own connection and runs uvicorn on the inherited socket (the kernel hands each new
connection to one of them). The parent only supervises: it reports ready once every worker answers,
starts a worker again if one dies, and on Ctrl-C or SIGTERM passes one SIGTERM to each worker (they run
in a process group of their own, so a terminal's Ctrl-C does not hit them twice) and waits for them to
finish their requests.

Only with PostgreSQL: the workers share nothing but the database, so everything that must hold across
them (uniqueness, refresh-token rotation, Idempotency-Key, the throttles' counters) is the database's job.

Why not uvicorn's own `--workers` (`uvicorn.supervisors.Multiprocess`): it serves no faster
(`bench/sandbox.py --compare-workers`; the figures: README, Performance, and docs/sandbox.md), and it
lacks what `serve` promises and tests/sandbox/test_staging.py holds: it takes the app as an import
string, configured from the environment, and spawns workers that import everything again; it has no hook
to say when every worker is ready (the banner is printed then, once); a worker that fails at start ends
it without an error; a dead worker is replaced without a word at the sandbox's log level; its workers
keep serving, unsupervised and holding the port, when its process is killed with SIGKILL; and
multiprocessing's resource tracker is one more child process. This module needs of uvicorn only
`Server.run(sockets=...)`, `should_exit` and the started callback that server.py gives every server.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

#: How long a worker may take to start answering before the start is given up.
START_TIMEOUT = 60.0
#: How often (seconds) a worker looks whether its parent is still there.
PARENT_CHECK = 0.5


def run_workers(count: int, sock: socket.socket, make_server: Callable[[Callable[[], None]], Any],
                ready: Callable[[], None] | None = None) -> None:
    """Fork `count` workers that each run `make_server(started).run(sockets=[sock])`, where the server calls
    `started()` once it listens; return when all have stopped.

    Raises RuntimeError if a worker fails before all are ready."""
    readiness_r, readiness_w = os.pipe()
    workers: dict[int, int] = {}  # pid -> worker number
    stopping = False

    def start(number: int, notify: bool = True) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(readiness_r)
            _worker(sock, make_server, readiness_w if notify else None)
        workers[pid] = number

    def forward(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        for number in range(count):
            start(number)
        os.close(readiness_w)
        _wait_ready(readiness_r, count, workers)
        if ready is not None:
            ready()
        while workers:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            except KeyboardInterrupt:  # Ctrl-C: the workers finish their requests, then stop
                forward(signal.SIGTERM, None)
                continue
            number = workers.pop(pid, -1)
            if number >= 0 and not stopping:
                sys.stderr.write(f"sandbox worker {number + 1} stopped ({_how(status)}); starting another\n")
                time.sleep(0.5)
                start(number, notify=False)
    except BaseException:
        forward(signal.SIGTERM, None)
        _reap(workers)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        with contextlib.suppress(OSError):
            os.close(readiness_r)


def _worker(sock: socket.socket, make_server: Callable[[Callable[[], None]], Any], readiness: int | None) -> None:
    """The body of a forked worker: never returns."""
    code = 0

    def started() -> None:
        if readiness is not None:
            os.write(readiness, b".")

    try:
        os.setpgid(0, 0)  # a terminal's Ctrl-C reaches the parent alone, which passes one SIGTERM on
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        server = make_server(started)
        _stop_with_parent(server)
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    except BaseException as exc:
        sys.stderr.write(f"sandbox worker {os.getpid()}: {type(exc).__name__}: {exc}\n")
        code = 1
    finally:
        sys.stderr.flush()
        os._exit(code)


def _stop_with_parent(server: Any) -> None:
    """A worker whose parent is gone (killed with SIGKILL: it could pass nothing on) stops by itself, rather
    than serve on, unsupervised, holding the port."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while not server.should_exit:
            if os.getppid() != parent:
                server.should_exit = True  # uvicorn's own graceful stop
                return
            time.sleep(PARENT_CHECK)

    threading.Thread(target=watch, name="wfctl-sandbox-parent", daemon=True).start()


def _wait_ready(readiness: int, count: int, workers: dict[int, int]) -> None:
    answered = 0
    deadline = time.monotonic() + START_TIMEOUT
    while answered < count:
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError(f"the sandbox's workers did not start within {START_TIMEOUT:.0f} s")
        readable, _, _ = select.select([readiness], [], [], min(left, 0.2))
        if readable:
            data = os.read(readiness, 64)
            if not data:
                raise RuntimeError("the sandbox's workers stopped while starting")
            answered += len(data)
        for pid in list(workers):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                workers.pop(pid)
                raise RuntimeError(f"a sandbox worker stopped while starting ({_how(status)})")


def _reap(workers: dict[int, int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while workers and time.monotonic() < deadline:
        for pid in list(workers):
            with contextlib.suppress(ChildProcessError):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if not done:
                    continue
            workers.pop(pid)
        time.sleep(0.05)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
