"""An import's planning as a value: what the service holds, read once (`Inventory`), and the plan
(`ImportPlan`): each valid row's action as the file and the inventory decide it, read back from the spool
of checked rows, the problems of the rows that are not valid and each one's error, and which rows a plan
creates. The planner (validation.py) returns it; the damage check, the plan view and the report
(importview.py) and the executor (sending.py) read it. A dry run, and a real run over existing records,
make it ready once (readyplan.py: each update's record read once, its outcome computed) into `Prepared`:
the actions a run executes, the outcomes a dry run shows. A plan can be built and looked at without a
server: a planner given an inventory reads nothing.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wfctl.api.records.recordrules import changed_fields, natural_key
from wfctl.files.spool import Spool
from wfctl.plans.importtypes import Problem

if TYPE_CHECKING:
    from wfctl.plans.scope import Scope


@dataclass
class Inventory:
    """The records an import may reach, read once: its parents and the records under them."""

    parents: dict[str, str | None] = field(default_factory=dict)  # reference -> id (None: unresolved)
    parent_errors: dict[str, str] = field(default_factory=dict)  # reference -> why it is unresolved
    parent_names: dict[str, str] = field(default_factory=dict)  # parent id -> its name, every parent looked up
    foreign: set[str] = field(default_factory=set)  # references to another parent than --client/--branch
    existing: dict[tuple[str | None, str], dict[str, Any]] = field(default_factory=dict)  # (parent, key) -> record
    # A row that carries an id is that record (matched by id, never by name): the records read, by id.
    by_id: dict[str, tuple[str | None, dict[str, Any]]] = field(default_factory=dict)
    read: bool = False  # whether it holds what the service held (else planning reads it)
    #: every record read, with its parent, in the order read (`existing` keeps one per name: a deployment
    #: without unique names, G12, may hold two)
    records: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)
    #: --skip-misplaced: (parent listed under, record) of each record a listing held under a parent not its own
    misplaced: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)

    def add(self, parent_id: str | None, record: dict[str, Any], *, by_id: bool = False) -> None:
        self.records.append((parent_id, record))
        self.existing[(parent_id, natural_key(record.get("name")))] = record
        if by_id:
            self.by_id[str(record.get("id"))] = (parent_id, record)

    def match(self, parent_id: str | None, body: dict[str, Any], record_id: str | None) -> dict[str, Any] | None:
        """The record a row is: the one of its id (`record_id`), else the one of its name under its parent."""
        if record_id is not None:
            return self.by_id[record_id][1]
        return self.existing.get((parent_id, natural_key(body.get("name"))))


@dataclass(frozen=True)
class Rename:
    """A row that renames its record (matched by its id): from `old` to `new`, under `parent`."""

    row: int
    record_id: str
    parent: str | None
    old: str
    new: str

    def as_json(self) -> dict[str, Any]:
        return {"row": self.row, "id": self.record_id, "from": self.old, "to": self.new}


@dataclass
class PlannedRow:
    """A valid row's action as planning decides it, before a run's journal says what an earlier run did:
    an update of `existing`, else a create under `parent_id`."""

    row: int
    parent_id: str | None
    body: dict[str, Any]
    existing: dict[str, Any] | None
    by_id: bool  # matched by its id cell, not its name
    current: dict[str, Any] | None = None  # an update's whole record, as a real run's planning read it

    @property
    def action(self) -> str:
        return "create" if self.existing is None else "update"


@dataclass
class ImportPlan:
    """What planning a file returns: its rows' actions (`rows()`, read back from the spool), the problems
    (the first ones listed; each invalid row's error for the report, `errors()`), the inventory read
    once, and the facts of each row that the plan view, the report and the executor read.

    A plan stopped by its columns (`checked` False) holds no rows: nothing of the file was checked (the
    report checks each row when it asks, `unchecked_errors`)."""

    inventory: Inventory
    problems: list[Problem]
    invalid: set[int]
    id_rows: dict[int, str]  # row -> the id in its id cell (rows that have one)
    spool: Spool | None
    #: row -> 1: valid, carries no id, and its parent holds no record of its name (index 0 unused)
    creates: bytearray = field(default_factory=lambda: bytearray(1))
    rows_read: int = 0  # data rows of the file (blank rows not counted)
    errors_spool: Spool | None = None  # (row, error) of the rows found invalid as the file was read
    duplicate_errors: dict[int, str] = field(default_factory=dict)  # row -> error: a name already in the file
    checked: bool = True  # whether the rows were checked (False: the columns stopped it)
    #: A plan its columns stopped: each row's error as its check says it, made when the report asks.
    unchecked_errors: Callable[[], Iterator[tuple[int, str]]] | None = None
    scope: Scope | None = None  # the records the file is the truth for (--prune, diff): `absent()`
    #: the rows that carry an id and give their record another name (renames.py finds the cycles)
    renames: list[Rename] = field(default_factory=list)
    #: the ids of the records the valid rows match, as the planner found them (`not_in_file`)
    kept_ids: set[str] = field(default_factory=set)
    #: a dry run's creates whose name a spreadsheet may have made (`damage.suspect_name`), as planning
    #: found them: row -> (name, parent id)
    suspect_names: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    #: the creates with a cell as long as one a program cut (newrows.py): row -> (name, [(column, cell)])
    cut_creates: dict[int, tuple[str, list[tuple[str, str]]]] = field(default_factory=dict)
    #: a diff's rows whose id the service no longer has: created, never matched by their name
    gone_rows: set[int] = field(default_factory=set)

    def rows(self) -> Iterator[PlannedRow]:
        """Each valid row's planned action, in file order."""
        if self.spool is None:
            return
        invalid, id_rows, match, gone = self.invalid, self.id_rows, self.inventory.match, self.gone_rows
        for number, parent_id, body in self.spool.checked_rows():
            if number in invalid:
                continue
            record_id = id_rows.get(number)
            existing = None if number in gone else match(parent_id, body, record_id)
            yield PlannedRow(number, parent_id, body, existing, record_id is not None)

    def kept(self) -> set[str]:
        """The ids of the records the file's valid rows keep: the record each one matches (by its id when
        it carries one, never another of its name; else by its name under its parent)."""
        return {str(planned.existing.get("id")) for planned in self.rows() if planned.existing is not None}

    def absent(self) -> Iterator[tuple[str | None, dict[str, Any]]]:
        """(parent id, record summary) of each record in scope that no row of the file keeps (what a prune
        deletes), by parent in the scope's order, then by name in its natural order (then id); nothing
        without a scope. Reads the rows' spool: ask before a run drops it."""
        scope = self.scope
        if scope is None:
            return
        kept = self.kept()
        order: dict[str | None, int] = {parent: i for i, parent in enumerate(scope.parent_ids or ())}
        absent = [(parent, record) for parent, record in self.inventory.records
                  if scope.holds(parent) and str(record.get("id")) not in kept]
        absent.sort(key=lambda item: (order.get(item[0], len(order)), natural_key(item[1].get("name")),
                                      str(item[1].get("id"))))
        yield from absent

    def not_in_file(self) -> int:
        """How many records the file could reach that no valid row matches: those of the scope (--prune,
        diff), else of the parents the file's rows name (what the planning read); a row deleted from the
        file leaves its record so, unless --prune deletes it."""
        scope, kept = self.scope, self.kept_ids
        return sum(1 for parent, record in self.inventory.records
                   if (scope is None or scope.holds(parent)) and str(record.get("id")) not in kept)

    def creates_row(self, row: int) -> bool:
        """Whether the plan creates `row` (valid, and nothing of its name exists)."""
        return row < len(self.creates) and self.creates[row] == 1 and row not in self.invalid

    def suspect_creates(self) -> Iterator[tuple[int, str, str | None]]:
        """(row, name, parent id) of each create of a dry run whose name a spreadsheet may have made."""
        for row, (name, parent) in self.suspect_names.items():
            if self.creates_row(row):
                yield row, name, parent

    def create_count(self) -> int:
        creates, invalid = self.creates, self.invalid
        return sum(1 for number in range(1, len(creates)) if creates[number] and number not in invalid)

    def create_bodies(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(row, body) of each row the plan creates, in file order, without matching a record (the check
        of new records' cells, createdamage.py)."""
        if self.spool is None:
            return
        creates, invalid = self.creates, self.invalid
        for number, _, body in self.spool.checked_rows():
            if number < len(creates) and creates[number] and number not in invalid:
                yield number, body

    def has_others(self) -> bool:
        """Whether any valid row is not a create (an update, or a row left as it is)."""
        creates, invalid = self.creates, self.invalid
        return any(not creates[number] and number not in invalid for number in range(1, len(creates)))

    def errors(self) -> Iterator[tuple[int, str]]:
        """(row, error) of each invalid row that has one to report, in row order: the problems of its
        check, joined (`address: too long; phone: not a number`)."""
        if self.unchecked_errors is not None:
            return self.unchecked_errors()
        spooled: Iterator[tuple[int, str]] = iter(())
        if self.errors_spool is not None:
            spooled = self.errors_spool.errors()
        return heapq.merge(spooled, sorted(self.duplicate_errors.items()))

    def drop_actions(self) -> None:
        """The actions are done (a run's): their spool goes; the errors stay for the report."""
        if self.spool is not None:
            self.spool.close()
            self.spool = None

    def close(self) -> None:
        for spool in (self.spool, self.errors_spool):
            if spool is not None:
                spool.close()
        self.spool = self.errors_spool = None


@dataclass
class Prepared:
    """A plan made ready to run (readyplan.py): each row's action in file order, an update's whole record
    as it was read once (`current`), read back from `spool`; and its spreadsheet findings."""

    spool: Spool
    id_rows: dict[int, str]
    findings: list[Any] = field(default_factory=list)

    def rows(self) -> Iterator[PlannedRow]:
        id_rows = self.id_rows
        for number, parent_id, body, existing, current, _ in self.spool.prepared_rows():
            yield PlannedRow(number, parent_id, body, existing, number in id_rows, current)

    def outcomes(self) -> Iterator[tuple[int, str, str, str, str, dict[str, list[Any]] | None]]:
        """Each row's outcome as planned, in file order: (row, status, record id, error, name, changes);
        status `updated` (its changes), `unchanged`, `skipped` (it exists), `failed` (its record could not
        be read: the error), or `created`."""
        for number, _, _, _, _, (status, record_id, error, name, changes) in self.spool.prepared_rows():
            yield number, status, record_id, error, name, changes

    def close(self) -> None:
        self.spool.close()


def whole_record(api: Any, kind: Any, pause: Any, summary: dict[str, Any]) -> dict[str, Any]:
    """The whole record of a list item (`summary`), read after the run's pause unless list items are
    whole (`kind.list_is_full`)."""
    if kind.list_is_full:
        return summary
    pause.wait()
    return api.get_record(kind.name, str(summary["id"]))


def update_of(kind: str, body: dict[str, Any], current: dict[str, Any], *, by_id: bool
              ) -> tuple[str, dict[str, Any], dict[str, list[Any]]]:
    """An update of the record `current` by a row's `body` (`by_id`: the row named it by its id): the
    record's name, the body to send, and the changes (field -> [old, new])."""
    from wfctl.api.records.recordrules import update_body

    name = str(current.get("name", body.get("name", "")))
    if "name" in body and not by_id and natural_key(body["name"]) == natural_key(name):
        # found by its name (G12), which is not a rename: the service's spelling stays
        body = {k: v for k, v in body.items() if k != "name"}
    changes = {k: [old, new] for k, (old, new) in changed_fields(current, update_body(kind, current, body)).items()}
    return name, body, changes
