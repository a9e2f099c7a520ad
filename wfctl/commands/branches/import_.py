"""wfctl branches import."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("import")
@takes_output()
def import_branches(
    ctx: typer.Context,
    file: bulk.File,
    dry_run: bulk.DryRun = False,
    on_existing: bulk.OnExisting = "skip",
    concurrency: bulk.Concurrency = 8,
    skip_invalid: bulk.SkipInvalid = False,
    report: bulk.Report = None,
    journal: bulk.Journal = None,
    delimiter: bulk.Delimiter = None,
    sheet: bulk.Sheet = None,
    accept_spreadsheet_changes: bulk.AcceptSpreadsheetChanges = False,
    ignore_ids: bulk.IgnoreIds = False,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Create or update branches from a workbook (.xlsx) or CSV file.

    Works like `wfctl sites import`; a branch is the same record when the agency has one of that
    name. Exit 10 when some rows failed.

    The CSV format: run `wfctl help csv`.

    Examples:
      $ wfctl branches import branches.csv
      $ wfctl branches import branches.csv --dry-run --on-existing update
    """
    from wfctl.commands.bulkrun import run_import

    return run_import(app_context(ctx), "branch", file, parent_id=None, dry_run=dry_run,
                      on_existing=on_existing, concurrency=concurrency, report=report, journal=journal,
                      delimiter=delimiter, skip_invalid=skip_invalid, output=output.format,
                      sheet=sheet, accept_spreadsheet_changes=accept_spreadsheet_changes, ignore_ids=ignore_ids)
