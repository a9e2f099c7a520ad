"""A real import's plan, made once before anything is sent (issue 31 §2): each valid row's action as the
plan decides it (planning.py), each update's whole record read once (concurrently, on the one executor:
3,000 sites took 12-16 s one after another) and its changes computed; the spreadsheet check (damage.py)
reviews those changes, and the run then executes exactly these actions, read back from a spool (memory
stays flat), without validating a row or reading a record again.

    findings = prepare(importer, progress, on_total)   # raises Stopped (Ctrl-C: nothing was sent)
    importer.run()                                      # the prepared actions (sending.py)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.bulk.engine import Executor, RunContext
from wfctl.bulk.planning import PlannedRow
from wfctl.bulk.spool import Spool

if TYPE_CHECKING:
    from wfctl.bulk.damage import Finding


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
    read the records)."""

    def __init__(self, importer: Any, spool: Spool, progress: Callable[[str], None]) -> None:
        self.importer = importer
        self.spool = spool
        from wfctl.bulk.damage import Review  # loaded only when a run plans first

        self.progress = progress
        self.review = Review()
        self.lock = threading.Lock()

    def add(self, planned: PlannedRow, status: str) -> None:
        """A row whose action needs no read: a create, a row left as it is."""
        with self.lock:
            self.spool.add_prepared(planned.row, planned.parent_id, planned.body, planned.existing, None)
            if status == "created":
                self.review.create(planned.row, str(planned.body.get("name", "")), planned.parent_id)
        self.progress(status)

    def read(self, planned: PlannedRow) -> None:
        """An update: its record read, what it changes reviewed."""
        from wfctl.api.errors import Interrupted

        importer = self.importer
        row, parent_id, body, existing = planned.row, planned.parent_id, planned.body, planned.existing
        assert existing is not None
        try:
            current: dict[str, Any] | None = importer._full(existing)
        except Interrupted:
            raise  # the run is stopping
        except Exception:  # not read now: the run reads it when it sends the row, as it did
            current = None
        status = "failed"
        changes: dict[str, list[Any]] = {}
        name = ""
        if current is not None:
            name, _, changes = importer._update_of(row, body, current)
            status = "updated" if changes else "unchanged"
        with self.lock:
            self.spool.add_prepared(row, parent_id, body, existing, current)
            if changes:
                self.review.update(row, name, changes)
        self.progress(status)


def prepare(importer: Any, progress: Callable[[str], None] | None = None,
            on_total: Callable[[int, int], None] | None = None) -> list[Finding]:
    """Plan `importer`'s run (validated, its journal open) into its spool of actions (`importer._prepared`),
    reading each update's record once; the plan's spreadsheet findings. Raises Stopped."""
    journal = importer.journal
    assert journal is not None
    spool = Spool(planned=False)
    importer._prepared = spool
    preparing = _Preparing(importer, spool, progress or (lambda status: None))
    update = importer.options.on_existing == "update"
    (on_total or (lambda total, done: None))(importer.summary.rows, 0)

    def actions() -> Iterator[ReadAction]:
        for planned in importer.plan().rows():
            if not journal.done(planned.row):
                yield ReadAction(preparing, planned.row, planned, update and planned.existing is not None)

    run = RunContext(importer.api, journal, pause=importer._backoff, note=importer._note)
    Executor(run, importer.options.concurrency, name="wfctl-plan").run(actions())  # raises Stopped
    spool.written()
    return preparing.review.findings(importer.inventory.existing)


def prepared_rows(spool: Spool, id_rows: dict[int, str]) -> Iterator[PlannedRow]:
    """The actions `prepare` planned, read back from its spool."""
    for number, parent_id, body, existing, current in spool.prepared_rows():
        yield PlannedRow(number, parent_id, body, existing, number in id_rows, current)
