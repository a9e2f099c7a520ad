"""wfctl clients import."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context, resolve_ref
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.completion_cache import complete_branch_ids


@verb("import")
@takes_output()
def import_clients(
    ctx: typer.Context,
    file: bulk.File,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="Put every row in this branch: its id, the beginning of the id, or its name. A "
        "row whose branchId or branch column names another branch stops the run (--ignore-ids: a copy).", rich_help_panel=bulk.INPUT_PANEL, metavar="<branch-id>",
        autocompletion=complete_branch_ids)] = None,
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
    """Create or update clients from a workbook (.xlsx) or CSV file.

    Works like `wfctl sites import`: rows are validated and branch references (branchId, or a
    branch column by name) resolved first; a client is the same record when its branch has one of
    that name. Exit 10 when some rows failed.

    The CSV format: run `wfctl help csv`.

    Examples:
      $ wfctl clients import clients.csv --branch <branch-id>
      $ wfctl clients import clients.csv --dry-run --on-existing update
      $ wfctl clients export | wfctl clients import - --branch <other-branch-id> --ignore-ids
    """
    from wfctl.commands.bulkrun import run_import

    if branch:
        branch = resolve_ref(ctx, "branch", branch)
    return run_import(app_context(ctx), "client", file, parent_id=branch, dry_run=dry_run,
                      on_existing=on_existing, concurrency=concurrency, report=report, journal=journal,
                      delimiter=delimiter, skip_invalid=skip_invalid, output=output.format,
                      sheet=sheet, accept_spreadsheet_changes=accept_spreadsheet_changes, ignore_ids=ignore_ids)
