"""Workbooks (.xlsx) in and out of the bulk commands (issue 21 §2).

Reading: a workbook is recognised by what it holds (a ZIP archive with `xl/workbook.xml`), not by its
name. One sheet (`--sheet NAME|N`, the first by default) is written to a temporary CSV file of its cells
as a person sees them, which the CSV path then reads: the same columns, checks, plan, journal and undo.

- text exactly; a boolean as `true`/`false`; a formula by its computed (cached) value;
- a number as the digits the sheet shows (`1614960000`, never `1614960000.0`; 15 significant digits as a
  spreadsheet keeps them: `4000123412341230`, never `4.00012341234123E+15`); a date as YYYY-MM-DD;
- empty rows and empty columns after the last named one are left out; a row's line in messages is the
  sheet's row number.

Writing (`export -f FILE.xlsx`): every text column stored as text cells formatted as text (`@`), so no
spreadsheet makes an id, a phone or a worker number into a number; booleans as booleans; the header row
frozen, bold and filterable; columns as wide as their text (up to a limit). Cells keep the CSV's formula
protection (a leading `'` that import removes), so the sheet saved as CSV is as safe as our CSV.

python-calamine reads (Rust: 100,000 rows of 9 columns in 0.75 s of CPU, openpyxl's read-only mode takes
10.7 s) and XlsxWriter writes (constant-memory mode: 6.5 s, openpyxl's write-only mode 8.7 s). Both are
imported only here, and this module only when a workbook is read or written.
"""

from __future__ import annotations

import csv
import datetime
import os
import tempfile
import zipfile
from array import array
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from wfctl.errors import CliError

ZIP_MAGIC = b"PK\x03\x04"
XLSX_EXTENSIONS = (".xlsx", ".xlsm")
#: The widest a column is made, in characters (wider text wraps in the cell's view only).
MAX_WIDTH = 60


def is_workbook(path: str) -> bool:
    """Whether the file at `path` is an .xlsx workbook (by its content)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != ZIP_MAGIC:
                return False
        with zipfile.ZipFile(path) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def is_workbook_name(path: str) -> bool:
    return path.lower().endswith(XLSX_EXTENSIONS)


def sheet_to_csv(path: str, display: str, sheet: str | None) -> tuple[str, array[int], str]:
    """Write the chosen sheet of the workbook at `path` to a temporary UTF-8 CSV file; returns its path,
    the sheet row of each of its physical lines (index 1 = line 1) and the sheet's name."""
    try:
        import python_calamine
    except ImportError:  # pragma: no cover - a dependency of the package
        raise CliError(f"{display}: reading a workbook needs python-calamine (pip install python-calamine)") \
            from None
    try:
        book = python_calamine.CalamineWorkbook.from_path(path)
        names = list(book.sheet_names)
        chosen = _choose_sheet(display, names, sheet)
        rows = book.get_sheet_by_name(chosen).iter_rows()
    except CliError:
        raise
    except Exception as exc:  # calamine's own errors: a damaged or encrypted workbook
        raise CliError(f"{display}: cannot read the workbook: {str(exc).splitlines()[0] if str(exc) else exc}") \
            from None
    fd, spool = tempfile.mkstemp(prefix="wfctl-sheet-", suffix=".csv")
    lines = array("l", [0])  # physical CSV line -> sheet row
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            width = -1
            for number, cells in enumerate(rows, start=1):
                texts = [_text(cell) for cell in cells]
                if width < 0:
                    if not any(texts):
                        continue  # empty rows above the header
                    while texts and texts[-1] == "":
                        texts.pop()
                    width = len(texts)
                elif not any(texts):
                    continue  # an empty row: left out
                else:
                    while len(texts) > width and texts[-1] == "":
                        texts.pop()
                writer.writerow(texts)
                breaks = 1 + sum(text.count("\n") + text.count("\r") for text in texts)
                lines.extend([number] * breaks)
    except BaseException:
        os.unlink(spool)
        raise
    return spool, lines, chosen


def _choose_sheet(display: str, names: list[str], sheet: str | None) -> str:
    if not names:
        raise CliError(f"{display}: the workbook has no sheet")
    if sheet is None or sheet == "":
        return names[0]
    if sheet in names:
        return sheet
    folded = {name.casefold(): name for name in names}
    if sheet.casefold() in folded:
        return folded[sheet.casefold()]
    if sheet.isdigit() and 1 <= int(sheet) <= len(names):
        return names[int(sheet) - 1]
    listed = ", ".join(repr(name) for name in names)
    raise CliError(f"{display}: no sheet {sheet!r}; the sheets are {listed} (--sheet NAME, or its number from 1)")


def _text(cell: Any) -> str:
    """A cell as a person sees it in the sheet."""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, bool):
        return "true" if cell else "false"
    if isinstance(cell, int):
        return str(cell)
    if isinstance(cell, float):
        return _number(cell)
    if isinstance(cell, datetime.datetime):
        return cell.isoformat(sep=" ") if (cell.hour, cell.minute, cell.second) != (0, 0, 0) \
            else cell.date().isoformat()
    if isinstance(cell, datetime.date | datetime.time):
        return cell.isoformat()
    if cell is None:
        return ""
    return str(cell)


def _number(value: float) -> str:
    """A number as a sheet shows it: its 15 significant digits, without E-notation or `.0`."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    shown = Decimal(f"{value:.15g}")
    if shown == shown.to_integral_value():
        return str(int(shown))
    return format(shown.normalize(), "f")


# -- writing ----------------------------------------------------------------------------------------

class SheetWriter:
    """Rows of text cells (and boolean columns) written to a workbook at `path` as they come."""

    def __init__(self, path: str, header: list[str], *, bool_columns: Iterable[str] = ()) -> None:
        try:
            import xlsxwriter
        except ImportError:  # pragma: no cover - a dependency of the package
            raise CliError("writing a workbook needs XlsxWriter (pip install XlsxWriter)") from None
        self._book = xlsxwriter.Workbook(path, {
            "constant_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
            "strings_to_urls": False, "use_future_functions": False})
        self._sheet = self._book.add_worksheet("Sheet1")
        self._text = self._book.add_format({"num_format": "@"})
        head = self._book.add_format({"bold": True, "num_format": "@"})
        self._header = header
        self._bools = {i for i, name in enumerate(header) if name in set(bool_columns)}
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
                                   None if col in self._bools else self._text)
        self._sheet.autofilter(0, 0, self._row, last)
        self._book.close()
