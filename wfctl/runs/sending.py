"""Pass 4 of a bulk import: each valid row not done by an earlier run becomes an action (a create, by
the lost-answer protocol of `Client.create_outcome`; an update of what differs) that the one executor
(wfctl.runs.engine) runs, at most `concurrency` at a time, each row's intent journaled before it is sent
and its outcome after; conflicts answered from the run's name map. What is sent again within one request
(429/503 pausing every worker together) is the SDK's one retry policy (wfctl.api.net.retry); a row whose
answers are lost while the service comes back, and a service that stays unreachable, are the executor's
rule (`RunContext.send`).

    writer = RowWriter(api, journal, options, inventory, summary, progress, pause)
    writer.send_all(plan, prepared, run)   # raises Stopped

An action (`RowAction`) holds its row and the run's writer (`RowWriter`: what every row of the run shares,
given to it explicitly), never the importer.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wfctl.api.net.retry import OUTAGE_SECONDS, Pause
from wfctl.api.records.recordrules import natural_key, same_record
from wfctl.api.records.writes import UNSURE, records_to_look_up
from wfctl.plans.importplan import ImportPlan, Inventory, PlannedRow, Prepared, update_of, whole_record
from wfctl.plans.importtypes import UNSENT, Options, Summary
from wfctl.plans.kinds import KINDS
from wfctl.plans.renames import RenameGroup
from wfctl.runs.engine import Abandon, Action, Executor, RunContext
from wfctl.runs.journal import DONE, Journal, JournalError, idempotency_key
from wfctl.runs.journalentry import Key

#: How long the service may stay down before the run stops (rows wait meanwhile): the SDK's outage
#: budget, one for every request (wfctl.api.net.retry; WFCTL_OUTAGE_SECONDS, or WFCTL_UNREACHABLE_SECONDS).
UNREACHABLE_SECONDS = OUTAGE_SECONDS


@dataclass
class RowAction:
    """One file row of an import, as an action of the executor: an update of `existing`, or a create
    under `parent_id` when no record is matched. Its journal key is the row's number; `writer` is what
    the run's rows share."""

    writer: RowWriter
    key: int
    parent_id: str | None
    body: dict[str, Any]
    existing: dict[str, Any] | None
    current: dict[str, Any] | None = None  # the whole record of `existing`, read by the run's planning
    by_id: bool = False  # the row names its record by its id cell

    def apply(self, run: RunContext) -> None:
        self.writer.send_row(run, self)


@dataclass
class RenameAction:
    """Renames that must go one after the other (renames.py: a chain, or a cycle through a temporary name)
    as one action: `rows` are the group's rows' actions in its order (None: done by an earlier run). Its
    journal key is a cycle's temporary rename's (`[kind, record id, "rename"]`), else its first row's."""

    writer: RowWriter
    group: RenameGroup
    rows: list[RowAction | None]
    key: Key = 0

    def __post_init__(self) -> None:
        self.key = self.group.key or self.group.rows[0]

    def apply(self, run: RunContext) -> None:
        self.writer.send_group(run, self)


