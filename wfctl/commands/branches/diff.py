"""wfctl branches diff."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("diff")
@takes_output()
@bulk.takes_diff_options()
def diff_branches(
    ctx: typer.Context,
    file: bulk.DiffFile = None,
    asked: bulk.DiffAsked = bulk.DIFF_ASKED,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Compare branches with a file or another profile, sending nothing.

    Works like `wfctl sites diff`: the file is planned as `wfctl branches import FILE --on-existing
    update --dry-run` plans it; branches only in the file, only in the service, and those that differ,
    field by field. Exit 0 when nothing differs, 1 when something does.

    Examples:
      $ wfctl branches diff branches.csv
      $ wfctl branches diff branches.csv --markdown
      $ wfctl branches diff --from-profile staging --map email:@staging.example=@example.com
    """
    from wfctl.drivers.driftrun import ScopeArgs, diff_file

    return diff_file(app_context(ctx), "branch", file, ScopeArgs(), asked, output)
