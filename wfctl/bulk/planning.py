"""An import's planning as a value: what the service holds, read once (`Inventory`), and the plan
(`ImportPlan`): each valid row's action as the file and the inventory decide it, read back from the spool
of checked rows, and the problems of the rows that are not valid. The damage check, the plan view, the
report and the executor read the same plan; a real run plans once (prepare.py: the plan its damage check
reviews is the one it executes). A plan can be built and looked at without a server: an `Importer` given
an inventory reads nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.recordrules import natural_key
from wfctl.bulk.importtypes import Problem
from wfctl.bulk.spool import Spool


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

    def add(self, parent_id: str | None, record: dict[str, Any], *, by_id: bool = False) -> None:
        self.existing[(parent_id, natural_key(record.get("name")))] = record
        if by_id:
            self.by_id[str(record.get("id"))] = (parent_id, record)

    def match(self, parent_id: str | None, body: dict[str, Any], record_id: str | None) -> dict[str, Any] | None:
        """The record a row is: the one of its id (`record_id`), else the one of its name under its parent."""
        if record_id is not None:
            return self.by_id[record_id][1]
        return self.existing.get((parent_id, natural_key(body.get("name"))))


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
    """What planning a file returns: its rows' actions (`rows()`, read back from the spool), the problems,
    and the inventory read once."""

    inventory: Inventory
    problems: list[Problem]
    invalid: set[int]
    id_rows: dict[int, str]  # row -> the id in its id cell (rows that have one)
    spool: Spool

    def rows(self) -> Iterator[PlannedRow]:
        """Each valid row's planned action, in file order."""
        invalid, id_rows, match = self.invalid, self.id_rows, self.inventory.match
        for number, parent_id, body in self.spool.checked_rows():
            if number in invalid:
                continue
            record_id = id_rows.get(number)
            yield PlannedRow(number, parent_id, body, match(parent_id, body, record_id), record_id is not None)
