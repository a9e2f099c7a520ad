"""Workbooks (.xlsx) written by `export -f FILE.xlsx` (issue 21 §2; reading them is `wfctl.bulk.workbook`).

Every text column is stored as text cells formatted as text (`@`), so no spreadsheet makes an id, a phone
or a worker number into a number; booleans as booleans; amounts (`money_columns`) as numbers shown with
two decimals; the header row frozen, bold and filterable; columns as wide as their text (up to a limit). Cells keep the CSV's formula protection (a leading `'`
that import removes), so the sheet saved as CSV is as safe as our CSV.

XlsxWriter writes (constant-memory mode, faster than openpyxl's write-only mode; bench/workbook.py export has
its figures), imported only here, and only when a workbook is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wfctl.bulk.errors import BulkError

#: The widest a column is made, in characters (wider text wraps in the cell's view only).
MAX_WIDTH = 60
_AMOUNT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


class SheetWriter:
    """Rows of text cells (and boolean columns) written to a workbook at `path` as they come."""

    def __init__(self, path: str, header: list[str], *, bool_columns: Iterable[str] = (),
                 money_columns: Iterable[str] = ()) -> None:
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
            elif cell:
                sheet.write_string(row, col, cell, text)
            if len(cell) > widths[col]:
                widths[col] = len(cell)

    def close(self) -> None:
        """Finish the workbook (its column widths and filter) and write it."""
        last = max(len(self._header) - 1, 0)
        for col, width in enumerate(self._widths):
            # column formats of text columns too: a cell typed into an empty row stays text
            self._sheet.set_column(col, col, min(width, MAX_WIDTH) + 2,
                                   None if col in self._bools else self._money_format if col in self._money
                                   else self._text)
        self._sheet.autofilter(0, 0, self._row, last)
        self._book.close()


def _is_amount(cell: str) -> bool:
    """A plain decimal amount (`13.50`, `-0.25`): no exponent, no inf or nan."""
    return _AMOUNT.fullmatch(cell) is not None
