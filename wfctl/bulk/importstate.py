"""What one bulk import knows while it runs: the shared state that its row validation (validation.py)
fills and its send pass (sending.py) reads; what the service holds is its `inventory` (planning.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from wfctl import csvformat
from wfctl.api.retry import Pause
from wfctl.bulk.importtypes import Options, Summary
from wfctl.bulk.journal import Journal
from wfctl.bulk.kinds import KINDS, Kind
from wfctl.bulk.planning import ImportPlan, Inventory
from wfctl.bulk.reader import CsvInput
from wfctl.bulk.spool import Spool


class ImportState:
    def __init__(self, api: Any, source: CsvInput, options: Options,
                 progress: Callable[[str], None] | None = None,
                 on_total: Callable[[int, int], None] | None = None,
                 note: Callable[[str], None] | None = None, inventory: Inventory | None = None) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind: Kind = KINDS[options.kind]
        self.summary = Summary(dry_run=options.dry_run)
        self._progress = progress or (lambda status: None)
        self._on_total = on_total or (lambda total, done: None)
        self._note = note or (lambda text: None)
        #: What the service holds, read once by planning (given: read by an earlier planning of the same file).
        self.inventory = inventory if inventory is not None else Inventory()
        self._id_rows: dict[int, str] = {}
        self._names_lock = threading.Lock()
        self._names_read: dict[str | None, float] = {}  # parent -> when its last names read started
        self._row_of_id: dict[str, int] = {}
        self._invalid_rows: set[int] = set()
        self._duplicates: dict[int, str] = {}  # row -> message, for the second and later of a name
        self._creates = bytearray()  # row -> 1: valid, and its parent has no record of its name
        self._positions = {name: i for i, name in enumerate(source.header)}  # column -> cell position
        self._skip_columns = csvformat.READ_ONLY_COLUMNS | {self.kind.parent_id_column, self.kind.parent_name_column}
        self._backoff = Pause()  # the run's one pause (wfctl.bulk.engine.RunContext), every worker's
        self._lock = threading.Lock()
        self.journal: Journal | None = None
        self._lock_held: Any = None
        self._spool: Spool | None = None
        self._prepared: Spool | None = None  # a real run's planned actions (prepare.py), when it planned first

    def plan(self) -> ImportPlan:
        """The plan that validation made: each valid row's action, the problems, the inventory read once."""
        assert self._spool is not None, "validate() first"
        return ImportPlan(self.inventory, self.summary.problems, self._invalid_rows, self._id_rows, self._spool)
