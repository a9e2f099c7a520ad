"""wfctl branches import."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("import")
@takes_output()
@bulk.takes_prune_limits()
@bulk.takes_import_run()
def import_branches(
    ctx: typer.Context,
    file: bulk.File,
    run: bulk.ImportRun = bulk.IMPORT_RUN,
    limits: bulk.PruneLimits = bulk.PRUNE_LIMITS,
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
    from wfctl.commands.importverb import import_file
    from wfctl.drivers import prunerun

    scope = prunerun.declare_scope(app_context(ctx), "branch", prune=run.prune)
    return import_file(app_context(ctx), "branch", file, parent_id=None, scope=scope, run=run, limits=limits,
                       output=output)
