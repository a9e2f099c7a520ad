"""Workbooks (.xlsx) written by `export -f FILE.xlsx` (issue 21 §2; reading them is `wfctl.files.workbook`).

Every text column is stored as text cells formatted as text (`@`), so no spreadsheet makes an id, a phone
or a worker number into a number; booleans as booleans; amounts (`money_columns`) as numbers shown with
two decimals; the header row frozen, bold and filterable; columns as wide as their text (up to a limit). A text cell runs no formula, so `export`
writes `+44 20 7946 0000` without the CSV's protective `'` (issue 33 §4; a value of its own starting `'=`
gets one more `'`, which import removes, as in CSV); import still removes one `'` from `'+44...`, as
earlier exports wrote it.

A workbook cell holds at most 32,767 characters (Excel's limit, in UTF-16 units; XlsxWriter cuts a longer
string and says so only by its return code): a value longer than that is never written cut. The export is
refused, naming the records that hold one and suggesting CSV, which holds any length (issue 33 §2).

XlsxWriter writes (constant-memory mode, faster than openpyxl's write-only mode; bench/workbook.py export has
its figures), imported only here, and only when a workbook is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wfctl.files.errors import BulkError

#: The widest a column is made, in characters (wider text wraps in the cell's view only).
MAX_WIDTH = 60
#: The most characters (UTF-16 code units) a workbook cell holds: Excel's limit.
MAX_CELL = 32_767
#: Records named in the refusal of a workbook with values too long for a cell.
_NAMED = 5
_AMOUNT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


class SheetWriter:
    """Rows of text cells (and boolean columns) written to a workbook at `path` as they come."""

    def __init__(self, path: str, header: list[str], *, bool_columns: Iterable[str] = (),
                 money_columns: Iterable[str] = (), record: str = "row") -> None:
        try:
            import xlsxwriter
        except ImportError:  # pragma: no cover - a dependency of the package
            raise BulkError("writing a workbook needs XlsxWriter (pip install XlsxWriter)") from None
        self._book = xlsxwriter.Workbook(path, {
            "constant_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
            "strings_to_urls": False, "use_future_functions": False})
        self._sheet = self._book.add_worksheet("Sheet1")
        self._text = self._book.add_format({"num_format": "@"})
        head = self._book.add_format({"bold": True, "num_format": "@"})
        self._header = header
        self._bools = {i for i, name in enumerate(header) if name in set(bool_columns)}
        # amounts (`rates list`): numbers shown with two decimals, so a sheet sorts and sums them
        self._money = {i for i, name in enumerate(header) if name in set(money_columns)}
        self._money_format = self._book.add_format({"num_format": "0.00"})
        self._widths = [len(name) for name in header]
        self._row = 0
        self._record = record  # what a row is, for the refusal: "site"
        self._too_long: list[str] = []  # each row with a value too long for a cell, as the refusal names it
        self._too_long_rows = 0
        self._refused_row = 0
        for col, name in enumerate(header):
            self._sheet.write_string(0, col, name, head)
        self._sheet.freeze_panes(1, 0)

    def write(self, cells: list[str]) -> None:
        self._row += 1
        row, sheet, text, bools, widths = self._row, self._sheet, self._text, self._bools, self._widths
        for col, cell in enumerate(cells):
            if col in bools and cell in ("true", "false"):
                sheet.write_boolean(row, col, cell == "true")
            elif col in self._money and _is_amount(cell):
                sheet.write_number(row, col, float(cell), self._money_format)
            elif cell and ((len(cell) > MAX_CELL // 2 and _cell_length(cell) > MAX_CELL)
                           or sheet.write_string(row, col, cell, text) != 0):  # -2: XlsxWriter cut it
                self._refuse(cells, col)
            if len(cell) > widths[col]:
                widths[col] = len(cell)

    def close(self) -> None:
        """Finish the workbook (its column widths and filter) and write it; raises BulkError when a value
        was too long for a cell (the workbook is then not to be kept)."""
        last = max(len(self._header) - 1, 0)
        for col, width in enumerate(self._widths):
            # column formats of text columns too: a cell typed into an empty row stays text
            self._sheet.set_column(col, col, min(width, MAX_WIDTH) + 2,
                                   None if col in self._bools else self._money_format if col in self._money
                                   else self._text)
        self._sheet.autofilter(0, 0, self._row, last)
        self._book.close()
        if self._too_long_rows:
            count = self._too_long_rows
            named = "; ".join(self._too_long) + (f"; and {count - len(self._too_long)} more"
                                                 if count > len(self._too_long) else "")
            plural = "s" if count != 1 else ""
            raise BulkError(f"{count} {self._record}{plural} hold{'' if plural else 's'} a value longer than a "
                            f"workbook cell holds ({MAX_CELL:,} characters), which a spreadsheet would cut: "
                            f"{named}; no workbook was written: export to CSV instead (-f FILE.csv), which holds "
                            "every value whole")

    def _refuse(self, cells: list[str], col: int) -> None:
        """Note that the row of `cells` has a value too long for a cell (in column `col`)."""
        if self._refused_row == self._row:  # said once a row
            return
        self._refused_row = self._row
        self._too_long_rows += 1
        if len(self._too_long) >= _NAMED:
            return
        where = dict(zip(self._header, cells, strict=False))
        name = where.get("name") or where.get("skill") or ""
        label = f"{name!r} ({where['id']})" if name and where.get("id") else repr(name) if name else \
            f"row {self._row + 1}"
        self._too_long.append(f"{label}, {self._header[col]}: {_cell_length(cells[col]):,} characters")


def _is_amount(cell: str) -> bool:
    """A plain decimal amount (`13.50`, `-0.25`): no exponent, no inf or nan."""
    return _AMOUNT.fullmatch(cell) is not None


def _cell_length(cell: str) -> int:
    """A cell's length as a spreadsheet counts it: UTF-16 code units (an emoji is two)."""
    return len(cell.encode("utf-16-le")) // 2
