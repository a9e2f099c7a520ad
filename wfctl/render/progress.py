"""Progress of a bulk run on stderr: one live line on a terminal, a one-line summary every few seconds otherwise.

On a terminal the line is laid out for the terminal's width at every refresh: done/total, failed and
the ETA always stay whole; the bar gives way first (it shrinks, then goes, as pip's and cargo's do), then
the rate, the elapsed time, the ok count, and the label is shortened last.

While the service is down and wfctl rides it out (wfctl.api.net.retry: up to 60 s), a terminal says so once
it has lasted WAIT_NOTE_AFTER: `service unavailable, waiting (12 s)`, in place of a bulk run's rate and
ETA, or for a single command on a line of its own (`OutageNote`), erased when the service answers or
wfctl gives up."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from wfctl.text.safetext import one_line

OK = frozenset({"created", "updated", "unchanged", "skipped", "undone", "gone", "deleted", "restored",
                "recreated"})

#: Seconds of an outage before a terminal is told that wfctl waits (a blip is not worth a line).
WAIT_NOTE_AFTER = 2.0

BAR_MAX = 40
BAR_MIN = 10
LABEL_MIN = 8


def clock(seconds: float | None) -> str:
    """H:MM:SS, or -:--:-- when unknown."""
    if seconds is None:
        return "-:--:--"
    seconds = int(max(0.0, seconds) + 0.5)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def layout(width: int, *, label: str, done: int, total: int | None, ok: int, failed: int, rate: float,
           elapsed: float, unit: str = "rows", failed_word: str = "failed", skipped: int = 0,
           totals_only: bool = False) -> list[tuple[str, str]]:
    """The parts of the terminal line that fit in `width` columns, in order, as (kind, text); the kind
    "bar" has as text the bar's width in characters. Pure: tested at any width without a terminal."""
    count = f"{done}/{total}" if total is not None else f"{done} {unit}"
    if total is None:
        eta_text = ""
    else:
        left = max(0, total - done)
        eta_text = "ETA " + (clock(left / rate) if rate > 0 else clock(0) if left == 0 else clock(None))
    kept: dict[str, str] = {
        "label": label, "count": count, "rate": f"{rate:.0f} {unit}/s", "ok": f"ok {ok}",
        "failed": f"{failed_word} {failed}", "elapsed": clock(elapsed), "eta": eta_text,
        "skipped": f"skipped {skipped}",
    }
    if not skipped:  # said apart: `ok 3000` of 3,000 rows skipped read as 3,000 rows sent
        del kept["skipped"]
    if not eta_text:
        del kept["eta"]
    if total is None or totals_only:
        del kept["ok"]  # an export has no failed rows to tell apart
        del kept["failed"]
        kept.pop("skipped", None)
    order = ["label", "bar", "count", "rate", "ok", "skipped", "failed", "elapsed", "eta"]

    def used() -> int:
        texts = [t for k, t in kept.items()]
        return sum(len(t) for t in texts) + 2 * (len(texts) - 1)

    for optional in ("elapsed", "rate", "ok"):  # after the bar (sized below), these go first
        if used() <= width:
            break
        kept.pop(optional, None)
    if used() > width:  # the label is shortened last (never below LABEL_MIN), then dropped
        room = len(label) - (used() - width)
        if room >= LABEL_MIN:
            kept["label"] = label[: room - 1] + "…"
        else:
            kept.pop("label")
    room = width - used() - 2
    bar = min(BAR_MAX, room) if total is not None else 0
    parts: list[tuple[str, str]] = []
    for kind in order:
        if kind == "bar":
            if bar >= BAR_MIN:
                parts.append(("bar", str(bar)))
        elif kind in kept:
            parts.append((kind, kept[kind]))
    return parts


