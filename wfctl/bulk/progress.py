"""Progress of a bulk run on stderr: a Rich bar on a terminal, a one-line summary every few seconds otherwise."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from wfctl.safetext import one_line

OK = frozenset({"created", "updated", "unchanged", "skipped"})


class Progress:
    """Counts rows as workers finish them (thread-safe) and shows the rate, ETA, ok and failed."""

    def __init__(self, label: str, *, terminal: bool, interval: float = 5.0, stream: Any = None) -> None:
        self.label = one_line(label)  # it names a file: shown as text, never as markup or terminal control
        self.terminal = terminal
        self.interval = interval
        self.stream = stream or sys.stderr
        self.total = 0
        self.done = 0
        self.ok = 0
        self.failed = 0
        self._base = 0  # rows done before this run started (a resumed run)
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._last = self._started
        self._bar: Any = None
        self._task: Any = None

    def start(self, total: int, done: int = 0) -> None:
        """Show `total` rows, of which `done` were done by an earlier run (the bar starts there)."""
        self.total = total
        self.done = self.ok = self._base = done
        self._started = self._last = time.monotonic()
        if self.terminal:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:>7.0f} rows/s"), TextColumn("ok {task.fields[ok]}"),
                TextColumn("[red]failed {task.fields[failed]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                console=Console(file=self.stream, stderr=True), transient=False)
            self._task = self._bar.add_task(self.label, total=total, completed=done, ok=done, failed=0, rate=0.0)
            self._bar.start()

    def advance(self, status: str) -> None:
        with self._lock:
            self.done += 1
            if status in OK:
                self.ok += 1
            else:
                self.failed += 1
            now = time.monotonic()
            if self._bar is not None:
                self._bar.update(self._task, advance=1, ok=self.ok, failed=self.failed, rate=self.rate(now))
            elif now - self._last >= self.interval:
                self._last = now
                self.stream.write(self.line(now) + "\n")
                self.stream.flush()

    def rate(self, now: float | None = None) -> float:
        elapsed = (now or time.monotonic()) - self._started
        return (self.done - self._base) / elapsed if elapsed > 0 else 0.0

    def line(self, now: float | None = None) -> str:
        rate = self.rate(now)
        left = max(0, self.total - self.done)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        return (f"{self.label}: {self.done}/{self.total} rows, ok {self.ok}, failed {self.failed}, "
                f"{rate:.0f} rows/s, ETA {eta}")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
