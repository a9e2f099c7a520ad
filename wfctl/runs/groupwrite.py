"""Lines appended to one file by many threads, each one's `append` returning once its line is written
(os.write returned: a killed process loses nothing it wrote), in a group write: the lines of threads that
come together are written by one of them, in the order they came, in one system call.

Why: a bulk run's workers journal every row twice (its intent, its outcome). Written one at a time under
one lock, each write held every other worker, and a write waits while an fsync of the file runs
(journal.py fsyncs once a second); a run at 8 workers spent more time waiting for that lock than writing
(issue 43, bench/import.py local). Now the lock is held only for the bookkeeping; the write is outside it.

    appender = GroupWrite(fd, size)
    appender.append(data, lambda offset: ...)   # raises OSError; every later append raises it too
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable


class GroupWrite:
    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size  # the file's size: where the next line goes
        self._lock = threading.Lock()
        self._wrote = threading.Condition(self._lock)
        self._queue: list[tuple[bytes, Callable[[int], None]]] = []
        self._queued = self._written = 0  # lines queued, lines written (a line's number is its place in the order)
        self._writing = False
        self._failed: OSError | None = None

    def append(self, data: bytes, written: Callable[[int], None]) -> None:
        """Append `data` (one whole line); `written(offset)` is called with the offset it was written at,
        in the order of the lines, before this returns. Raises the OSError that stopped the writes."""
        with self._wrote:
            if self._failed is not None:
                raise self._failed
            self._queue.append((data, written))
            self._queued += 1
            mine = self._queued
            while self._written < mine:
                if self._failed is not None:
                    raise self._failed
                if self._writing:
                    self._wrote.wait()
                else:
                    self._write_queued()

    def _write_queued(self) -> None:
        """Write every queued line (called holding the lock, which is released while writing)."""
        batch, self._queue = self._queue, []
        data = b"".join(line for line, _ in batch)
        self._writing = True
        self._lock.release()
        try:
            written = os.write(self.fd, data)
            while written < len(data):  # a short write: the next one says why (full, too large)
                more = os.write(self.fd, data[written:])
                if more <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += more
        except OSError as exc:
            self._failed = exc
        finally:
            self._lock.acquire()
            self._writing = False
            self._wrote.notify_all()
        if self._failed is not None:
            raise self._failed
        for line, done in batch:
            done(self.size)
            self.size += len(line)
        self._written += len(batch)
