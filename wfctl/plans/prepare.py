"""An import's plan made ready to run (issue 31 §2): each valid row's action as the plan decides it
(importplan.py), each update's whole record read once (concurrently, on the one executor: 3,000 sites took
12-16 s one after another) and its outcome computed (what it changes, or that it is left as it is); the
spreadsheet check (damage.py) reviews those changes, and a real run then executes exactly these actions,
read back from a spool (memory stays flat), without validating a row or reading a record again. A dry run
prepares the same way, the rows that exist only (its creates are in the plan's spool already), and shows
their outcomes (`Prepared.outcomes`) as its plan.

    prepared = prepare(plan, api, journal, options, rows=n, pause=pause)  # raises Stopped (Ctrl-C: nothing sent)
    prepared.findings                                # what the spreadsheet check found in its changes
    RowWriter(...).send_all(plan, prepared, run)     # exactly these actions (sending.py)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from wfctl.api.net.retry import Pause
from wfctl.files.spool import Spool
from wfctl.plans.importplan import ImportPlan, PlannedRow, Prepared, update_of, whole_record
from wfctl.plans.importtypes import Options
from wfctl.plans.kinds import KINDS
from wfctl.runs.engine import Executor, RunContext
from wfctl.runs.journal import Journal


@dataclass
class ReadAction:
    """A row of the plan, as an action of the executor: an update reads its record and says what it
    changes, a create or a row left as it is is spooled as it is (so that one worker keeps file order).
    Its key is the row's number; nothing is journalled (nothing is sent)."""

    preparing: _Preparing
    key: int
    planned: PlannedRow
    update: bool  # an update of `planned.existing` (on_existing update), else a create or a skip

    def apply(self, run: RunContext) -> None:
        if self.update:
            self.preparing.read(self.planned)
        else:
            self.preparing.add(self.planned, "created" if self.planned.existing is None else "skipped")


class _Preparing:
    """One planning pass: the spool it writes, the review it tells, under one lock (the executor's workers
    read the records): what it reads a record with is given, `api` after `pause`."""

    def __init__(self, api: Any, kind: str, pause: Pause, spool: Spool, progress: Callable[[str], None]) -> None:
        self.api = api
        self.kind = KINDS[kind]
        self.pause = pause
        self.spool = spool
        from wfctl.files.damage import Review  # loaded only when a run plans first

        self.progress = progress
        self.review = Review()
        self.lock = threading.Lock()

    def add(self, planned: PlannedRow, status: str) -> None:
        """A row whose action needs no read: a create, a row left as it is."""
        existing = planned.existing
        outcome = ((status, "", "", str(planned.body.get("name", "")), None) if existing is None else
                   (status, str(existing.get("id", "")), "", str(existing.get("name", "")), None))
        with self.lock:
            self.spool.add_prepared(planned.row, planned.parent_id, planned.body, existing, None, outcome)
            if status == "created":
                self.review.create(planned.row, str(planned.body.get("name", "")), planned.parent_id)
        self.progress(status)

    def read(self, planned: PlannedRow) -> None:
        """An update: its record read, what it changes reviewed."""
        from wfctl.api.errors import ApiError, Interrupted
        from wfctl.api.net.redact import redact_text

        row, parent_id, body, existing = planned.row, planned.parent_id, planned.body, planned.existing
        assert existing is not None
        error = ""
        try:
            current: dict[str, Any] | None = whole_record(self.api, self.kind, self.pause, existing)
        except Interrupted:
            raise  # the run is stopping
        except ApiError as exc:  # not read now: a run reads it when it sends the row; a plan says why
            current, error = None, exc.one_line()
        except Exception as exc:
            current, error = None, redact_text(f"{exc.__class__.__name__}: {exc}")
        changes: dict[str, list[Any]] = {}
        if current is not None:
            name, _, changes = update_of(self.kind.name, body, current, by_id=planned.by_id)
            status = "updated" if changes else "unchanged"
            outcome = (status, str(existing.get("id", "")), "", name, changes or None)
        else:
            name, status = "", "failed"
            outcome = (status, "", error, str(body.get("name", "")), None)
        with self.lock:
            self.spool.add_prepared(row, parent_id, body, existing, current, outcome)
            if changes:
                self.review.update(row, name, changes)
        self.progress(status)


def prepare(plan: ImportPlan, api: Any, journal: Journal, options: Options, *, rows: int, pause: Pause,
            note: Callable[[str], None] | None = None, progress: Callable[[str], None] | None = None,
            on_total: Callable[[int, int], None] | None = None, creates: bool = True) -> Prepared:
    """`plan`'s actions as a real run executes them, each update's record read once (concurrently), the
    rows `journal` says are done left out; with their spreadsheet findings. `rows`: the file's, for the
    progress line; `creates` False (a dry run): the rows that exist only, and no pass at all when every
    row is a create. Raises Stopped (Ctrl-C: nothing was sent), TemporaryFull."""
    spool = Spool(planned=False)
    try:
        preparing = _Preparing(api, options.kind, pause, spool, progress or (lambda status: None))
        update = options.on_existing == "update"
        (on_total or (lambda total, done: None))(rows, 0)

        def actions() -> Iterator[ReadAction]:
            if not creates and not plan.has_others():
                return
            for planned in plan.rows():
                if not creates and planned.existing is None:
                    continue
                if not journal.done(planned.row):
                    yield ReadAction(preparing, planned.row, planned, update and planned.existing is not None)

        run = RunContext(api, journal, pause=pause, note=note)
        Executor(run, options.concurrency, name="wfctl-plan").run(actions())  # raises Stopped
        spool.written()
    except BaseException:
        spool.close()
        raise
    preparing.review.cut({row: cut for row, cut in plan.cut_creates.items() if not journal.done(row)})
    return Prepared(spool, plan.id_rows, preparing.review.findings(plan.inventory.existing))
