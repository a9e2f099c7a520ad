"""The sending half of `wfctl rates set` (`wfctl.commands.rates.run` plans and reports): each site's
change sent `concurrency` at a time through the lean writer, its intent journalled before and its outcome
after; a site the stopped run was sending is checked before it is sent again. A 429 is waited out
(`Patient`) so that a run of many sites against a rate-limited service slows down instead of failing sites.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from wfctl.bulk.workers import InFlight, wait_until

if TYPE_CHECKING:
    from wfctl.api.rates import Change, SitePlan
    from wfctl.bulk.journal import Journal


class Stop(Exception):
    """A run-wide reason to stop sending: `cause` (interrupted, journal, unreachable) and a message."""

    def __init__(self, cause: str, message: str) -> None:
        super().__init__(message)
        self.cause = cause
        self.message = message


def journal_rows(work: list[SitePlan], before: dict[str, tuple[int, str]]) -> dict[str, int]:
    """The journal row of each site: the earlier run's row for a site it journalled, else the next free."""
    rows: dict[str, int] = {}
    following = max((row for row, _ in before.values()), default=0) + 1
    for site in work:
        if site.site_id in before:
            rows[site.site_id] = before[site.site_id][0]
        else:
            rows[site.site_id] = following
            following += 1
    return rows


