"""The actions of `wfctl sites edit --client`: each site the person changed is one action of the one executor
(wfctl.runs.engine), journalled under its action (the record's update: its intent before, its outcome after)
as an `updated` entry whose changes are {field: [old, new]}, so `wfctl imports undo <run>` puts it back. Each is
merged once more into the site as it is when sent (wfctl.api.records.merge): a change made since the person's
last look is kept; one that now overlaps theirs is skipped (said), unless the edit is forced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wfctl.runs.engine import RunContext
from wfctl.runs.journalentry import UPDATE, ActionKey


@dataclass
class EditOutcome:
    record_id: str
    name: str
    status: str
    error: str = ""


@dataclass
class EditRecord:
    """Write `mine` (the writable fields as the person left them, from `base`) to record `record_id`."""

    kind: str
    record_id: str
    name: str
    fields: tuple[str, ...]
    base: dict[str, Any]
    mine: dict[str, Any]
    force: bool = False

    @property
    def key(self) -> ActionKey:
        """Its journal key: the record's update."""
        return ActionKey(self.kind, self.record_id, UPDATE)

    def apply(self, run: RunContext) -> None:
        from wfctl.api.errors import ApiError, NotFound
        from wfctl.api.records.merge import changed, three_way
        from wfctl.api.records.recordrules import restorable

        log = run.journal
        assert log is not None
        try:
            current = run.api.get_record(self.kind, self.record_id)
            merge = three_way(self.fields, self.base, self.mine, current)
            if merge.conflicts and not self.force:
                said = ", ".join(c.field + (f" {c.key}" if c.key else "") for c in merge.conflicts)
                self._finish(run, "skipped", f"changed on the service since you saved ({said}): skipped; "
                                             "edit it again")
                return
            target = self.mine if self.force else merge.merged
            names = changed(self.fields, current, target)
            if not names:
                self._finish(run, "unchanged")
                return
            log.intend(self.key, {name: [current.get(name), target.get(name)] for name in names},
                       record_id=self.record_id)

            def edit(record: dict[str, Any]) -> dict[str, Any]:
                now = self.mine if self.force else three_way(self.fields, self.base, self.mine, record).merged
                return {name: restorable(name, now.get(name)) for name in changed(self.fields, record, now)}

            back = run.api.update_record(self.kind, self.record_id, edit, current=current, settle=False)
            self._finish(run, "updated", "", {name: [current.get(name), back.get(name)] for name in names})
        except NotFound:
            self._finish(run, "skipped", "deleted since you opened it: skipped")
        except ApiError as exc:
            if not run.stop_for(exc):  # the run's one rule (unreachable, outlasted, no login): stop, resumable
                self._finish(run, "failed", exc.one_line())

    def _finish(self, run: RunContext, status: str, error: str = "",
                changes: dict[str, list[Any]] | None = None) -> None:
        assert run.journal is not None
        run.journal.record(self.key, status, self.record_id, error, self.name, changes)
        run.report(EditOutcome(self.record_id, self.name, status, error))
