"""Which of a plan's spreadsheet findings (damage.py) a person meant (issue 33 §3): the rows given to
`--accept-row`, and in a workbook every change of a cell typed as text (a string, or number format `@`):
a spreadsheet converts what is typed into a General cell (`0427` becomes the number 427), never what is
typed into a text cell, so `427` there is what the person typed (but not a line end, an escape or a cut,
which a program does to any cell: damage.ANY_CELL). A CSV keeps no types: there only
`--accept-row` (or `--accept-spreadsheet-changes`, the whole file) lets such a change through.

    findings = trusted(findings, source, accepted_rows)   # those that still stop the run
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def trusted(findings: list[Any], source: Any, accepted: Iterable[int] = ()) -> list[Any]:
    """`findings` (each with `row` and `field`) but those of the `accepted` rows and, when `source` is a
    workbook, those of cells typed as text."""
    accepted = set(accepted)
    left = [finding for finding in findings if finding.row not in accepted]
    if not left or not getattr(source, "book", None):
        return left
    from wfctl.files.damage import ANY_CELL

    typed = typed_cells(source, {(finding.row, finding.field) for finding in left if finding.reason not in ANY_CELL})
    return [finding for finding in left if (finding.row, finding.field) not in typed]


def typed_cells(source: Any, wanted: set[tuple[int, str]]) -> set[tuple[int, str]]:
    """Of `wanted` ((data row, column) of a workbook's rows), the cells typed as text in the sheet."""
    from wfctl.files.workbook import typed_text

    positions = {column: i for i, column in enumerate(source.header)}
    rows = {row for row, _ in wanted}
    sheet_row: dict[int, int] = {}
    for number, line, _, _ in source.records():  # data row -> the sheet's row, for the rows asked of
        if number in rows:
            sheet_row[number] = line
    cells = {(sheet_row[row], positions[column]): (row, column) for row, column in wanted
             if row in sheet_row and column in positions}
    if not cells:
        return set()
    return {cells[at] for at in typed_text(source.book, source.sheet, set(cells))}
