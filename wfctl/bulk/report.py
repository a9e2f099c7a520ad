"""The `--report FILE` CSV: every input row as it was, then `status`, `id` and `error`; and the summary."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wfctl.bulk.importer import Summary
    from wfctl.bulk.reader import Row

REPORT_COLUMNS = ["status", "id", "error"]


def write_report(path: str, header: list[str], outcomes: Iterable[tuple[Row, str, str, str]],
                 delimiter: str = ",") -> int:
    """Write the report (UTF-8, CRLF like any CSV); returns the number of rows written."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow([*header, *REPORT_COLUMNS])
        for row, status, record_id, error in outcomes:
            writer.writerow([*(row.cells.get(name, "") for name in header), status, record_id, error])
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
