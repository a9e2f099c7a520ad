"""wfctl clients diff."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("diff")
@takes_output()
@bulk.takes_diff_options()
def diff_clients(
    ctx: typer.Context,
    file: bulk.DiffFile = None,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="Compare the clients of this branch: its id, the beginning of the id, or its name "
        "(default: every client).", metavar="<branch-id>", rich_help_panel=bulk.INPUT_PANEL,
        autocompletion=complete_branch_ids)] = None,
    asked: bulk.DiffAsked = bulk.DIFF_ASKED,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Compare clients with a file or another profile, sending nothing.

    Works like `wfctl sites diff`: the file is planned as `wfctl clients import FILE --on-existing
    update --dry-run` plans it; clients only in the file, only in the service (of --branch, or of every
    branch), and those that differ, field by field. Exit 0 when nothing differs, 1 when something does.

    Examples:
      $ wfctl clients diff clients.csv
      $ wfctl clients diff clients.csv --branch "Leeds Riverside" -o json
      $ wfctl clients diff --from-profile staging --branch "Leeds Riverside"
    """
    from wfctl.drivers.driftrun import ScopeArgs, diff_file

    return diff_file(app_context(ctx), "client", file, ScopeArgs(branch=branch), asked, output)
