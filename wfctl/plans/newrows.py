"""Rows a person adds to a file that are not records (issue 43, "Medium and low"), found while planning:

- a totals row a spreadsheet's user adds under the data (`Total` in the name column, its address the count
  `=COUNTA(C2:C9)&" sites"` shows, `8 sites`; or `Total` in the id column): a row of its own, refused
  (--skip-invalid leaves it out), never planned as `create Total` nor read as the id of a record to delete;
- a cell of a new row as long as a workbook cell holds (32,767 characters): cut by the program that saved
  the file (a longer one is cut so, damage.CUT); an update's cut is told by the value it replaces, a
  create has none, so its length says it. A finding of the plan's review, sent as it is only with
  --accept-spreadsheet-changes (or --accept-row), as an update's;
- a formula typed into a workbook's text cell: the cell is text (an export formats its text columns as
  text, `@`), so the spreadsheet keeps `=B3&" Quay St"` as those characters and never runs it. Such a
  cell is refused where it would change the record (a new record, or another value than the stored one):
  a value that already starts with `=` comes back from an export as it is, and changes nothing.

    rows = NewRows(KINDS[kind], header, workbook=source.workbook)
    if rows.maybe_total(cells):                                 # one look at two cells: most rows, False
        problems = rows.totals(cells, created=lambda name: ...)  # [(column, message)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wfctl.files import csvformat
from wfctl.plans.kinds import Kind
from wfctl.text.safetext import one_line

#: The fewest characters a cell cut at a workbook cell's most holds (all outside the BMP: two UTF-16 units each).
CUT_AT = 32_767 // 2 - 2
#: What a totals row's label says (English, German, French spreadsheets), compared folded, a `:` after it.
TOTAL_WORDS = frozenset({"total", "totals", "grand total", "subtotal", "sub-total", "sub total", "sum", "summe",
                         "gesamt", "insgesamt", "total général", "sous-total"})


def is_total(text: str) -> bool:
    """Whether a cell reads as a totals row's label (`Total`, `TOTAL:`, `Grand Total`)."""
    return len(text) < 40 and text.strip().rstrip(":").strip().casefold() in TOTAL_WORDS


class NewRows:
    """The checks of one file's rows, by cell position (`header`: the file's columns)."""

    def __init__(self, kind: Kind, header: list[str], *, workbook: bool) -> None:
        self.kind = kind
        positions = {column: i for i, column in enumerate(header)}
        self._header = header
        self._name = positions.get("name")
        self._id = positions.get("id")
        decoded = csvformat.LIST_COLUMNS | csvformat.BOOL_COLUMNS | csvformat.READ_ONLY_COLUMNS
        # a workbook's text columns: where a typed formula stays text (a CSV's `=x` is the file's own text)
        self._texts = [(column, i) for column, i in positions.items()
                       if workbook and column not in decoded and column in csvformat.known_columns(kind.name)]
        self.typed_formulas = bool(self._texts)  # a CSV file's rows are not looked at for formulas

    def maybe_total(self, cells: list[str]) -> bool:
        """Whether the row may be a totals row (`totals` says): one look at its name and id cells."""
        return (self._name is not None and is_total(cells[self._name])) or (
            self._id is not None and is_total(cells[self._id]))

    def totals(self, cells: list[str], created: Callable[[str], bool]) -> list[tuple[str, str]]:
        """(column, message) when the row is a totals row: `Total` in its id cell, or in its name cell
        where `created(name)` (no record of that name: a record named `Total` is a record)."""
        for column, position in (("id", self._id), ("name", self._name)):
            if position is None or not is_total(cell := cells[position]):
                continue
            label = cell.strip()
            if column == "name" and not created(label):
                continue
            others = [c.strip() for i, c in enumerate(cells) if i != position and c.strip()]
            shown = f" (its other cells: {', '.join(repr(one_line(c)[:40]) for c in others[:3])})" if others else ""
            kind = self.kind
            return [(column, f"{label!r} makes this a totals row, not a {kind.name}{shown}: remove the row from "
                     f"the file (--skip-invalid imports the other rows); a {kind.name} really named {label!r}: "
                     f"wfctl {kind.plural} create")]
        return []

    def cut(self, cells: list[str]) -> list[tuple[str, str]]:
        """(column, cell) of each cell of a new row that is as long as a cut cell (damage.cut_cell)."""
        if len("".join(cells)) < CUT_AT:  # most rows: the row's whole text is shorter than one cut cell
            return []
        from wfctl.files.damage import cut_cell

        return [(column, cell) for column, cell in zip(self._header, cells, strict=False) if cut_cell(cell)]

    def formulas(self, cells: list[str], body: dict[str, Any], record: dict[str, Any] | None) -> list[tuple[str, str]]:
        """(column, message) of each workbook text cell of the row holding a typed formula that would change
        `record` (None: the row creates one)."""
        found: list[tuple[str, str]] = []
        for column, position in self._texts:
            cell = cells[position]
            if cell[:1] != "=":  # `'=x`: the text `=x`, as an export of that value writes it
                continue
            value = body.get(column, cell)
            if record is not None and (column not in record or record.get(column) == value):
                continue  # the stored value (or one a listing does not show: not known to change)
            found.append((column, f"a formula typed into a text cell, {csvformat.shorten(cell)}: the workbook "
                          "keeps it as its text and never runs it; type the value itself (a text that starts "
                          "with '=' as it is: '= in a CSV file)"))
        return found
