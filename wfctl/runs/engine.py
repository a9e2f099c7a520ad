"""The one executor of every journalled bulk run: an import, an undo and `wfctl rates set` are plans of
actions (an import's rows: `sending.RowAction`; an undo's records: `undo.TakeBack`, built from the run's
journal by `undo.inverse_plan`; a rate change's sites: `siteaction.SetRates`); this runs any of them, and a
new kind of run (a prune's deletes) is a new kind of action, not a new loop.

An action is a unit of work with a journal key (`key`: the row its intent and outcome are recorded
under, a file row, a record to take back, a site whose rates change) and `apply(run)`, which journals
its intent, sends it through the SDK and journals its outcome. The executor owns what every run shares:

- a bounded queue fed by the caller's thread as it reads the plan (a plan may be a generator over a
  spooled file), and `concurrency` worker threads;
- the one pause of the run's requests (`wfctl.api.net.retry.Pause`), and the run's rule for a network
  failure (`RunContext.send`): a row whose answers are lost is tried again while the service comes back, and a
  service unreachable for the outage budget (`OUTAGE_SECONDS`) stops the run;
- the one way a run stops early (`Stopped`) and the one rule of what stops it (`stop_cause`): Ctrl-C, a
  journal that cannot be written, a service that stays away (unreachable, a 503 through the whole outage,
  a login that cannot be refreshed). Every action asks `RunContext.stop_for` of an error it meets instead of
  a rule of its own. Rows in flight end and are journalled before `run` returns, queued ones are dropped.

A Ctrl-C is not trusted to `Thread.join()`: on CPython before 3.13 the clean-up of bpo-45274 may release
the lock that the running thread still holds and mark the thread as ended, so the next `join()` returns at
once and the run would close its journal under a row still in flight. So a worker also says it is done
as its last act, and once a wait has been interrupted the run waits for that instead.
"""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from wfctl.api.net.retry import OUTAGE_SECONDS, Pause, RetryPolicy
from wfctl.api.records.writelog import in_run
from wfctl.runs.journal import Journal, JournalError
from wfctl.runs.journalentry import Key

__all__ = ["OUTAGE_SECONDS", "POLL", "Abandon", "Action", "Executor", "RunContext", "Stopped", "Workers",
           "stop_cause", "wait_until"]

T = TypeVar("T")

#: Seconds between two looks at the workers once a wait has been interrupted.
POLL = 0.02


class Stopped(Exception):
    """The run stopped before its end; every row it sent is recorded. `cause` is "interrupted",
    "journal" (a local fault) or "unreachable"."""

    def __init__(self, cause: str, message: str, error: Exception | None = None) -> None:
        super().__init__(message)
        self.cause = cause
        self.message = message
        self.error = error  # the service's error that stopped it (an "unreachable" run's), else None


def stop_cause(exc: BaseException, api: Any) -> Stopped | None:
    """The one rule of what stops a run, for an error an action met: a journal that cannot be written
    ("journal"); a service the SDK could not reach after its retries, a 503 through the whole outage the
    SDK rides out ("the service is unreachable (...)"), or a login that cannot be refreshed ("unreachable":
    every further row would meet it). None: the error is the action's own outcome (its row failed).
    `RunContext.send` asks it too, of what a request met (once the run's patience with a network failure
    is spent): what it raises past that is the row's."""
    from wfctl.api.errors import ApiError, NetworkError, NotLoggedIn

    if isinstance(exc, JournalError):
        return Stopped("journal", str(exc))
    if isinstance(exc, NotLoggedIn):
        return Stopped("unreachable", exc.one_line(), exc)
    if isinstance(exc, NetworkError):
        return Stopped("unreachable", f"the service is unreachable ({exc.one_line()})", exc)
    runs = getattr(api, "_runs", None)  # wfctl.api.runsupport; test doubles of the Client have none
    down = runs.outlasted_outage(exc) if runs is not None and isinstance(exc, ApiError) else None
    if down is not None:
        return Stopped("unreachable", f"the service is unreachable ({down.one_line()})", down)
    return None


