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
    accept_row: bulk.AcceptRow = None,
    ignore_ids: bulk.IgnoreIds = False,
    prune: bulk.Prune = False,
    all_branches: bulk.AllBranches = False,
    max_deletes: bulk.MaxDeletes = 10,
    max_delete_share: bulk.MaxDeleteShare = 0.25,
    allow_deletes: bulk.AllowDeletes = None,
    yes: bulk.Yes = False,
    plan_out: bulk.PlanOut = None,
    plan: bulk.PlanIn = None,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Create or update clients from a workbook (.xlsx) or CSV file.

    Works like `wfctl sites import`: rows are validated and branch references (branchId, or a
    branch column by name) resolved first; a client is the same record when its branch has one of
    that name. Exit 10 when some rows failed.

    --prune also deletes the clients of the scope (--branch, or --all-branches) that no row keeps; a
    client that still has sites is kept (the plan says so). The limits are those of `wfctl sites import`.

    The CSV format: run `wfctl help csv`.

    Examples:
      $ wfctl clients import clients.csv --branch <branch-id>
      $ wfctl clients import clients.csv --dry-run --on-existing update
      $ wfctl clients export | wfctl clients import - --branch <other-branch-id> --ignore-ids
    """
    from wfctl.bulk.reader import check_path
    from wfctl.commands import prunerun
    from wfctl.commands.bulkrun import run_import

    check_path(file)  # a file that is not there is said at once, before a reference is looked up
    if branch:
        branch = resolve_ref(ctx, "branch", branch)
    scope = prunerun.declare_scope(app_context(ctx), "client", prune=prune, branch=branch, every=all_branches,
                                   every_option="--all-branches")
    pruning = prunerun.settings(scope, prune=prune, max_deletes=max_deletes, max_delete_share=max_delete_share,
                                allow_deletes=allow_deletes, yes=yes, plan_out=plan_out, plan_in=plan,
                                dry_run=dry_run)
    return run_import(app_context(ctx), "client", file, parent_id=branch, dry_run=dry_run, prune=pruning,
                      on_existing=on_existing, concurrency=concurrency, report=report, journal=journal,
                      delimiter=delimiter, skip_invalid=skip_invalid, output=output.format,
                      sheet=sheet, accept_spreadsheet_changes=accept_spreadsheet_changes, ignore_ids=ignore_ids,
                      accept_rows=accept_row or [])
