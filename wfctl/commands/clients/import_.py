"""wfctl clients import."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context, resolve_ref
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("import")
@takes_output()
@bulk.takes_prune_limits()
@bulk.takes_import_run()
def import_clients(
    ctx: typer.Context,
    file: bulk.File,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="Put every row in this branch: its id, the beginning of the id, or its name. A "
        "row whose branchId or branch column names another branch stops the run (--ignore-ids: a copy).", rich_help_panel=bulk.INPUT_PANEL, metavar="<branch-id>",
        autocompletion=complete_branch_ids)] = None,
    run: bulk.ImportRun = bulk.IMPORT_RUN,
    all_branches: bulk.AllBranches = False,
    limits: bulk.PruneLimits = bulk.PRUNE_LIMITS,
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
    from wfctl.commands.importverb import import_file
    from wfctl.drivers import prunerun
    from wfctl.files.reader import check_path

    check_path(file)  # a file that is not there is said at once, before a reference is looked up
    if branch:
        branch = resolve_ref(ctx, "branch", branch)
    scope = prunerun.declare_scope(app_context(ctx), "client", prune=run.prune, branch=branch, every=all_branches,
                                   every_option="--all-branches")
    return import_file(app_context(ctx), "client", file, parent_id=branch, scope=scope, run=run, limits=limits,
                       output=output)
