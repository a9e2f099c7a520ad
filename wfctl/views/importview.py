"""What an import's plan (importplan.py) and journal say, row by row: the plan view and a run's changes
(`changes`: each row's entry, a plan's creates put together from its spool), and the report (`outcomes`:
every row of the file with its status, id, error and changes). Nothing is validated or read again: an
invalid row's error is the plan's, every other row's outcome the journal's."""

from __future__ import annotations

import dataclasses
import functools
import marshal
from collections.abc import Iterator
from typing import Any

from wfctl.files.reader import CsvInput, Row
from wfctl.plans.importplan import ImportPlan
from wfctl.plans.importtypes import DRY_STATUSES, UNSENT
from wfctl.plans.kinds import KINDS
from wfctl.runs.journal import Entry, Journal
from wfctl.views.planview import Created


def changes(plan: ImportPlan | None, journal: Journal | None, kind: str, *, dry_run: bool) -> Iterator[Entry | Created]:
    """The journal's entries in row order (each row's latest outcome, with its changes); a plan's with its
    creates, which are not journalled (`planned_entries`)."""
    if journal is None:
        return iter(())
    if dry_run and plan is not None and plan.spool is not None:
        return planned_entries(plan, journal, kind)
    return journal.iter_entries()


def planned_entries(plan: ImportPlan, journal: Journal, kind: str) -> Iterator[Entry | Created]:
    """A plan's entries in row order: its creates from the spool (they are not journaled: most of the
    cost of planning a large file), the rows that exist from the journal; each with the parent it is
    under (the inventory's `parent_names` names it)."""
    assert plan.spool is not None
    logged = journal.iter_entries()
    following = next(logged, None)
    given = functools.partial(_given, KINDS[kind].parent_id_column)
    for (number, parent, name, fields_json), body in plan.spool.planned_rows():
        # the file's rows in order (an action on a record, a prune's delete, comes after every row)
        while following is not None and isinstance(following.key, int) and following.row < number:
            yield following
            following = next(logged, None)
        if following is not None and following.row == number:  # an update, or a row left as it is
            yield dataclasses.replace(following, parent=following.parent or parent or "")
            following = next(logged, None)
            continue
        if not plan.creates_row(number):
            continue
        yield Created(number, name, fields_json, functools.partial(given, body), parent or "")
    while following is not None:
        yield following
        following = next(logged, None)


def _given(parent_column: str | None, body: bytes) -> dict[str, list[Any]]:
    """A create's changes: each field of its body but the parent, as [old, new]."""
    return {k: [None, v] for k, v in marshal.loads(body).items() if k != parent_column}


def outcomes(source: CsvInput, plan: ImportPlan | None, journal: Journal | None, kind: str, *,
             dry_run: bool) -> Iterator[tuple[Row, str, str, str, str]]:
    """Every input row with (status, id, error, changes), in file order, for the report; changes as one
    line (`address: 1 High St -> 2 High St; + banned worker W-2`)."""
    from wfctl.text.changes import compact

    for row, status, entry in row_outcomes(source, plan, journal, dry_run=dry_run):
        if entry is None:
            yield row, status, "", "", ""
            continue
        pairs = {name: (pair[0], pair[1]) for name, pair in entry.changes.items()}
        yield row, status, entry.id, entry.error, compact(kind, pairs)


def row_outcomes(source: CsvInput, plan: ImportPlan | None, journal: Journal | None, *,
                 dry_run: bool) -> Iterator[tuple[Row, str, Entry | None]]:
    """Each row of the file, its status and its entry: an invalid row's error from the plan, every other
    row's outcome from the journal (a plan's create from the plan)."""
    errors = plan.errors() if plan is not None else iter(())
    error = next(errors, None)
    for row in source.rows():
        while error is not None and error[0] < row.number:
            error = next(errors, None)
        if error is not None and error[0] == row.number:
            yield row, "invalid", Entry(row.number, "invalid", error=error[1])
            error = next(errors, None)
            continue
        entry = journal.entry(row.number) if journal else None
        if entry is None and dry_run and plan is not None and plan.creates_row(row.number):
            entry = Entry(row.number, "created")
        if entry is None or entry.status == UNSENT:
            yield row, "not sent", None
            continue
        if entry.status == "sending":  # sent when the run stopped: running it again finds out
            yield row, "no answer", entry
            continue
        status = DRY_STATUSES.get(entry.status, entry.status) if dry_run else entry.status
        yield row, status, entry
