"""The `--report FILE` CSV: every input row, then `status`, `id`, `error` and `changes`; import reads a
report back as its input (those four columns ignored)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TYPE_CHECKING

from wfctl.files.csvformat import neutralise, strip_neutraliser
from wfctl.files.files import atomic_text_file

if TYPE_CHECKING:
    from wfctl.files.reader import Row

REPORT_COLUMNS = ["status", "id", "error", "changes"]


def write_report(path: str, header: list[str], outcomes: Iterable[tuple[Row, str, str, str, str]],
                 delimiter: str = ",") -> int:
    """Write the report (UTF-8 with a BOM, CRLF like any CSV) whole or not at all; returns the number of
    rows written. Raises FileError naming the file when it cannot be written (check_writable beforehand).

    Every cell is written as export writes it: one that a spreadsheet would run as a formula gets a `'`
    (the service's `id` and `error` text too), and import reads the report's rows back unchanged."""
    count = 0
    # a file with columns of a report (a report fed back, `list -o csv`'s id) keeps them, filled anew:
    # one `id` column, never two (issue 33 §4)
    own = [name for name in header if name not in REPORT_COLUMNS]
    with atomic_text_file(path, bom=True) as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow([*map(_cell, own), *REPORT_COLUMNS])
        for row, status, record_id, error, changes in outcomes:
            record_id = record_id or strip_neutraliser(row.cells.get("id", ""))
            writer.writerow([*(_cell(row.cells.get(name, "")) for name in own),
                             status, neutralise(record_id), neutralise(error), neutralise(changes)])
            count += 1
    return count


def _cell(text: str) -> str:
    # The file's own cell, neutralised once: `=x` -> `'=x`, and `'=x` stays as it is.
    return neutralise(strip_neutraliser(text))
