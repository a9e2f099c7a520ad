"""Pass 4 of a bulk import: send every valid row not done by an earlier run, by a pool of threads at
most `concurrency` at a time, each row's intent journaled before it is sent and its outcome after: a
create by the lost-answer protocol of `Client.create_outcome`, an update of what differs; conflicts
answered from the run's name map. What is sent again within one request (429/503 pausing every worker
together) is the SDK's one retry policy (wfctl.api.retry), in the lean writer and the Client alike; the
run keeps only its own rule: a row whose answers are lost is tried again while the service comes back,
and a service that stays unreachable stops the run. Mixed into `Importer`, whose state (importstate.py)
it reads."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from wfctl.api.recordrules import changed_fields, natural_key, same_record
from wfctl.api.retry import OUTAGE_SECONDS, RetryPolicy
from wfctl.api.writes import UNSURE, records_to_look_up
from wfctl.bulk.importstate import ImportState
from wfctl.bulk.importtypes import UNSENT, Stopped
from wfctl.bulk.journal import JournalError, idempotency_key
from wfctl.bulk.workers import Workers

#: How long the service may stay down before the run stops (rows wait meanwhile): the SDK's outage
#: budget, one for every request (wfctl.api.retry; WFCTL_OUTAGE_SECONDS, or WFCTL_UNREACHABLE_SECONDS).
UNREACHABLE_SECONDS = OUTAGE_SECONDS


class Sending(ImportState):
    def _send_all(self) -> None:
        """Producer (this thread: plan each row) and `concurrency` workers on a bounded queue."""
        import queue

        journal = self.journal
        assert journal is not None
        limit = max(1, self.options.concurrency)
        tasks: queue.Queue[tuple[int, str | None, dict[str, Any], dict[str, Any] | None] | None] = \
            queue.Queue(maxsize=limit * 4)
        stop = self._stop

        def work() -> None:
            while (task := tasks.get()) is not None:
                if not stop.is_set():
                    self._send_row(*task)

        workers = Workers(work, limit, "wfctl-import")
        workers.start()
        dry_run = self.options.dry_run
        creates = self._creates
        try:
            if dry_run:
                self._plan_creates()
            for number, parent_id, body in self._checked_rows() if self._others() else ():
                if stop.is_set():
                    break
                if number in self._invalid_rows or journal.done(number) or (dry_run and creates[number]):
                    continue
                by_id = self._id_rows.get(number)
                existing = (self._by_id[by_id][1] if by_id is not None
                            else self._existing.get((parent_id, natural_key(body.get("name")))))
                if (existing is not None and by_id is None and journal.create_in_doubt(number)
                        and not self._sent_update(number)):
                    existing = None  # created by the run that was stopped, or failed: ours, or not made; the create says
                if existing is not None and self.options.on_existing != "update":
                    self._finish(number, "skipped", str(existing.get("id", "")), name=str(existing.get("name", "")))
                    continue
                tasks.put((number, parent_id, body, existing))
        except BaseException:
            stop.set()  # Ctrl-C: the rows in flight finish and are journaled; the queued ones are dropped
            self._stop_waiting()  # ... and a row waiting out a Retry-After or a backoff does not wait on
            raise
        finally:
            def stopping() -> None:  # a Ctrl-C while the workers finish: drop the queued rows
                stop.set()
                self._stop_waiting()

            interrupted: KeyboardInterrupt | None = None
            markers = 0
            while markers < limit:  # one end marker a worker (a Ctrl-C between two: one more, harmless)
                try:
                    if stop.is_set():
                        _drain_put(tasks)
                    else:
                        tasks.put(None)
                    markers += 1
                except KeyboardInterrupt as exc:
                    interrupted = exc
                    stopping()
            # the rows in flight end and are journalled before the journal closes (workers.py: a Ctrl-C
            # in Thread.join could let it return while a row is still in flight)
            interrupted = workers.wait(stopping) or interrupted
            if interrupted is not None:
                raise interrupted

    def _plan_creates(self) -> None:
        """A plan's creates: counted, never journaled (their fields are read back from the spool)."""
        creates, invalid, progress = self._creates, self._invalid_rows, self._progress
        planned = 0
        for number in range(1, len(creates)):
            if creates[number] and number not in invalid:
                planned += 1
                progress("created")
        with self._lock:
            self.summary.counts["created"] += planned

    def _planned(self, row: int) -> bool:
        """Whether a plan creates `row` (it has no journal entry)."""
        return (self.options.dry_run and row < len(self._creates) and self._creates[row] == 1
                and row not in self._invalid_rows)

    def _others(self) -> bool:
        """Whether the send pass has rows to look at: a run's every row, a plan's those that exist."""
        if not self.options.dry_run:
            return True
        creates, invalid = self._creates, self._invalid_rows
        return any(not creates[number] and number not in invalid for number in range(1, len(creates)))

    def _checked_rows(self) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
        spool = self._spool
        assert spool is not None
        return spool.checked_rows()

    def _send_row(self, row: int, parent_id: str | None, body: dict[str, Any],
                  existing: dict[str, Any] | None) -> None:
        from wfctl.api.errors import ApiError, Interrupted
        from wfctl.api.redact import redact_text

        sent_before = self.journal is not None and self.journal.was_sending(row)  # by a run this one resumes
        try:
            if existing is not None:
                self._update(row, body, existing)
            else:
                self._create(row, parent_id, body)
        except _Abandon as stop:
            if not stop.sent and not sent_before and self.journal is not None:
                with contextlib.suppress(JournalError):  # its intent was written, but it never left
                    self.journal.record(row, UNSENT)
        except Interrupted:
            pass  # the run stopped while this row waited to be sent again: its intent stays, a resume finds out
        except JournalError as exc:
            self._halt(Stopped("journal", str(exc)))
        except ApiError as exc:
            self._record_failure(row, body, exc.one_line(), None if existing is not None else (parent_id, body))
        except Exception as exc:  # a worker must record every row, whatever went wrong
            self._record_failure(row, body, redact_text(f"{exc.__class__.__name__}: {exc}"),
                                 None if existing is not None else (parent_id, body))

    def _record_failure(self, row: int, body: dict[str, Any], error: str,
                        create: tuple[str | None, dict[str, Any]] | None = None) -> None:
        """A failed row; a create's with what it sent (`create`: parent id, body), so that the run that
        retries it decides, as for a row in flight, whether a record now there is this run's."""
        try:
            self._finish(row, "failed", "", error, name=str(body.get("name", "")), create=create)
        except JournalError as exc:
            self._halt(Stopped("journal", str(exc)))

    def _create(self, row: int, parent_id: str | None, body: dict[str, Any]) -> None:
        from wfctl.api.errors import Conflict

        name = str(body.get("name", ""))
        given = {k: [None, v] for k, v in body.items() if k != self.kind.parent_id_column}
        resent = self.journal is not None and self.journal.create_in_doubt(row)
        self._intend(row, create=(name, parent_id, body))
        key = self._idempotency_key(row, parent_id)
        attempt = 0
        while True:  # _sent says when to give up (it raises)
            attempt += 1
            self._backoff.wait()
            try:
                applied = resent or attempt > 1  # an earlier attempt with this key may have been applied
                outcome = self._sent(lambda applied=applied: self.api.create_outcome(  # type: ignore[misc]
                    self.options.kind, parent_id, body, idempotency_key=key, sender=self._sender,
                    maybe_applied=applied, find=lambda: self._find_same(parent_id, body)))
                record = outcome.record
                if outcome.made:  # this run's (undo deletes it); unsure: the row's note says why
                    self._finish(row, "created", str(record.get("id", "")), "" if outcome.sure else UNSURE,
                                 name=name, changes=given, left=record)
                else:  # another writer made it while this row's answer was lost: undo leaves it
                    self._finish(row, "skipped", str(record.get("id", "")), name=name)
                return
            except Conflict:
                found = self._named(parent_id, body.get("name"))
                if found is None:
                    raise
                if self.options.on_existing == "update":
                    self._update(row, body, self._full(found))
                else:
                    self._finish(row, "skipped", str(found.get("id", "")), name=name)
                return
            except _Retry:
                continue

    def _named(self, parent_id: str | None, name: Any) -> dict[str, Any] | None:
        """The record of that name under the parent (G12 key), from the run's name map. A name the map
        does not hold (someone made it since the map was read) reads the parent's records once more,
        unless a read that started after this question was asked is done already: conflicts that come
        together share one read, instead of a full list each."""
        key = (parent_id, natural_key(name))
        found = self._existing.get(key)
        if found is not None:
            return found
        asked = time.monotonic()
        with self._names_lock:
            if self._names_read.get(parent_id, -1.0) < asked:
                started = time.monotonic()
                for record in records_to_look_up(self.api, self.options.kind, parent_id):
                    self._existing.setdefault((parent_id, natural_key(record.get("name"))), record)
                self._names_read[parent_id] = started
        return self._existing.get(key)

    def _find_same(self, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
        """The whole record named as `body` that holds every field of it, or None (G20 look-up)."""
        found = self._named(parent_id, body.get("name"))
        if found is None:
            return None
        full = self._full(found)
        return full if same_record(body, full) else None

    def _update(self, row: int, body: dict[str, Any], existing: dict[str, Any]) -> None:
        record_id = str(existing.get("id", ""))
        current = self._full(existing)
        name = str(current.get("name", body.get("name", "")))
        if "name" in body and row not in self._id_rows and natural_key(body["name"]) == natural_key(name):
            # found by its name (G12), which is not a rename: the service's spelling stays
            body = {k: v for k, v in body.items() if k != "name"}
        from wfctl.api.recordrules import update_body

        changes = {k: [old, new] for k, (old, new) in changed_fields(current, update_body(
            self.options.kind, current, body)).items()}
        sent = self._sent_update(row)  # by the run this one resumes: applied when nothing differs now
        if not changes and sent:
            self._finish(row, "updated", record_id, name=name, changes=sent)
            return
        if not changes:
            self._finish(row, "unchanged", record_id, name=name)
            return
        if self.options.dry_run:
            self._finish(row, "updated", record_id, name=name, changes=changes)
            return
        self._intend(row, changes, record_id=record_id)  # the old values first: a run killed now still knows them
        while True:  # _sent says when to give up (it raises)
            self._backoff.wait()
            try:
                self._sent(lambda: self.api.update_record(self.options.kind, record_id, body, current=current,
                                                          sender=self._sender))
                self._finish(row, "updated", record_id, name=name, changes=changes)
                return
            except _Retry:  # PUT is idempotent: sending it again is safe
                continue

    def _sent(self, send: Callable[[], Any]) -> Any:
        """Run one request, and say what to do when it fails: raise _Retry to send it again, or the
        error to record the row as failed. The request's own retries (429/503 pausing every worker
        together, an outage ridden out by every worker on the one pause) are the SDK's policy; the run's
        rule is for a network failure: said once ("service unreachable, retrying"), the row is tried
        again; when the service has been down for the outage's budget (60 s, wfctl.api.retry), by the
        pool's account or the run's (no row got through), the run stops; a row whose own answers keep
        being lost that long while others get through is recorded as failed."""
        from wfctl.api.errors import ApiError, NetworkError

        local = self._local_attempts()
        if self._stop.is_set():
            raise _Abandon(sent=getattr(local, "n", 0) > 0)
        patience = _unreachable_seconds()
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
                self._note(f"service unreachable ({exc.one_line()}), retrying")
            outage = self._outage()
            if now - since > patience or (outage is not None and outage >= patience):
                self._halt(Stopped("unreachable", f"the service is unreachable ({exc.one_line()})"))
                raise _Abandon(sent=True) from None
            row_since = getattr(local, "since", None) or now
            if now - row_since > patience:
                local.n, local.since = 0, None
                raise
            local.n, local.since = attempt, row_since
            self._backoff.hold(self._policy().backoff(attempt))
            raise _Retry() from None
        except ApiError as exc:
            local.n, local.since = 0, None
            down = self._outlasted(exc)
            if down is not None:  # a 503 through the whole outage: the run stops as when unreachable
                self._halt(Stopped("unreachable", f"the service is unreachable ({down.one_line()})"))
                raise _Abandon(sent=True) from None
            raise
        with self._lock:
            self._unreachable_since = None
        local.n, local.since = 0, None
        return result

    def _outage(self) -> float | None:
        """How long the service has been down by the account of the Client's pool (its requests ride the
        outage out on one pause), or None."""
        outage = getattr(self.api, "outage", None)  # test doubles of the Client have none
        return outage() if callable(outage) else None

    def _outlasted(self, exc: Exception) -> Any:
        outlasted = getattr(self.api, "outlasted_outage", None)
        return outlasted(exc) if callable(outlasted) else None

    def _policy(self) -> RetryPolicy:
        """The retry policy of the run's writer (its backoff paces the tries while the service is away)."""
        policy = getattr(self._sender, "policy", None)
        return policy if isinstance(policy, RetryPolicy) else _DEFAULT_POLICY

    def _local_attempts(self) -> Any:
        """This worker's count of attempts at its current row, and when its answers started to be lost."""
        local = getattr(self, "_attempts", None)
        if local is None:
            local = self._attempts = threading.local()
        return local

    def _halt(self, stopped: Stopped) -> None:
        with self._lock:
            if self._stopped is None:
                self._stopped = stopped
        self._stop.set()
        self._stop_waiting()

    def _stop_waiting(self) -> None:
        """End the waits of the rows in flight (the run's backoff, the Client's Retry-After pause)."""
        self._backoff.interrupt()
        interrupt = getattr(self.api, "interrupt_waits", None)
        if interrupt is not None:
            interrupt()

    def _intend(self, row: int, changes: dict[str, list[Any]] | None = None, *, record_id: str = "",
                create: tuple[str, str | None, dict[str, Any]] | None = None) -> None:
        assert self.journal is not None
        self.journal.intend(row, changes, record_id=record_id, create=create)

    def _sent_update(self, row: int) -> dict[str, list[Any]]:
        """The changes of an update this row was being sent as when an earlier run stopped, else {}."""
        journal = self.journal
        if journal is None or not journal.was_sending(row):
            return {}
        entry = journal.entry(row)
        return entry.changes if entry is not None else {}

    def _full(self, summary: dict[str, Any]) -> dict[str, Any]:
        if self.kind.list_is_full:
            return summary
        self._backoff.wait()
        return self.api.get_record(self.options.kind, str(summary["id"]))

    def _idempotency_key(self, row: int, parent_id: str | None) -> str:
        assert self.journal is not None
        return idempotency_key(self.journal.header, self.options.kind, parent_id, row)

    def _finish(self, row: int, status: str, record_id: str = "", error: str = "", *, name: str = "",
                changes: dict[str, list[Any]] | None = None, left: dict[str, Any] | None = None,
                create: tuple[str | None, dict[str, Any]] | None = None) -> None:
        assert self.journal is not None
        self.journal.record(row, status, record_id, error, name, changes, left, create=create)
        with self._lock:
            self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._progress(status)



class _Retry(Exception):
    """Send the same request again (after the shared pause)."""


class _Abandon(Exception):
    """The run is stopping. `sent`: an attempt at the row went out (the resume finds out what it did);
    otherwise the row was not sent at all by this run."""

    def __init__(self, *, sent: bool) -> None:
        super().__init__("the run is stopping")
        self.sent = sent


def _unreachable_seconds() -> float:
    from wfctl.api.retry import outage_seconds

    return outage_seconds()



def _drain_put(tasks: Any) -> None:
    """Put the end marker even when the queue is full of rows that will not be sent."""
    import queue

    while True:
        try:
            tasks.put_nowait(None)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                tasks.get_nowait()


_DEFAULT_POLICY = RetryPolicy()
