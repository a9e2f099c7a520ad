"""Drift (issue 32 §1): what differs between a file and the service within a scope, without writing.

It is the import's own plan, never a second comparison: the file is planned exactly as `import --dry-run
--on-existing update` plans it (the planner, validation.py; each update's record read once and its changes
computed, readyplan.py), with the scope's inventory (`Options.scope`: every parent in scope and the records
under it), and `ImportPlan.absent()` names the records in scope that no row keeps. So a diff can never
disagree with what the dry run would do:

- a row the plan creates is *only in the file* (its fields as the plan shows a create's);
- a row the plan updates is *changed*, field by field as the plan shows them ([service value, file value];
  lists by entry: a rate by its skill, a department by its name, a banned worker by its id);
- a row the plan leaves as it is is the same;
- a record of the scope that no row keeps is *only in the service*.

    found = drift(api, source, options, ignore_fields=("phone",))     # raises ValidationStopped, Stopped
    found.records, found.counts(), found.differs
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from wfctl.plans.importtypes import Options

#: Each kind of difference, in the order a diff lists them, and what it says for a person.
DIFFERENCES = {"onlyInFile": "only in the file", "changed": "changed", "onlyInService": "only in the service"}


@dataclass
class DriftRecord:
    """One record that differs: `difference` one of DIFFERENCES; `row` the file's (0: only in the service),
    `id` the service's ("" only in the file), `parent` its parent's id ("": a kind without one);
    `changes`: field -> [service value, file value] (a record only in the file: [None, value])."""

    difference: str
    name: str
    id: str = ""
    row: int = 0
    parent: str = ""
    changes: dict[str, list[Any]] = field(default_factory=dict)
    #: field -> why its change looks like a spreadsheet's doing (damage.py), as the import plan marks it:
    #: a real import of the file stops on it unless --accept-spreadsheet-changes
    spreadsheet: dict[str, str] = field(default_factory=dict)


@dataclass
class Drift:
    """A diff's answer: the records that differ (file order, then those only in the service by parent
    and name), how many are the same, the rows whose record could not be read (row, name, error), and
    each parent's name by id."""

    kind: str
    records: list[DriftRecord] = field(default_factory=list)
    same: int = 0
    failed: list[tuple[int, str, str]] = field(default_factory=list)
    parent_names: dict[str, str] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()
    #: what the two sides are called (`only in the file`); a diff between profiles names them
    #: (`only in profile staging`), and its rows (of a file no one sees) are not said
    sides: tuple[str, str] = ("the file", "the service")
    rows_said: bool = True

    def label(self, difference: str) -> str:
        """`only in the file`, `changed`, `only in the service` (or each side as `sides` names it)."""
        if difference == "onlyInFile":
            return f"only in {self.sides[0]}"
        return f"only in {self.sides[1]}" if difference == "onlyInService" else DIFFERENCES[difference]

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(DIFFERENCES, 0)
        for record in self.records:
            counts[record.difference] += 1
        return {**counts, "same": self.same}

    @property
    def differs(self) -> bool:
        return bool(self.records)


def check_ignored(kind: str, names: Iterable[str]) -> tuple[str, ...]:
    """The fields of `--ignore-fields`, each a writable field of `kind` (else ValueError naming them)."""
    from wfctl.api.records.resources import resource

    writable = resource(kind).writable
    wanted = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
    unknown = [name for name in wanted if name not in writable]
    if unknown:
        raise ValueError(f"--ignore-fields: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a "
                         f"field of a {kind}; the fields: {', '.join(writable)}")
    return wanted


def drift(api: Any, source: Any, options: Options, *, ignore_fields: tuple[str, ...] = (),
          progress: Callable[[str], None] | None = None, on_total: Callable[[int, int], None] | None = None,
          note: Callable[[str], None] | None = None) -> Drift:
    """The drift of `source` (a CsvInput) from the service in `options`' scope, as the dry run of
    `import --on-existing update` plans it. Raises ValidationStopped (invalid rows, wrong columns: the
    importer's summary says which), Stopped (Ctrl-C, an outage), RunLocked never (a plan takes no lock)."""
    from wfctl.runs.importer import Importer

    options = dataclasses.replace(options, on_existing="update", dry_run=True, skip_invalid=False,
                                  gone_ids_are_new=True)
    importer = Importer(api, source, options, progress=progress, on_total=on_total, note=note)
    try:
        importer.open_journal()
        importer.validate()
        importer.run()
        found = _collect(importer, ignore_fields)
    finally:
        importer.release()
    return found


def _collect(importer: Any, ignore_fields: tuple[str, ...]) -> Drift:
    from wfctl.files.damage import ANY_CELL, explain

    kind = importer.options.kind
    found = Drift(kind, parent_names=dict(importer.parent_names), ignored=ignore_fields)
    ignored = set(ignore_fields)
    parent_column = importer.kind.parent_id_column
    for entry in importer.changes():
        status = entry.status
        if status == "failed":
            found.failed.append((entry.row, entry.name, entry.error))
            continue
        changes = {name: [pair[0], pair[1]] for name, pair in entry.changes.items()
                   if name not in ignored and name != parent_column}
        if status == "created":
            found.records.append(DriftRecord("onlyInFile", entry.name, "", entry.row, entry.parent or "", changes))
        elif status == "updated" and changes:
            marks = {name: reason for name, (old, new) in changes.items()
                     if (reason := explain(old, new)) is not None}
            found.records.append(DriftRecord("changed", entry.name, entry.id, entry.row, entry.parent or "",
                                             changes, marks))
        else:  # unchanged, or changed only in ignored fields
            found.same += 1
    for parent_id, record in importer.plan().absent():  # by parent in the scope's order, then by name
        found.records.append(DriftRecord("onlyInService", str(record.get("name", "")), str(record.get("id", "")),
                                         0, parent_id or ""))
    marked = {(r.row, name) for r in found.records for name, reason in r.spreadsheet.items() if reason not in ANY_CELL}
    if marked and getattr(importer.source, "book", None):  # a workbook's cell typed as text: what was typed
        from wfctl.files.typedtext import typed_cells

        for row, name in typed_cells(importer.source, marked):
            for record in found.records:
                if record.row == row:
                    record.spreadsheet.pop(name, None)
    return found