class Abandon(Exception):
    """The run is stopping. `sent`: an attempt at the action went out (a resume finds out what it did);
    otherwise it was not sent at all by this run."""

    def __init__(self, *, sent: bool) -> None:
        super().__init__("the run is stopping")
        self.sent = sent


class Action(Protocol):
    """One unit of a plan: `key` is the journal key it is recorded under (wfctl.runs.journalentry: a file
    row, or an action on a record); `apply` does it, journalling its intent and outcome, and tells the
    run's progress (`RunContext.report`)."""

    @property
    def key(self) -> Key: ...

    def apply(self, run: RunContext) -> None: ...


class RunContext:
    """What the actions of one running plan share: the Client, the journal, the lean writer, the pause,
    and whether the run is stopping."""

    def __init__(self, api: Any, journal: Journal | None, *, pause: Pause | None = None,
                 note: Callable[[str], None] | None = None, progress: Callable[[Any], None] | None = None,
                 lean: bool = False) -> None:
        self.api = api
        self.journal = journal
        self.pause = pause or Pause()  # the run's wait while the service is unreachable, every worker's
        self.note = note or (lambda text: None)
        runs = getattr(api, "_runs", None)  # wfctl.api.runsupport; test doubles of the Client have none
        self._runs = runs
        self.sender = runs.lean_writer() if runs is not None and lean else None  # the run's writes, `lean`: many
        self.stopped: Stopped | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._unreachable_since: float | None = None
        self._attempts = threading.local()
        self._progress = progress
        self._progress_lock = threading.Lock()

    def report(self, outcome: Any) -> None:
        """Tell the run's progress sink of one outcome (under one lock: the sink needs none of its own)."""
        if self._progress is not None:
            with self._progress_lock:
                self._progress(outcome)

    def stopping(self) -> bool:
        return self._stop.is_set()

    def halt(self, stopped: Stopped | None = None) -> None:
        """Stop the run (`stopped`: why, the first reason kept): no action starts after it, and the waits
        of those in flight end (the run's pause, the Client's Retry-After)."""
        if stopped is not None:
            with self._lock:
                if self.stopped is None:
                    self.stopped = stopped
        self._stop.set()
        self.pause.interrupt()
        if self._runs is not None:
            self._runs.interrupt_waits()

    def stop_for(self, exc: BaseException) -> bool:
        """Whether `exc`, met by an action, stops the run (`stop_cause`); if so the run is stopped."""
        stopped = stop_cause(exc, self.api)
        if stopped is not None:
            self.halt(stopped)
        return stopped is not None

    def send(self, request: Callable[[int], T]) -> T:
        """`request(attempt)` until it is answered, after the run's pause each time: a network failure
        is tried again while the service comes back (`_sent`). Raises the request's ApiError, or Abandon
        when the run stops."""
        attempt = 0
        while True:
            attempt += 1
            self.pause.wait()
            try:
                return self._sent(functools.partial(request, attempt))
            except _Retry:
                continue

    def _sent(self, send: Callable[[], T]) -> T:
        """RunContext one request, and say what to do when it fails: raise _Retry to send it again, or the
        error to record the row as failed. The request's own retries (429/503 pausing every worker
        together, an outage ridden out by every worker on the one pause) are the SDK's policy; the run's
        rule is for a network failure: said once ("service unreachable, retrying"), the row is tried
        again; when the service has been down for the outage's budget, by the pool's account or the
        run's (no row got through), the run stops by the one rule (`stop_for`, as it does for an error
        the SDK gave up on: a 503 through the whole outage, no login); a row whose own answers keep
        being lost that long while others get through is recorded as failed."""
        from wfctl.api.errors import ApiError, NetworkError
        from wfctl.api.net.retry import outage_seconds

        local = self._attempts
        if self._stop.is_set():
            raise Abandon(sent=getattr(local, "n", 0) > 0)
        patience = outage_seconds()
        attempt = getattr(local, "n", 0) + 1
        try:
            result = send()
        except NetworkError as exc:
            now = time.monotonic()
            with self._lock:
                first = self._unreachable_since is None
                if first:
                    self._unreachable_since = now
                since = self._unreachable_since or now
            if first:
                self.note(f"service unreachable ({exc.one_line()}), retrying")
            outage = self._outage()
            if (now - since > patience or (outage is not None and outage >= patience)) and self.stop_for(exc):
                raise Abandon(sent=True) from None
            row_since = getattr(local, "since", None) or now
            if now - row_since > patience:
                local.n, local.since = 0, None
                raise
            local.n, local.since = attempt, row_since
            self.pause.hold(self._policy().backoff(attempt))
            raise _Retry() from None
        except ApiError as exc:
            local.n, local.since = 0, None
            if self.stop_for(exc):  # the one rule (a 503 through the whole outage, no login): as every run's
                raise Abandon(sent=True) from None
            raise
        with self._lock:
            self._unreachable_since = None
        local.n, local.since = 0, None
        return result

    def _outage(self) -> float | None:
        return self._runs.outage() if self._runs is not None else None

    def _policy(self) -> RetryPolicy:
        """The retry policy of the run's writer (its backoff paces the tries while the service is away)."""
        policy = getattr(self.sender, "policy", None)
        return policy if isinstance(policy, RetryPolicy) else _DEFAULT_POLICY