class Runner:
    """Sends each site's change, `concurrency` at a time, journalling its intent and outcome."""

    def __init__(self, api: Any, log: Journal, change: Change, progress: Any) -> None:
        self.api = api
        self.log = log
        self.change = change
        self.progress = progress
        self.counts: Counter[str] = Counter()
        self.outcomes: dict[str, tuple[str, str, Any]] = {}  # site id -> (status, error, Outcome | None)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._in_flight = InFlight()
        self._stopped: Stop | None = None
        lean = getattr(api, "lean_writer", None)
        sender = lean() if lean is not None else None
        self._sender = Patient(sender, self._stop) if sender is not None else None

    def run(self, work: list[SitePlan], rows: dict[str, int], concurrency: int) -> None:
        pending: set[Future[None]] = set()
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="wfctl-rates-set")
        try:
            for site in work:
                if self._stop.is_set():
                    break
                pending.add(pool.submit(self._counted, site, rows[site.site_id]))
                if len(pending) >= concurrency * 2:
                    _, pending = wait(pending, return_when=FIRST_COMPLETED)
            while pending:
                _, pending = wait(pending, return_when=FIRST_COMPLETED)
        except KeyboardInterrupt:
            self._halt(Stop("interrupted", "interrupted"))
        finally:
            self._stop.set()
            for future in pending:
                future.cancel()
            # the sites in flight finish and are journalled; once a Ctrl-C lands in the pool's joins, they
            # are not trusted (wfctl.bulk.workers) and the sites under way are counted down instead
            wait_until(self._in_flight.idle, lambda: self._halt(Stop("interrupted", "interrupted")),
                       first=lambda: pool.shutdown(wait=True))
            pool.shutdown(wait=False, cancel_futures=True)
        if self._stopped is not None:
            raise self._stopped

    def _counted(self, site: SitePlan, row: int) -> None:
        with self._in_flight:
            self._one(site, row)

    def _one(self, site: SitePlan, row: int) -> None:
        from wfctl.api import rates
        from wfctl.api.errors import ApiError, Interrupted, NetworkError, NotFound, NotLoggedIn
        from wfctl.bulk.journal import JournalError

        if self._stop.is_set():
            return
        try:
            if self.log.was_sending(row) and self._applied_before(site, row):
                return

            def intend(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
                if self._stop.is_set():
                    raise _Abandoned()
                self.log.intend(row, {"rates": [old, new]}, record_id=site.site_id)

            outcome = rates.apply_site(self.api, site, self.change, sender=self._sender, before_send=intend)
            changes = {"rates": [outcome.old, outcome.new]} if outcome.status == "updated" else None
            self._finish(site, row, outcome.status, outcome.error, changes, outcome)
        except (_Abandoned, Interrupted):  # stopping: its intent stays journalled, a resume finds out
            return
        except JournalError as exc:
            self._halt(Stop("journal", str(exc)))
        except NotFound:
            self._finish(site, row, "skipped", "deleted since the plan: skipped")
        except (NetworkError, NotLoggedIn) as exc:
            self._halt(Stop("unreachable", exc.one_line()))
        except ApiError as exc:
            outlasted = getattr(self.api, "outlasted_outage", None)
            down = outlasted(exc) if callable(outlasted) else None
            if down is not None:  # a 503 through the whole outage: stop, resumable, as when unreachable
                self._halt(Stop("unreachable", down.one_line()))
                return
            self._finish(site, row, "failed", exc.one_line())
        except Exception as exc:  # a worker records every site, whatever went wrong
            from wfctl.api.redact import redact_text

            self._finish(site, row, "failed", redact_text(f"{exc.__class__.__name__}: {exc}"))

    def _applied_before(self, site: SitePlan, row: int) -> bool:
        """A site the stopped run was sending: when the site holds what that update set, it was applied
        (journalled now as updated, never sent twice); else it is sent as planned."""
        from wfctl.api.recordrules import left_as_run_left

        entry = self.log.entry(row)
        pair = (entry.changes if entry is not None else {}).get("rates")
        if not pair:
            return False
        current = self.api.get_record("site", site.site_id)
        old, new = pair
        if left_as_run_left("rates", old, new, current.get("rates")) and \
                not left_as_run_left("rates", new, old, current.get("rates")):
            self._finish(site, row, "updated", "", {"rates": [old, new]})
            return True
        return False

    def _finish(self, site: SitePlan, row: int, status: str, error: str = "",
                changes: dict[str, list[Any]] | None = None, outcome: Any = None) -> None:
        self.log.record(row, status, site.site_id, error, site.site_name, changes)
        with self._lock:
            self.counts[status] += 1
            self.outcomes[site.site_id] = (status, error, outcome)
        self.progress.advance("failed" if status == "failed" else "updated")

    def _halt(self, stop: Stop) -> None:
        with self._lock:
            if self._stopped is None:
                self._stopped = stop
        self._stop.set()
        interrupt = getattr(self.api, "interrupt_waits", None)  # a site waiting out a Retry-After: stop now
        if interrupt is not None:
            interrupt()


class _Abandoned(Exception):
    """The run is stopping: this site's update was not sent."""


#: Times a PUT the service refused with 429 (too many requests) is sent again, after its Retry-After.
BUSY_ATTEMPTS = 8


class Patient:
    """The lean sender of the run's PUTs, waiting out a 429 as the Client does for its requests (the
    service refused the PUT, so nothing of it was applied and sending it again is safe): a run of many
    sites at once against a rate-limited service slows down instead of failing sites."""

    def __init__(self, sender: Any, stop: threading.Event) -> None:
        self._sender = sender
        self._stop = stop

    def request(self, method: str, path: str, body: Any, idempotency_key: str | None = None) -> Any:
        from wfctl.api.errors import ApiError

        for attempt in range(BUSY_ATTEMPTS):
            try:
                return self._sender.request(method, path, body, idempotency_key)
            except ApiError as exc:
                if exc.status != 429 or attempt == BUSY_ATTEMPTS - 1:
                    raise
                wanted = getattr(exc, "retry_after", None)
                pause = float(wanted) if isinstance(wanted, int | float) and wanted >= 0 else 0.25 * 2 ** attempt
                if self._stop.wait(min(30.0, pause)):
                    raise _Abandoned() from None  # journalled as sending, not applied: a resume sends it
        raise AssertionError("unreachable")

    def replayed(self) -> bool:
        return bool(self._sender.replayed())
