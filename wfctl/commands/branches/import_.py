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
    accept_row: bulk.AcceptRow = None,
    ignore_ids: bulk.IgnoreIds = False,
    prune: bulk.Prune = False,
    max_deletes: bulk.MaxDeletes = 10,
    max_delete_share: bulk.MaxDeleteShare = 0.25,
    allow_deletes: bulk.AllowDeletes = None,
    yes: bulk.Yes = False,
    plan_out: bulk.PlanOut = None,
    plan: bulk.PlanIn = None,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Create or update branches from a workbook (.xlsx) or CSV file.

    Works like `wfctl sites import`; a branch is the same record when the agency has one of that
    name. Exit 10 when some rows failed.

    --prune also deletes the agency's branches that no row keeps; a branch that still has clients is
    kept (the plan says so). The limits are those of `wfctl sites import`.

    The CSV format: run `wfctl help csv`.

    Examples:
      $ wfctl branches import branches.csv
      $ wfctl branches import branches.csv --dry-run --on-existing update
      $ wfctl branches import branches.csv --prune --dry-run
    """
    from wfctl.commands import prunerun
    from wfctl.commands.bulkrun import run_import

    scope = prunerun.declare_scope(app_context(ctx), "branch", prune=prune)
    pruning = prunerun.settings(scope, prune=prune, max_deletes=max_deletes, max_delete_share=max_delete_share,
                                allow_deletes=allow_deletes, yes=yes, plan_out=plan_out, plan_in=plan,
                                dry_run=dry_run)
    return run_import(app_context(ctx), "branch", file, parent_id=None, dry_run=dry_run, prune=pruning,
                      on_existing=on_existing, concurrency=concurrency, report=report, journal=journal,
                      delimiter=delimiter, skip_invalid=skip_invalid, output=output.format,
                      sheet=sheet, accept_spreadsheet_changes=accept_spreadsheet_changes, ignore_ids=ignore_ids,
                      accept_rows=accept_row or [])