class Executor:
    """Runs a plan of actions on `run`, `concurrency` at a time. `run` returns when every action started has ended and been
    journalled; it raises `Stopped` when the run stopped early, or the error an action raised (a
    run-wide fault: no login, the network) after the others have ended."""

    def __init__(self, run: RunContext, concurrency: int, *, name: str = "wfctl-bulk") -> None:
        self.run_state = run
        self.concurrency = max(1, concurrency)
        self._name = name
        self._lock = threading.Lock()
        self._failure: BaseException | None = None

    def run(self, actions: Iterable[Action]) -> None:
        """Producer (this thread: read the plan) and the workers on a bounded queue."""
        run = self.run_state
        limit = self.concurrency
        tasks: queue.Queue[Action | None] = queue.Queue(maxsize=limit * 4)

        run_id = run.journal.run_id if run.journal is not None else ""

        def work() -> None:
            with in_run(run_id):  # the SDK's write observer tells this run's rows from single writes
                while (action := tasks.get()) is not None:
                    if not run.stopping():
                        self._apply(action)

        workers = Workers(work, limit, self._name)
        workers.start()
        interrupted: KeyboardInterrupt | None = None
        try:
            for action in actions:
                if run.stopping():
                    break
                tasks.put(action)
        except KeyboardInterrupt as exc:
            interrupted = exc
            run.halt()  # Ctrl-C: the actions in flight finish and are journalled; the queued ones are dropped
        except BaseException:
            run.halt()
            raise
        finally:
            markers = 0
            while markers < limit:  # one end marker a worker (a Ctrl-C between two: one more, harmless)
                try:
                    if run.stopping():
                        _drain_put(tasks)
                    else:
                        tasks.put(None)
                    markers += 1
                except KeyboardInterrupt as exc:
                    interrupted = exc
                    run.halt()
            interrupted = workers.wait(run.halt) or interrupted
        if interrupted is not None:
            run.stopped = Stopped("interrupted", "interrupted")
        if self._failure is not None and interrupted is None:
            raise self._failure
        if run.stopped is not None:
            raise run.stopped

    def _apply(self, action: Action) -> None:
        from wfctl.api.errors import Interrupted

        run = self.run_state
        try:
            action.apply(run)
        except (Abandon, Interrupted):
            return  # the run stopped while this action waited: its intent stays, a resume finds out
        except JournalError as exc:
            run.stop_for(exc)
            return
        except BaseException as exc:  # a run-wide error (the login, the network): stop every worker
            with self._lock:
                if self._failure is None:
                    self._failure = exc
            run.halt()


# -- the workers -------------------------------------------------------------------------------------

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


# -- private -----------------------------------------------------------------------------------------

class _Retry(Exception):
    """Send the same request again (after the shared pause)."""


def _drain_put(tasks: queue.Queue[Any]) -> None:
    """Put the end marker even when the queue is full of actions that will not be run."""
    while True:
        try:
            tasks.put_nowait(None)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                tasks.get_nowait()


_DEFAULT_POLICY = RetryPolicy()
