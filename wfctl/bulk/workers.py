"""Waiting for a run's worker threads through Ctrl-C.

A run stops on Ctrl-C by letting the rows in flight end and be journalled before the journal closes.
`Thread.join()` cannot be trusted for that once a KeyboardInterrupt has landed in it: on CPython before
3.13 the clean-up of bpo-45274 may release the lock that the running thread still holds and mark the
thread as ended, so the next `join()` returns at once. The run would then close its journal under a row
still in flight: the row's outcome is lost (it stays `sending`), or written to whatever file reused the
descriptor. So a worker also says it is done as its last act, and once a wait has been interrupted the
run waits for that instead, without taking any lock a second Ctrl-C could leave held.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Seconds between two looks at the workers once a wait has been interrupted.
POLL = 0.02


class Workers:
    """`count` daemon threads running `target`; `wait` returns when every one has ended."""

    def __init__(self, target: Callable[[], None], count: int, name: str) -> None:
        self._done = [threading.Event() for _ in range(count)]
        self._threads = [threading.Thread(target=self._run, args=(target, done), name=f"{name}-{index}",
                                          daemon=True) for index, done in enumerate(self._done)]

    @staticmethod
    def _run(target: Callable[[], None], done: threading.Event) -> None:
        try:
            target()
        finally:
            done.set()  # its last act: whatever it journalled is written

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def alive(self) -> bool:
        return not all(done.is_set() for done in self._done)

    def wait(self, on_interrupt: Callable[[], None]) -> KeyboardInterrupt | None:
        """Wait until every worker has ended. A Ctrl-C meanwhile calls `on_interrupt` (stop starting
        rows) and the wait goes on; the last KeyboardInterrupt is returned for the caller to raise."""
        return wait_until(lambda: not self.alive(), on_interrupt, first=self._join)

    def _join(self) -> None:
        for thread in self._threads:
            thread.join()


class InFlight:
    """Counts the calls under way (`with in_flight:` around each, in the worker threads) for work run by
    a pool whose threads are not the run's own (ThreadPoolExecutor)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def __enter__(self) -> None:
        with self._lock:
            self._count += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._count -= 1

    def idle(self) -> bool:
        return self._count == 0  # an int read: no lock on the waiting side


def wait_until(done: Callable[[], bool], on_interrupt: Callable[[], None],
               first: Callable[[], None] | None = None) -> KeyboardInterrupt | None:
    """Wait until `done()`: by `first` (a blocking wait, exact and prompt) while nothing interrupts it,
    then by looking every POLL seconds. Each Ctrl-C calls `on_interrupt`; the last one is returned."""
    interrupted: KeyboardInterrupt | None = None
    while True:
        try:
            if interrupted is None and first is not None:
                first()
            while not done():
                time.sleep(POLL)
            return interrupted
        except KeyboardInterrupt as exc:
            interrupted = exc
            on_interrupt()
