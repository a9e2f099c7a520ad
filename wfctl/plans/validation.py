"""Passes 1-3 of a bulk import, the planner: the file's columns, its rows' parents (looked up, and what
each holds read, many at once: lookup.py), then every row decoded and checked (the fast check, or the write model for
a row it defers), its id matched to a record, its name checked against the file's other rows; valid rows
go to the spool. `Planner(...).plan()` returns the plan as a value (importplan.py); the planner is done then.

    plan = Planner(api, source, options, inventory, journal).plan()   # given a read inventory: no request
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from typing import Any

from wfctl.api.records.recordrules import natural_key
from wfctl.files import csvformat
from wfctl.files.reader import CsvInput, Row
from wfctl.files.spool import Spool
from wfctl.plans.fastcheck import RowCheck, create_body
from wfctl.plans.importplan import ImportPlan, Inventory, Rename
from wfctl.plans.importtypes import Options, Problem
from wfctl.plans.kinds import KINDS, Kind
from wfctl.plans.lookup import parent_ref_of, read_inventory
from wfctl.plans.newrows import NewRows
from wfctl.runs.journal import Journal
from wfctl.views import planview as plan

MAX_LISTED_PROBLEMS = 50
MAX_LISTED_COLUMNS = 10
#: Columns whose cells decode to something other than their text (lists, booleans).
_DECODED_COLUMNS = csvformat.LIST_COLUMNS | csvformat.BOOL_COLUMNS
BITMAP_BYTES = 1 << 20


class Planner:
    """One planning of a file: what it finds as it reads the file, until `plan()` returns it as a value.
    `inventory`: what the service holds, read by this planning unless it is `read` already; `journal`:
    the run's, when it has one (a row an earlier run did is not refused by --on-existing fail)."""

    def __init__(self, api: Any, source: CsvInput, options: Options, inventory: Inventory,
                 journal: Journal | None = None) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind: Kind = KINDS[options.kind]
        self.inventory = inventory
        self.journal = journal
        self.problems: list[Problem] = []  # the first MAX_LISTED_PROBLEMS, and the first row of each cause after
        self._causes: set[tuple[str, str]] = set()  # (column, message) of the problems listed
        self._id_rows: dict[int, str] = {}
        self._row_of_id: dict[str, int] = {}
        self._invalid_rows: set[int] = set()
        self._duplicates: dict[int, str] = {}  # row -> message, for the second and later of a name
        self._duplicate_errors: dict[int, str] = {}  # row -> its error, as the report says it
        self._creates = bytearray(1)  # row -> 1: valid, and its parent has no record of its name
        self._rows = 0
        self._positions = {name: i for i, name in enumerate(source.header)}  # column -> cell position
        asked = {csvformat.header_key(name) for name in options.ignore_columns}
        #: a person's own columns, --ignore-columns (`_columns_right` refuses one the format knows)
        self._ignored = frozenset(column for column in source.header if csvformat.header_key(column) in asked)
        self._skip_columns = (csvformat.READ_ONLY_COLUMNS | {self.kind.parent_id_column, self.kind.parent_name_column}
                              | self._ignored)
        self._spool: Spool | None = None
        self._errors: Spool | None = None
        self._renames: list[Rename] = []  # rows that carry an id and rename their record
        self._kept: set[str] = set()  # the ids of the records the valid rows match (by id, else by name)
        #: a plan's creates whose name a spreadsheet may have made (damage.py): row -> (name, parent id)
        self._suspect_names: dict[int, tuple[str, str | None]] = {}
        self._cut_creates: dict[int, tuple[str, list[tuple[str, str]]]] = {}  # a new row's cells a program cut
        self._gone_rows: set[int] = set()  # a diff's rows whose id the service no longer has: only in the file

    def plan(self) -> ImportPlan:
        """Passes 1-3: the plan of the file. A plan whose columns are not right (`checked` False) holds
        only their problems. Raises TemporaryFull, and what reading the inventory raises."""
        if not self._columns_right():
            return ImportPlan(self.inventory, self.problems, set(), {}, None, checked=False,
                              unchecked_errors=self._unchecked_errors)
        try:
            if not self.inventory.read:  # else read by an earlier planning of the same file and options
                read_inventory(self.api, self.source, self.options, self.inventory, by_id=self._matches_ids)
            self._validate_rows()
        except BaseException:
            for spool in (self._spool, self._errors):
                if spool is not None:
                    spool.close()
            raise
        return ImportPlan(self.inventory, self.problems, self._invalid_rows, self._id_rows, self._spool,
                          self._creates, self._rows, self._errors, self._duplicate_errors, scope=self.options.scope,
                          renames=self._renames, kept_ids=self._kept, suspect_names=self._suspect_names,
                          gone_rows=self._gone_rows, cut_creates=self._cut_creates)

    def _unchecked_errors(self) -> Iterator[tuple[int, str]]:
        """(row, error) of each row as its check says it, for the report of a file its columns stopped:
        nothing of the service was read, so a row's parent is not known either."""
        for row in self.source.rows():
            problems = self._check(row)[0]
            if problems:
                yield row.number, _error_of(problems)

    def _columns_right(self) -> bool:
        known = csvformat.known_columns(self.options.kind)
        unknown = [column for column in self.source.header if column not in known and column not in self._ignored]
        written = getattr(self.source, "written", lambda column: column)
        for column in sorted(self._ignored & known):
            self._problem(0, 1, written(column), "--ignore-columns names a column of the format; leave the column "
                          "out of the file instead (a column left out leaves its field as it is)")
        for column in unknown[:MAX_LISTED_COLUMNS]:
            self._problem(0, 1, written(column), csvformat.unknown_column_message(self.options.kind, column))
        if len(unknown) > MAX_LISTED_COLUMNS:
            self._problem(0, 1, "", f"... and {len(unknown) - MAX_LISTED_COLUMNS} more unknown columns")
        # issue 33 §4: no column known, the file says why where it can (the sheet read, a separator guessed)
        if (unknown and len(unknown) == len(self.source.header)
                and (hint := getattr(self.source, "columns_hint", lambda: "")())):
            self._problem(0, 1, "", hint)
        if "name" not in self.source.header:
            self._problem(0, 1, "name", "missing column: every row needs a name")
        kind = self.kind
        if kind.parent and not self.options.parent_id and not (
                kind.parent_id_column in self.source.header or kind.parent_name_column in self.source.header):
            flag = kind.parent_option
            self._problem(0, 1, kind.parent_id_column or "",
                          f"no {kind.parent_id_column} or {kind.parent_name_column} column: add one, or give {flag}")
        return not self.problems

    def _parent_ref(self, row: Row) -> str | None:
        """'id:<x>' / 'name:<x>' for the row's parent, or None (no parent, or not given)."""
        kind = self.kind
        if not kind.parent:
            return None
        if self.options.parent_id:
            return "id:" + self.options.parent_id
        return parent_ref_of(row.cells.get(kind.parent_id_column or "", ""),
                             row.cells.get(kind.parent_name_column or "", ""))

    def _foreign_parent(self, row: Row) -> Problem | None:
        """The problem of a row whose parent cell names another parent than --client/--branch (both
        names), or None."""
        kind = self.kind
        id_column, name_column = kind.parent_id_column or "", kind.parent_name_column or ""
        ref = parent_ref_of(row.cells.get(id_column, ""), row.cells.get(name_column, ""))
        if ref is None or ref not in self.inventory.foreign:
            return None
        found = self.inventory.parents.get(ref)
        if ref.startswith("id:"):
            column, named = id_column, repr(self.inventory.parent_names[found]) if found else repr(ref[3:])
        else:
            column, named = name_column, repr(csvformat.strip_neutraliser(row.cells.get(name_column, "")).strip())
        if not found:
            named += f" ({self.inventory.parent_errors[ref]})"
        flag = kind.parent_option
        given = self.options.parent_id or ""
        target = repr(self.inventory.parent_names.get(given, given))
        return Problem(row.number, row.line, column,
                       f"names {kind.parent} {named}, not {flag} {target} ({self._copy_or_move('', target)})")

    def _copy_or_move(self, record_id: str, target: str = "") -> str:
        """What to do with a row whose record is not where the row goes: a copy (a new record, the
        original left), or a move (the copy, then the original deleted)."""
        kind = self.kind
        if target:
            copy = f"--ignore-ids copies the row to {target} as a new {kind.name}"
        else:
            copy = f"clear the id cell, or give --ignore-ids, to create the row as a new {kind.name}"
        if not kind.parent:
            return copy
        return (f"{copy}; the original stays: to move it, delete it after the copy (--prune, "
                f"or `wfctl {kind.plural} delete {record_id or '<id>'}`)")

    def _validate_rows(self) -> None:
        # Duplicate names in the file, in little memory: each valid row's name digest (8 bytes a row)
        # and a fixed 1 MiB bitmap of them; a bit that is already set makes its digest a candidate (a
        # duplicate, or one of ~1% false alarms at 100,000 rows), which the digests then decide.
        seen = bytearray(BITMAP_BYTES)
        candidates: set[int] = set()
        digests = array("Q", [0])  # row number -> name digest; 0: an invalid row (rows count from 1)
        creates = self._creates = bytearray(1)
        spool = self._spool = Spool(planned=self.options.dry_run)  # read by run()
        self._errors = Spool(planned=False)
        header = self.source.header
        existing = self.inventory.existing
        kept = self._kept
        by_id = self.inventory.by_id
        fast = self._row_check()
        dry_run = self.options.dry_run
        if dry_run:  # its review reads the creates marked here (damage.py: loaded only when a plan is shown)
            from wfctl.files.damage import suspect_name
        parent_column = self.kind.parent_id_column
        templates: dict[tuple[str, ...], str] = {}
        has_parent = bool(self.kind.parent)
        one_parent = not has_parent or bool(self.options.parent_id)  # the same for every row
        every_parent = self._parent_of([]) if one_parent else None
        has_id = self._matches_ids
        scope = self.options.scope
        checks = NewRows(self.kind, header, workbook=bool(getattr(self.source, "workbook", False)))
        maybe_total, formulas = checks.maybe_total, checks.formulas if checks.typed_formulas else None
        for number, line, cells, extra in self.source.records():  # numbered 1, 2, 3, ...: one entry each
            body = None
            parent = every_parent if one_parent else self._parent_of(cells)
            if maybe_total(cells) and (found := checks.totals(
                    cells, lambda label: not (has_id and self._cell(cells, "id").strip())  # noqa: B023
                    and existing.get((parent, natural_key(label))) is None)):  # noqa: B023
                self._not_a_record(number, line, cells, extra, found)
                digests.append(0)
                creates.append(0)
                continue
            foreign = bool(self.inventory.foreign) and parent_ref_of(  # `_check` says which parent it names
                self._cell(cells, self.kind.parent_id_column), self._cell(cells, self.kind.parent_name_column)
            ) in self.inventory.foreign
            if fast is not None and not extra and not foreign and (parent is not None or not has_parent) \
                    and (scope is None or scope.holds(parent)):
                body = fast.check(cells, parent)
            fields_json = ""  # a plan's create: the JSON text of its changes
            if body is None:
                row = Row(number, line, dict(zip(header, cells, strict=True)), extra)
                problems, parent, body = self._check(row)
                if problems:
                    self._invalid(row, problems, problems)
                    digests.append(0)
                    creates.append(0)
                    continue
                key = self._name_digest(row, parent)
                name = natural_key(body.get("name"))
            else:  # the name is the cell's, neutraliser and spaces taken off: the key is the same
                name = natural_key(body["name"])
                key = _digest(f"{parent}\x00{name}")
                if dry_run:
                    fields = tuple(body)
                    template = templates.get(fields)
                    if template is None:
                        template = templates[fields] = plan.fields_template(f for f in fields if f != parent_column)
                    fields_json = template % tuple(fast.values_json)  # type: ignore[union-attr]
            record_id = csvformat.strip_neutraliser(self._cell(cells, "id")).strip() if has_id else ""
            matched = None  # the record of the row's name, when it carries no id
            gone = bool(record_id) and self._gone(record_id)
            if gone:  # a diff: the service no longer has the row's record (deleted, or re-made with a new id)
                self._gone_rows.add(number)
                record_id = ""
            if record_id:
                problem = self._match_id(number, record_id, parent)
                if problem:
                    row = Row(number, line, dict(zip(header, cells, strict=False)), extra)
                    # the report says what the row's check says (of its name, under --on-existing fail)
                    self._invalid(row, [Problem(number, line, "id", problem)], self._check(row)[0])
                    digests.append(0)
                    creates.append(0)
                    continue
                if formulas and (found := formulas(cells, body, by_id[record_id][1])):
                    self._not_a_record(number, line, cells, extra, found)
                    digests.append(0)
                    creates.append(0)
                    continue
                old = by_id[record_id][1].get("name")
                if old != body.get("name") and natural_key(old) != name:  # most rows keep their name as it is
                    self._renames.append(Rename(number, record_id, parent, str(old or ""), str(body.get("name", ""))))
                kept.add(record_id)
            elif formulas and (found := formulas(cells, body, existing.get((parent, name)))):
                self._not_a_record(number, line, cells, extra, found)
                digests.append(0)
                creates.append(0)
                continue
            elif not gone and (matched := existing.get((parent, name))) is not None:
                kept.add(str(matched.get("id")))
            # The checked body, so the send pass does not decode and validate every row again; a plan's
            # before it, apart, what its create is written from.
            created = not record_id and matched is None
            if created and (cut := checks.cut(cells)):
                self._cut_creates[number] = (str(body.get("name", "")), cut)
            if dry_run:
                shown_name = str(body.get("name", ""))
                spool.add_planned(number, parent, shown_name, fields_json, body)
                if created and suspect_name(shown_name):  # for the plan's review, without a second walk
                    self._suspect_names[number] = (shown_name, parent)
            else:
                spool.add(number, parent, body)
            creates.append(created)
            digests.append(key)
            bit = key % (BITMAP_BYTES * 8)
            if seen[bit >> 3] & (1 << (bit & 7)):
                candidates.add(key)
            else:
                seen[bit >> 3] |= 1 << (bit & 7)
        spool.written()
        self._errors.written()
        self._rows = len(digests) - 1
        del seen
        if candidates:
            self._check_duplicates(candidates, digests)

    @property
    def _matches_ids(self) -> bool:
        """Whether rows that carry an id are matched by it (the file has an id column, and no --ignore-ids)."""
        return "id" in self._positions and not self.options.ignore_ids

    def _gone(self, record_id: str) -> bool:
        """A diff (`Options.gone_ids_are_new`): whether the service holds no record of this id at all (a
        colleague deleted it, or an undo re-made it with a new id): the row is then only in the file."""
        return self.options.gone_ids_are_new and record_id not in self.inventory.by_id

    def _match_id(self, number: int, record_id: str, parent: str | None) -> str:
        """Match a row that carries an id to its record: '' when it is one of the parent's records not
        named by an earlier row, else the row's error."""
        found = self.inventory.by_id.get(record_id)
        kind = self.kind
        if found is None or (kind.parent and found[0] != parent):
            where = f" of {kind.parent} {parent}" if kind.parent and parent else ""
            if found is not None:  # another parent's record, read as its parent is in the file too
                where += f": it is {kind.parent} {self.inventory.parent_names.get(found[0] or '', found[0])!r}'s"
            return f"no {kind.name} with id {record_id!r}{where} ({self._copy_or_move(record_id)})"
        earlier = self._row_of_id.setdefault(record_id, number)
        if earlier != number:
            return (f"id {record_id!r} is already row {earlier} (a copied row? clear the id cell of this one "
                    f"to create it as a new {kind.name})")
        if self.options.on_existing == "fail":
            return f"{found[1].get('name')!r} already exists (--on-existing fail)"
        self._id_rows[number] = record_id
        return ""

    def _row_check(self) -> RowCheck | None:
        """The fast check of this file's rows, or None where every row needs `_check` (on-existing fail
        asks about each row's name and its journal; a parent that is not there makes every row invalid)."""
        kind = self.kind
        if self.options.on_existing == "fail":
            return None
        if self.options.parent_id and self.inventory.parents.get("id:" + self.options.parent_id) is None:
            return None
        parent_column = kind.parent_id_column if kind.parent_in_body else None
        return RowCheck(self.options.kind, self.source.header, self._skip_columns, parent_column,
                        with_json=self.options.dry_run)

    def _parent_of(self, cells: list[str]) -> str | None:
        """The id of the row's parent (None: the kind has none, or it is not known: `_check` says why)."""
        if not self.kind.parent:
            return None
        if self.options.parent_id:
            return self.inventory.parents.get("id:" + self.options.parent_id)
        ref = parent_ref_of(self._cell(cells, self.kind.parent_id_column),
                            self._cell(cells, self.kind.parent_name_column))
        return self.inventory.parents.get(ref) if ref else None

    def _cell(self, cells: list[str], column: str | None) -> str:
        i = self._positions.get(column or "")
        return "" if i is None else cells[i]

    def _check_duplicates(self, candidates: set[int], digests: array[int]) -> None:
        first: dict[int, int] = {}
        later: dict[int, int] = {}  # row -> the earlier row of its name
        for number, key in enumerate(digests):
            if key and key in candidates:
                if key in first:
                    later[number] = first[key]
                else:
                    first[key] = number
        if not later:
            return  # false alarms of the bitmap only: no second pass over the file
        for row in self.source.rows():
            if row.number in later:
                name = csvformat.strip_neutraliser(row.cells.get("name", "")).strip()
                message = (f"{name!r} is already row {later[row.number]} "
                           f"(names are unique per {self.kind.parent or 'agency'})")
                self._duplicates[row.number] = message
                problem = Problem(row.number, row.line, "name", message)
                self._invalid(row, [problem], self._check(row)[0])

    def _name_digest(self, row: Row, parent: str | None) -> int:
        name = csvformat.strip_neutraliser(row.cells.get("name", ""))
        return _digest(f"{parent}\x00{natural_key(name)}")

    def _check(self, row: Row) -> tuple[list[Problem], str | None, dict[str, Any]]:
        """(problems, parent id, JSON body) of one row: decoding, field rules, parent, on-existing=fail."""
        problems: list[Problem] = []
        if row.extra:
            problems.append(Problem(row.number, row.line, "", f"{row.extra} more cell(s) than the header has columns"))
        data: dict[str, Any] = {}
        skip = self._skip_columns
        packed = _DECODED_COLUMNS
        for column, text in row.cells.items():
            if column in skip:
                continue
            if column not in packed and not text.startswith(("'", "#")):  # "#": an error value?
                data[column] = text  # a plain text cell is itself (decode_cell would return it)
                continue
            if column == "rates" and (every := csvformat.rates_cell_problems(text)):  # all at once, not the first
                problems.extend(Problem(row.number, row.line, column, message) for message in every)
                continue
            try:
                value = csvformat.decode_cell(column, text)
            except csvformat.CellError as exc:
                problems.extend(Problem(row.number, row.line, column, message) for message in exc.problems)
                continue
            if value is not None:
                data[column] = value
        parent_id = None
        if self.kind.parent:
            ref = self._parent_ref(row)
            column = self.kind.parent_id_column or ""
            if ref is None:
                problems.append(Problem(row.number, row.line, column,
                                        f"empty: which {self.kind.parent} does this row belong to?"))
            elif self.inventory.parents.get(ref) is None:
                if ref.startswith("name:"):
                    column = self.kind.parent_name_column or column
                problems.append(Problem(row.number, row.line, column,
                                        self.inventory.parent_errors.get(ref, f"unknown {self.kind.parent}")))
            else:
                parent_id = self.inventory.parents[ref]
            if self.inventory.foreign and (foreign := self._foreign_parent(row)) is not None:
                problems.append(foreign)
            scope = self.options.scope
            if parent_id is not None and scope is not None and not scope.holds(parent_id):
                named = self.inventory.parent_names.get(parent_id, parent_id)
                problems.append(Problem(row.number, row.line, column,
                                        f"{self.kind.parent} {named!r} is not in the scope ({scope.label})"))
            if self.kind.parent_in_body:
                data[self.kind.parent_id_column or ""] = parent_id or "?"
        body = create_body(self.options.kind, data)  # the common row, without pydantic (same answer)
        if body is None:
            body = self._model_check(row, data, problems)
        if (not problems and self.options.on_existing == "fail"
                and (parent_id, natural_key(body.get("name"))) in self.inventory.existing
                and not (self.journal and (self.journal.done(row.number) or self.journal.was_sending(row.number)))):
            problems.append(Problem(row.number, row.line, "name",
                                    f"{body.get('name')!r} already exists (--on-existing fail)"))
        if not problems and row.number in self._duplicates:
            problems.append(Problem(row.number, row.line, "name", self._duplicates[row.number]))
        if problems:  # the columns as the file names them (`Rates`, not `rates`)
            written = getattr(self.source, "written", None)
            if written is not None:
                for problem in problems:
                    if problem.column:
                        problem.column = written(problem.column)
        return problems, parent_id, body

    def _model_check(self, row: Row, data: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
        """The write model's body of `data`, or {} with its problems added, worded per column."""
        from pydantic import ValidationError

        from wfctl.api.records.models import (
            WRITE_MODELS,  # pydantic: only for a row the fast check defers
            field_errors,
        )

        try:
            return WRITE_MODELS[(self.options.kind, "create")].model_validate(data).body()
        except ValidationError as exc:
            for location, messages in field_errors(exc).items():
                column = location.split("[", 1)[0].split(".", 1)[0]
                detail = location[len(column):].lstrip(".")
                for message in messages:
                    problems.append(Problem(row.number, row.line, column,
                                            f"{detail}: {message}" if detail else message))
        return {}

    def _invalid(self, row: Row, problems: list[Problem], reported: list[Problem]) -> None:
        """An invalid row: its `problems` listed (the first ones), `reported` its error in the report."""
        if row.number not in self._invalid_rows:
            self._invalid_rows.add(row.number)
            if reported:
                error = _error_of(reported)
                if row.number in self._duplicates:
                    self._duplicate_errors[row.number] = error
                elif self._errors is not None:
                    self._errors.add_error(row.number, error)
        for problem in problems:
            # past the first ones, a cause not yet listed still is (up to as many causes): a cause is said once
            # with its rows, so 50 rows of one cause do not hide the one row of another
            cause = (problem.column, problem.message)
            if len(self.problems) < MAX_LISTED_PROBLEMS or (
                    cause not in self._causes and len(self._causes) < MAX_LISTED_PROBLEMS):
                self.problems.append(problem)
                self._causes.add(cause)

    def _not_a_record(self, number: int, line: int, cells: list[str], extra: int,
                      found: list[tuple[str, str]]) -> None:
        """An invalid row of `found` ((column, message): a totals row, a typed formula: newrows.py)."""
        row = Row(number, line, dict(zip(self.source.header, cells, strict=True)), extra)
        written = getattr(self.source, "written", lambda column: column)
        problems = [Problem(number, line, written(column), message) for column, message in found]
        self._invalid(row, problems, problems)

    def _problem(self, row: int, line: int, column: str, message: str) -> None:
        self.problems.append(Problem(row, line, column, message))


def _error_of(problems: list[Problem]) -> str:
    """A row's problems as its error in the report."""
    return "; ".join(f"{p.column}: {p.message}" if p.column else p.message for p in problems)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
