"""The per-row decisions of an undo: `Undoer` checks each row of a run against the service and
deletes what the run created, or puts back what its updates replaced (`wfctl.runs.undo` plans and runs
it; the statuses are those of `wfctl.runs.runlist`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wfctl.api.records.recordrules import LIST_FIELDS, restorable
from wfctl.runs import journal
from wfctl.runs.journal import SENDING, Entry
from wfctl.runs.runlist import ACTION_FOR, CHANGED, FAILED, GONE, RECREATED, UNDONE


class Undoer:
    """Takes back the rows of one run on the service (`api`: a wfctl Client)."""

    def __init__(self, api: Any, kind: str, *, force: bool = False, header: dict[str, Any] | None = None) -> None:
        self.api = api
        self.kind = kind
        self.force = force
        self.header = header or {}  # the header of the run taken back (its nonce, file, parent)
        self.parent = str(self.header.get("parent") or "")

    def preview(self, entry: Entry) -> Entry:
        """What `undo` would do to the row, written nothing: status deleted/restored/changed/gone/failed."""
        return self._take_back(entry, None)

    def undo(self, entry: Entry, undo_journal: journal.Journal) -> Entry:
        """Take back one row, recording its intent and outcome in `undo_journal`; returns the outcome."""
        outcome = self._take_back(entry, undo_journal)
        undo_journal.record(outcome.key, outcome.status, outcome.id, outcome.error, outcome.name, outcome.changes)
        return outcome

    # -- private -------------------------------------------------------------------------------

    def _take_back(self, entry: Entry, log: journal.Journal | None) -> Entry:
        from wfctl.api.errors import ApiError, NotFound

        key = entry.key
        if entry.action == journal.DELETE:  # a prune's delete: the record is made again
            return self._recreate(entry, log)
        if entry.status == SENDING:
            settled = self._in_flight(entry, log)
            if settled.status not in ACTION_FOR:
                return settled
            entry = settled
        if not entry.id:
            return Entry(key, FAILED, "", "the run recorded no id for this row", entry.name)
        # A row whose intent the killed undo wrote may have been done by it: then it is ours.
        ours = log is not None and log.was_sending(key)
        try:
            current = self.api.get_record(self.kind, entry.id)
        except NotFound:
            return Entry(key, UNDONE if ours else GONE, entry.id, "", entry.name)
        except ApiError as exc:
            _stop_on_run_wide(exc, self.api)
            return Entry(key, FAILED, entry.id, exc.one_line(), entry.name)
        name = entry.name or str(current.get("name") or "")
        if entry.status == "created":
            return self._delete(entry, current, name, log)
        return self._restore(entry, current, name, log)

    def _in_flight(self, entry: Entry, log: journal.Journal | None) -> Entry:
        """What a row that the run was sending when it stopped did. An update's intent carries its id
        and changes: it is taken back as an update (restored already when it was not applied). A create
        is decided as a resumed run decides it (`Client.create_outcome` under the run's Idempotency-Key):
        a record of its name holding what was sent is the run's unless the service says another writer
        made it; no record of that name, nothing to take back. A preview sends nothing: it looks the
        record up by its natural key."""
        from wfctl.api.errors import ApiError, Conflict
        from wfctl.api.records.writes import UNSURE

        key = entry.key
        if entry.changes and entry.id:
            return Entry(key, "updated", entry.id, "", entry.name, entry.changes)
        if entry.body is None:
            return Entry(key, FAILED, entry.id, "the run stopped before this row's answer arrived, and its journal "
                         "(written by an older wfctl) does not say what was sent: check the record by hand", entry.name)
        parent = entry.parent or self.parent or None
        idem = journal.idempotency_key(self.header, self.kind, parent, key)
        try:
            if log is None:
                found = self.api._runs.find_same(self.kind, parent, entry.body)
                if found is None:
                    return Entry(key, GONE, "", "", entry.name)
                return Entry(key, "created", str(found.get("id", "")), "", entry.name, left=found)
            if self.api.find_by_name(self.kind, parent, entry.body.get("name")) is None:
                return Entry(key, GONE, "", "", entry.name)  # nothing of that name: nothing to take back
            log.intend(key)
            outcome = self.api.create_outcome(self.kind, parent, entry.body, idempotency_key=idem, maybe_applied=True)
        except Conflict:
            return Entry(key, FAILED, "", f"the run stopped before this row's answer arrived, and a {self.kind} "
                         f"named {entry.name!r} exists that this deployment cannot say was the run's: "
                         "check it by hand", entry.name)
        except ApiError as exc:
            _stop_on_run_wide(exc, self.api)
            return Entry(key, FAILED, "", exc.one_line(), entry.name)
        record_id = str(outcome.record.get("id") or "")
        if not outcome.made:
            return Entry(key, GONE, record_id, "another writer made this record; the run's create was never "
                         "applied", entry.name)
        return Entry(key, "created", record_id, "" if outcome.sure else UNSURE, entry.name, left=outcome.record)

    def _delete(self, entry: Entry, current: dict[str, Any], name: str, log: journal.Journal | None) -> Entry:
        from wfctl.api.records.recordrules import changed_fields, changed_since

        given = {key: pair[1] for key, pair in entry.changes.items()}
        if entry.left is not None:  # the whole record as the run left it: any later change counts
            left = entry.left
            differs = changed_since(left, current, self.kind)
        else:  # a journal of an older wfctl: the fields the run gave
            left = given
            differs = list(changed_fields(current, left))
        if differs and not self.force:
            return self._changed(entry, differs, left, current, name, "deletes")
        removed = {key: [current.get(key), None] for key in (given or left) if key != "id"}
        return self._apply(entry, name, removed, "deleted", log,
                           lambda: self.api.delete_record(self.kind, entry.id))

    def _recreate(self, entry: Entry, log: journal.Journal | None) -> Entry:
        """Make a record a prune deleted again, from every field it held (the journal's changes), under its
        parent: a new record, with a new id (the outcome says the old one). A delete whose answer was lost
        and whose record is still there was never applied: nothing to do. A record of its name there now
        (made since) is `changed`, left alone."""
        from wfctl.api.errors import ApiError, Conflict, NotFound
        from wfctl.api.records.resources import resource

        key, name = entry.key, entry.name
        spec = resource(self.kind)
        parent = entry.parent or None
        try:
            if entry.status != "deleted":  # the run stopped while sending it (or before): was it applied?
                try:
                    self.api.get_record(self.kind, entry.id)
                    return Entry(key, GONE, entry.id, "the prune's delete was never applied: nothing to re-create",
                                 name)
                except NotFound:
                    pass
            body = {key: pair[0] for key, pair in entry.changes.items() if pair[0] is not None}
            if spec.parent_in_body and parent and spec.parent_field:
                body[spec.parent_field] = parent
            made = {key: [None, value] for key, value in body.items()}
            resent = log is not None and log.was_sending(key)
            if not resent and self.api.find_by_name(self.kind, parent, name) is not None:
                return Entry(key, CHANGED, "", f"a {self.kind} named {name!r} exists again; not re-created", name)
            if log is None:
                return Entry(key, RECREATED, entry.id, "", name, made)
            idem = journal.idempotency_key(log.header, self.kind, parent, key)
            log.intend(key)
            outcome = self.api.create_outcome(self.kind, parent, body, idempotency_key=idem, maybe_applied=resent)
        except Conflict:
            return Entry(key, CHANGED, "", f"a {self.kind} named {name!r} exists again; not re-created", name)
        except NotFound:
            return Entry(key, FAILED, "", f"its {spec.parent or 'parent'} is gone; cannot re-create it", name)
        except ApiError as exc:
            _stop_on_run_wide(exc, self.api)
            return Entry(key, FAILED, "", exc.one_line(), name)
        new_id = str(outcome.record.get("id") or "")
        # a success: the new id beside the old one, as a change (`id: <old> -> <new>`), never an error
        return Entry(key, RECREATED, new_id, "", name, {"id": [entry.id, new_id], **made})

    def _restore(self, entry: Entry, current: dict[str, Any], name: str, log: journal.Journal | None) -> Entry:
        """Put back what the run's update replaced: each scalar field the run changed, and of each list the
        entries it added, removed or changed (everyone else's later entries stay)."""
        from wfctl.api.records.recordrules import left_as_run_left, restore_list

        pairs = {key: (restorable(key, pair[0]), pair[1]) for key, pair in entry.changes.items()}
        if all(left_as_run_left(key, new, old, current.get(key)) for key, (old, new) in pairs.items()):
            # restored already (by a killed undo, by hand, or an update the run never got to apply)
            return Entry(entry.key, UNDONE if log is not None else "restored", entry.id, "", name)
        differs = [key for key, (old, new) in pairs.items() if not left_as_run_left(key, old, new, current.get(key))]
        if differs and not self.force:
            return self._changed(entry, differs, {key: new for key, (_, new) in pairs.items()}, current, name,
                                 "overwrites")

        def restored(record: dict[str, Any]) -> dict[str, Any]:
            return {key: restore_list(key, old, new, record.get(key)) if key in LIST_FIELDS else old
                    for key, (old, new) in pairs.items()}

        shown = {key: [current.get(key), value] for key, value in restored(current).items()}
        return self._apply(entry, name, shown, "restored", log,
                           lambda: self.api.update_record(self.kind, entry.id, restored, current=current,
                                                          settle=False))

    def _apply(self, entry: Entry, name: str, changes: dict[str, list[Any]], planned: str,
               log: journal.Journal | None, send: Callable[[], object]) -> Entry:
        """Send one row's undo, its intent journalled first; a preview (no journal) says what it would do."""
        from wfctl.api.errors import ApiError, NotFound

        if log is None:
            return Entry(entry.key, planned, entry.id, "", name, changes)
        log.intend(entry.key)
        try:
            send()
        except NotFound:
            return Entry(entry.key, GONE, entry.id, "", name)
        except ApiError as exc:
            _stop_on_run_wide(exc, self.api)
            return Entry(entry.key, FAILED, entry.id, exc.one_line(), name)
        return Entry(entry.key, UNDONE, entry.id, "", name, changes)

    def _changed(self, entry: Entry, differs: list[str], left: dict[str, Any], current: dict[str, Any], name: str,
                 verb: str) -> Entry:
        """A `changed` outcome: the record no longer holds what the run `left` there in `differs`."""
        changes = {key: [left.get(key), current.get(key)] for key in differs}
        return Entry(entry.key, CHANGED, entry.id, f"changed since the run ({', '.join(differs)}); --force {verb} "
                     "it anyway", name, changes)



def _stop_on_run_wide(exc: Exception, api: Any) -> None:
    """Errors that every further row would meet too stop the undo (it resumes when run again): the run's one
    rule (wfctl.runs.engine.stop_cause: no login, no answer, or a 503 through the whole outage the SDK rides
    out), raised for the executor to stop on. A wait ended because the undo is stopping (`Interrupted`) is
    no outcome: the row's intent stays, as the executor leaves it."""
    from wfctl.api.errors import Interrupted
    from wfctl.runs.engine import stop_cause

    if isinstance(exc, Interrupted):
        raise exc
    stopped = stop_cause(exc, api)
    if stopped is not None and stopped.error is not None:
        if stopped.error is exc:
            raise exc
        raise stopped.error from exc
