"""The `--report FILE` CSV: every input row, then `status`, `id` and `error`; and the summary."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TYPE_CHECKING

from wfctl.bulk.csvformat import neutralise, strip_neutraliser
from wfctl.bulk.files import atomic_text_file

if TYPE_CHECKING:
    from wfctl.bulk.importer import Summary
    from wfctl.bulk.reader import Row

REPORT_COLUMNS = ["status", "id", "error"]


def write_report(path: str, header: list[str], outcomes: Iterable[tuple[Row, str, str, str]],
                 delimiter: str = ",") -> int:
    """Write the report (UTF-8 with a BOM, CRLF like any CSV) whole or not at all; returns the number of
    rows written. Raises CliError naming the file when it cannot be written (check_writable beforehand).

    Every cell is written as export writes it: one that a spreadsheet would run as a formula gets a `'`
    (the service's `id` and `error` text too), and import reads the report's rows back unchanged."""
    count = 0
    with atomic_text_file(path, bom=True) as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow([*map(_cell, header), *REPORT_COLUMNS])
        for row, status, record_id, error in outcomes:
            writer.writerow([*(_cell(row.cells.get(name, "")) for name in header),
                             status, neutralise(record_id), neutralise(error)])
            count += 1
    return count


def summary_rows(summary: Summary) -> list[tuple[str, int]]:
    """(label, count) for the end-of-run table; a dry run speaks of what would happen."""
    counts = summary.counts
    if summary.dry_run:
        return [("to create", counts["created"]), ("to update", counts["updated"]),
                ("unchanged", counts["unchanged"] + counts["skipped"]), ("invalid", counts["invalid"])]
    rows = [("created", counts["created"]), ("updated", counts["updated"]),
            ("unchanged", counts["unchanged"]), ("skipped (exist)", counts["skipped"]),
            ("failed", counts["failed"]), ("invalid", counts["invalid"])]
    return rows


def _cell(text: str) -> str:
    # The file's own cell, neutralised once: `=x` -> `'=x`, and `'=x` stays as it is.
    return neutralise(strip_neutraliser(text))
