"""wfctl branches get."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("get")
@takes_output(fields=True)
def get(ctx: typer.Context, branch_id: recordverbs.BranchId, output: OutputOptions = AS_CONFIGURED) -> None:
    """Show one branch.

    Prints the whole branch.

    Examples:
      $ wfctl branches get <branch-id>
      $ wfctl branches get <branch-id> -o json
    """
    recordverbs.get_record(ctx, "branch", branch_id, output=output)