class Progress:
    """Counts rows as workers finish them (thread-safe) and shows the rate, ETA, ok and failed.

    `total` None (an export, whose size is known only at its end) shows the count, rate and elapsed time."""

    def __init__(self, label: str, *, terminal: bool, interval: float = 5.0, stream: Any = None,
                 unit: str = "rows", failed_word: str = "failed", totals_only: bool = False) -> None:
        self.label = one_line(label)  # it names a file: shown as text, never as markup or terminal control
        self.terminal = terminal
        self.interval = interval
        self.stream = stream or sys.stderr
        self.unit = unit
        self.failed_word = failed_word  # what a row that is not ok is called (an undo: "not undone")
        self.totals_only = totals_only  # an export: no ok/failed counts, only done/total
        self.total: int | None = 0
        self.done = 0
        self.ok = 0
        self.skipped = 0  # rows left as they were because their record exists (--on-existing skip)
        self.failed = 0
        self._base = 0  # rows done before this run started (a resumed run)
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._last = self._started
        self._live: Any = None

    def start(self, total: int | None, done: int = 0) -> None:
        """Show `total` rows, of which `done` were done by an earlier run (the bar starts there)."""
        self.total = total
        self.done = self.ok = self._base = done
        self._started = self._last = time.monotonic()
        if self.terminal:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self.stream, stderr=True)
            self._live = Live(_Line(self), console=console, refresh_per_second=8, transient=False,
                              redirect_stdout=False, redirect_stderr=False)
            self._live.start()
            NOTE.live(True)  # the outage is said on this line, not on one of its own

    def advance(self, status: str = "created") -> None:
        with self._lock:
            self.done += 1
            if status == "skipped":
                self.skipped += 1
            elif status in OK:
                self.ok += 1
            else:
                self.failed += 1
            if self._live is None:
                now = time.monotonic()
                if now - self._last >= self.interval:
                    self._last = now
                    self.stream.write(self.line(now) + "\n")
                    self.stream.flush()

    def rate(self, now: float | None = None) -> float:
        elapsed = (now or time.monotonic()) - self._started
        return (self.done - self._base) / elapsed if elapsed > 0 else 0.0

    def line(self, now: float | None = None) -> str:
        rate = self.rate(now)
        if self.total is None:
            return f"{self.label}: {self.done} {self.unit}, {rate:.0f} {self.unit}/s"
        left = max(0, self.total - self.done)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        skipped = f", skipped {self.skipped}" if self.skipped else ""
        counts = "" if self.totals_only else f", ok {self.ok}{skipped}, {self.failed_word} {self.failed}"
        return f"{self.label}: {self.done}/{self.total} {self.unit}{counts}, {rate:.0f} {self.unit}/s, ETA {eta}"

    def parts(self, width: int) -> list[tuple[str, str]]:
        now = time.monotonic()
        waiting = NOTE.text()
        if waiting is not None:  # the rate and the ETA mean nothing while the service is down
            kept = layout(max(1, width - len(waiting) - 2), label=self.label, done=self.done, total=self.total,
                          ok=self.ok, failed=self.failed, rate=0.0, elapsed=now - self._started, unit=self.unit,
                          failed_word=self.failed_word, totals_only=self.totals_only, skipped=self.skipped)
            return [*(part for part in kept if part[0] not in ("rate", "eta")), ("waiting", waiting)]
        return layout(width, label=self.label, done=self.done, total=self.total, ok=self.ok, failed=self.failed,
                      rate=self.rate(now), elapsed=now - self._started, unit=self.unit,
                      failed_word=self.failed_word, totals_only=self.totals_only, skipped=self.skipped)

    def grow(self, more: int) -> None:
        """`more` rows are known to come (an export learns its total a parent at a time)."""
        with self._lock:
            self.total = (self.total or 0) + more

    def write(self, text: str) -> None:
        """Write `text` (whole lines) on the stream, above the live line on a terminal."""
        live = self._live
        if live is None:
            self.stream.write(text)
            self.stream.flush()
            return
        from rich.text import Text

        live.console.print(Text(text.rstrip("\n")), soft_wrap=True, highlight=False, markup=False)

    def stop(self, *, clear: bool = False) -> None:
        """End the live line; `clear` (an interrupted run, a closed pipe) erases it instead of leaving it."""
        if self._live is not None:
            live, self._live = self._live, None
            NOTE.live(False)
            if clear:
                live.transient = True
            import contextlib

            with contextlib.suppress(OSError):  # the terminal went away
                live.stop()