class RowWriter:
    """What the rows of one run share: the Client, the journal, the options, the inventory (its name map
    answers conflicts), the summary's counts, the progress sink and the run's one pause (the executor's,
    `RunContext.pause`: a record read waits for it too). `send_all` runs a plan's actions."""

    def __init__(self, api: Any, journal: Journal, options: Options, inventory: Inventory, summary: Summary,
                 progress: Callable[[str], None], pause: Pause) -> None:
        self.api = api
        self.journal = journal
        self.options = options
        self.kind = KINDS[options.kind]
        self.inventory = inventory
        self.summary = summary
        self._progress = progress
        self._lock = threading.Lock()
        self._names_lock = threading.Lock()
        self._names_read: dict[str | None, float] = {}  # parent -> when its last names read started
        self._pause = pause

    def send_all(self, plan: ImportPlan, prepared: Prepared | None, run: RunContext,
                 deletes: Iterable[Action] = (), groups: Iterable[RenameGroup] = ()) -> None:
        """The executor runs the rows' actions, read from the spool in this thread as it goes (`prepared`:
        the actions a real run planned before it sends), then `deletes` (a prune's, prune.py); the rows of
        each of `groups` (renames.py) are one action, sent in its order. Raises Stopped."""
        Executor(run, self.options.concurrency, name="wfctl-import").run(
            itertools.chain(self._actions(run, plan, prepared, groups), deletes))

    def _actions(self, run: RunContext, plan: ImportPlan, prepared: Prepared | None,
                 groups: Iterable[RenameGroup] = ()) -> Iterator[Action]:
        """The action of each row to send; a row whose record exists is skipped here (unless updated). A
        group's rows wait until its last one is read: then they go as one action (`RenameAction`)."""
        assert not self.options.dry_run, "a plan is shown, not run (Importer.run)"
        planned_rows: Iterator[PlannedRow] = prepared.rows() if prepared is not None else plan.rows()
        group_of = {row: group for group in groups for row in group.rows}
        waiting: dict[int, RowAction | None] = {}  # a group's row -> its action (None: nothing to send)
        for planned in planned_rows:
            if run.stopping():
                return
            group = group_of.get(planned.row)
            if group is not None:
                waiting[planned.row] = self._row_action(planned)
                if all(row in waiting for row in group.rows):
                    yield RenameAction(self, group, [waiting.pop(row) for row in group.rows])
                continue
            if (action := self._row_action(planned)) is not None:
                yield action

    def _row_action(self, planned: PlannedRow) -> RowAction | None:
        """The action of one planned row; None when an earlier run did it, or it is skipped (journalled here)."""
        journal = self.journal
        number, parent_id, body, existing = planned.row, planned.parent_id, planned.body, planned.existing
        if journal.done(number):
            return None
        if (existing is not None and not planned.by_id and journal.create_in_doubt(number)
                and not self._sent_update(number)):
            existing = None  # created by the run that was stopped, or failed: ours, or not made; the create says
        if existing is not None and self.options.on_existing != "update":
            self._finish(number, "skipped", str(existing.get("id", "")), name=str(existing.get("name", "")))
            return None
        return RowAction(self, number, parent_id, body, existing,
                         planned.current if existing is planned.existing else None, planned.by_id)

    def send_group(self, run: RunContext, action: RenameAction) -> None:
        """A group's renames one after the other; a cycle's first record renamed to its temporary name
        first. A step that fails leaves the later ones failed unsent (the run sent again plans them from
        what the service then holds); a run that stops leaves them to its resume."""
        group, steps = action.group, action.rows
        blocked = ""
        first = steps[-1]
        if group.cycle and first is not None and first.existing is not None and not self.journal.done(action.key):
            blocked = self._rename_temporarily(run, action, first)
        for step in steps:
            if run.stopping():
                return
            if step is None:
                continue
            if blocked:
                self._record_failure(run, step.key, step.body, f"not sent: {blocked}")
                continue
            self.send_row(run, step)
            status = self.journal.status(step.key)
            if status == "failed":
                blocked = f"row {step.key} of its rename {'cycle' if group.cycle else 'chain'} failed"
            elif status not in DONE:  # not answered: the run is stopping, its resume finds out
                return

    def _rename_temporarily(self, run: RunContext, action: RenameAction, first: RowAction) -> str:
        """Rename a cycle's first record to the group's temporary name, journalled under the group's key
        with the cycle's order; '' when done, else why the cycle's rows are not sent."""
        from wfctl.api.errors import ApiError, Interrupted

        assert first.existing is not None
        group, key = action.group, action.key
        record_id, old = str(first.existing.get("id", "")), group.renames[-1].old
        changes = {"name": [old, group.temporary]}
        sent_before = self.journal.was_sending(key)
        try:
            self.journal.intend(key, changes, record_id=record_id, order=group.rows)
            current = first.current
            run.send(lambda attempt: self.api.update_record(self.options.kind, record_id, {"name": group.temporary},
                                                            current=current, sender=run.sender))
            self.journal.record(key, "updated", record_id, name=old, changes=changes, order=group.rows)
        except Abandon as stop:
            if not stop.sent and not sent_before:
                with contextlib.suppress(JournalError):
                    self.journal.record(key, UNSENT, order=group.rows)
            return "the run stopped"
        except Interrupted:
            return "the run stopped"
        except JournalError as exc:
            run.stop_for(exc)
            return "the run stopped"
        except ApiError as exc:
            error = exc.one_line()
            with contextlib.suppress(JournalError):
                self.journal.record(key, "failed", record_id, error, old, order=group.rows)
            return f"renaming {old!r} to {group.temporary!r} first failed ({error})"
        if first.current is not None:
            first.current = {**first.current, "name": group.temporary}
        return ""

    def send_row(self, run: RunContext, action: RowAction) -> None:
        from wfctl.api.errors import ApiError, Interrupted
        from wfctl.api.net.redact import redact_text

        row, parent_id, body, existing = action.key, action.parent_id, action.body, action.existing
        sent_before = self.journal.was_sending(row)  # by a run this one resumes
        try:
            if existing is not None:
                self._update(run, row, body, existing, action.current, by_id=action.by_id)
            else:
                self._create(run, row, parent_id, body)
        except Abandon as stop:
            if not stop.sent and not sent_before:
                with contextlib.suppress(JournalError):  # its intent was written, but it never left
                    self.journal.record(row, UNSENT)
        except Interrupted:
            pass  # the run stopped while this row waited to be sent again: its intent stays, a resume finds out
        except JournalError as exc:
            run.stop_for(exc)
        except ApiError as exc:
            self._record_failure(run, row, body, exc.one_line(), None if existing is not None else (parent_id, body))
        except Exception as exc:  # a worker must record every row, whatever went wrong
            self._record_failure(run, row, body, redact_text(f"{exc.__class__.__name__}: {exc}"),
                                 None if existing is not None else (parent_id, body))

    def _record_failure(self, run: RunContext, row: int, body: dict[str, Any], error: str,
                        create: tuple[str | None, dict[str, Any]] | None = None) -> None:
        """A failed row; a create's with what it sent (`create`: parent id, body), so that the run that
        retries it decides, as for a row in flight, whether a record now there is this run's."""
        try:
            self._finish(row, "failed", "", error, name=str(body.get("name", "")), create=create)
        except JournalError as exc:
            run.stop_for(exc)

    def _create(self, run: RunContext, row: int, parent_id: str | None, body: dict[str, Any]) -> None:
        from wfctl.api.errors import Conflict

        name = str(body.get("name", ""))
        given = {k: [None, v] for k, v in body.items() if k != self.kind.parent_id_column}
        resent = self.journal.create_in_doubt(row)
        self._intend(row, create=(name, parent_id, body))
        key = self._idempotency_key(row, parent_id)
        try:  # an earlier attempt with this key may have been applied: sent again, or by the stopped run
            outcome = run.send(lambda attempt: self.api.create_outcome(
                self.options.kind, parent_id, body, idempotency_key=key, sender=run.sender,
                maybe_applied=resent or attempt > 1, find=lambda: self._find_same(run, parent_id, body)))
        except Conflict:
            found = self._named(parent_id, body.get("name"))
            if found is None:
                raise
            if self.options.on_existing == "update":
                self._update(run, row, body, self._full(found), by_id=False)
            else:
                self._finish(row, "skipped", str(found.get("id", "")), name=name)
            return
        record = outcome.record
        if outcome.made:  # this run's (undo deletes it); unsure: the row's note says why
            self._finish(row, "created", str(record.get("id", "")), "" if outcome.sure else UNSURE,
                         name=name, changes=given, left=record)
        else:  # another writer made it while this row's answer was lost: undo leaves it
            self._finish(row, "skipped", str(record.get("id", "")), name=name)

    def _named(self, parent_id: str | None, name: Any) -> dict[str, Any] | None:
        """The record of that name under the parent (G12 key), from the run's name map. A name the map
        does not hold (someone made it since the map was read) reads the parent's records once more,
        unless a read that started after this question was asked is done already: conflicts that come
        together share one read, instead of a full list each."""
        key = (parent_id, natural_key(name))
        found = self.inventory.existing.get(key)
        if found is not None:
            return found
        asked = time.monotonic()
        with self._names_lock:
            if self._names_read.get(parent_id, -1.0) < asked:
                started = time.monotonic()
                for record in records_to_look_up(self.api, self.options.kind, parent_id):
                    self.inventory.existing.setdefault((parent_id, natural_key(record.get("name"))), record)
                self._names_read[parent_id] = started
        return self.inventory.existing.get(key)

    def _find_same(self, run: RunContext, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
        """The whole record named as `body` that holds every field of it, or None (G20 look-up)."""
        found = self._named(parent_id, body.get("name"))
        if found is None:
            return None
        full = self._full(found)
        return full if same_record(body, full) else None

    def _update(self, run: RunContext, row: int, body: dict[str, Any], existing: dict[str, Any],
                current: dict[str, Any] | None = None, *, by_id: bool) -> None:
        """Update `existing` to `body`: what differs from its whole record (`current`, read by the run's
        planning; read here when None)."""
        record_id = str(existing.get("id", ""))
        if current is None:
            current = self._full(existing)
        name, body, changes = update_of(self.options.kind, body, current, by_id=by_id)
        sent = self._sent_update(row)  # by the run this one resumes: applied when nothing differs now
        if not changes and sent:
            self._finish(row, "updated", record_id, name=name, changes=sent)
            return
        if not changes:
            self._finish(row, "unchanged", record_id, name=name)
            return
        self._intend(row, changes, record_id=record_id)  # the old values first: a run killed now still knows them
        run.send(lambda attempt: self.api.update_record(self.options.kind, record_id, body, current=current,
                                                        sender=run.sender))  # PUT: sending it again is safe
        self._finish(row, "updated", record_id, name=name, changes=changes)

    def _intend(self, row: int, changes: dict[str, list[Any]] | None = None, *, record_id: str = "",
                create: tuple[str, str | None, dict[str, Any]] | None = None) -> None:
        self.journal.intend(row, changes, record_id=record_id, create=create)

    def _sent_update(self, row: int) -> dict[str, list[Any]]:
        """The changes of an update this row was being sent as when an earlier run stopped, else {}."""
        journal = self.journal
        if not journal.was_sending(row):
            return {}
        entry = journal.entry(row)
        return entry.changes if entry is not None else {}

    def _full(self, summary: dict[str, Any]) -> dict[str, Any]:
        return whole_record(self.api, self.kind, self._pause, summary)

    def _idempotency_key(self, row: int, parent_id: str | None) -> str:
        return idempotency_key(self.journal.header, self.options.kind, parent_id, row)

    def record_outcome(self, key: Key, status: str, record_id: str = "", error: str = "", *, name: str = "",
                       changes: dict[str, list[Any]] | None = None, deleted: str | None = None) -> None:
        """An action's outcome journalled and counted (a prune's delete: `deleted`, its parent id or "")."""
        self._finish(key, status, record_id, error, name=name, changes=changes, deleted=deleted)

    def _finish(self, row: Key, status: str, record_id: str = "", error: str = "", *, name: str = "",
                changes: dict[str, list[Any]] | None = None, left: dict[str, Any] | None = None,
                create: tuple[str | None, dict[str, Any]] | None = None, deleted: str | None = None) -> None:
        sources = self.options.row_sources
        source = sources.get(row, "") if sources and record_id and isinstance(row, int) else ""  # a copy's file row
        self.journal.record(row, status, record_id, error, name, changes, left, create=create, deleted=deleted,
                            source=source)
        with self._lock:
            self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._progress(status)