class _Line:
    """The live line, drawn anew at each refresh for the console's width at that moment."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        p = self.progress
        width = max(1, options.max_width - 1)  # the last column left free: no wrap on any terminal
        text = Text(no_wrap=True, overflow="crop")
        for i, (kind, part) in enumerate(p.parts(width)):
            if i:
                text.append("  ")
            if kind == "bar":
                size = int(part)
                total = p.total or 0
                filled = size if total <= 0 else min(size, size * p.done // total)
                text.append("━" * filled, style="bar.finished" if filled == size else "bar.complete")
                text.append("━" * (size - filled), style="bar.back")
            elif kind == "failed" and p.failed:
                text.append(part, style="red")
            elif kind == "eta":
                text.append(part, style="progress.remaining")
            elif kind == "waiting":
                text.append(part, style="yellow")
            else:
                text.append(part)
        yield text


def waiting_text(seconds: float) -> str:
    return f"service unavailable, waiting ({seconds:.0f} s)"


class OutageNote:
    """What a terminal is told while the Client rides out an outage: the observer of its pause
    (`Client.watch_outages`). Once the outage has lasted WAIT_NOTE_AFTER, `text()` says so; a bulk
    run's live line shows it, and without one (a single command) a line of its own on the stream,
    rewritten every half second and erased when no request waits any more, before anything else is
    written (the error line, when wfctl gives up)."""

    def __init__(self) -> None:
        self.stream: Any = None
        self._pause: Any = None
        self._lock = threading.Lock()
        self._shown = False
        self._live = 0
        self._generation = 0
        self._wake = threading.Condition(self._lock)

    def attach(self, stream: Any) -> OutageNote:
        """Draw the single command's line on `stream` (a terminal; None: no line of its own)."""
        self.stream = stream
        return self

    def text(self) -> str | None:
        pause = self._pause
        seconds = pause.outage() if pause is not None else None
        if seconds is None or seconds < WAIT_NOTE_AFTER:
            return None
        return waiting_text(seconds)

    def live(self, on: bool) -> None:
        with self._lock:
            self._live += 1 if on else -1
            self._erase()

    # -- the pause's observer -------------------------------------------------------------------------
    def begin(self, pause: Any) -> None:
        with self._lock:
            self._pause = pause
            self._generation += 1
            if self.stream is not None:
                threading.Thread(target=self._draw, args=(self._generation,), daemon=True,
                                 name="wfctl-outage-note").start()

    def end(self, pause: Any) -> None:
        with self._lock:
            if self._pause is pause:
                self._pause = None
                self._generation += 1
            self._erase()
            self._wake.notify_all()

    def _draw(self, generation: int) -> None:
        with self._lock:
            while self._generation == generation:
                text = self.text() if self._live == 0 else None
                if text is not None:
                    self._write("\r\x1b[2K" + text)
                    self._shown = True
                self._wake.wait(0.5)

    def _erase(self) -> None:
        if self._shown:
            self._shown = False
            self._write("\r\x1b[2K")

    def _write(self, text: str) -> None:
        import contextlib

        with contextlib.suppress(OSError, ValueError):  # the terminal went away
            self.stream.write(text)
            self.stream.flush()


#: The one note of this process (a CLI run has one Client that rides out outages).
NOTE = OutageNote()


class EnvelopeTotals:
    """An API client for an export whose listings tell `progress` how many records are coming: each
    listing's first page carries the total (`totalRecordCount`), added to the progress's total. Every
    other attribute is the client's own."""

    def __init__(self, api: Any, progress: Progress) -> None:
        self._api = api
        self._progress = progress

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)

    def iter_records(self, kind: str, parent_id: str | None = None, **_: Any) -> Any:
        for page in self.list_records(kind, parent_id, page_size=100, all_pages=True):
            yield from page.data

    def list_records(self, kind: str, parent_id: str | None = None, **options: Any) -> Any:
        """The client's pages; a whole listing's (`all_pages`) first page adds its total."""
        first = bool(options.get("all_pages"))
        for page in self._api.list_records(kind, parent_id, **options):
            if first:
                self._progress.grow(max(int(page.total_record_count or 0), len(page.data)))
                first = False
            yield page


@contextlib.contextmanager
def counting(label: str, unit: str, *, shown: bool, total: int | None = None) -> Iterator[Progress | None]:
    """A read's count on a terminal's stderr when `shown` (None otherwise): `total` records, or as many as
    the listings say (`EnvelopeTotals`); kept when the read ends, erased when it is stopped (Ctrl-C, an
    error, `| head`), so no stale count stays above what comes next."""
    if not shown:
        yield None
        return
    progress = Progress(label, terminal=True, unit=unit, totals_only=True)
    progress.start(total)
    finished = False
    try:
        yield progress
        finished = True
    finally:
        progress.stop(clear=not finished)


@contextlib.contextmanager
def reading(api: Any, label: str, unit: str, *, shown: bool) -> Iterator[tuple[Any, Callable[[], None]]]:
    """An export's progress line for a read of whole listings (`label`: `exporting sites`; `counting`): yields
    the client to read with (`EnvelopeTotals`: done/total and an ETA) and what to call after each record."""
    with counting(label, unit, shown=shown) as progress:
        if progress is None:
            yield api, lambda: None
        else:
            yield EnvelopeTotals(api, progress), progress.advance
