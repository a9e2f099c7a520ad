"""wfctl branches get."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import Fields, Output
from wfctl.commands.verbs import verb


@verb("get")
def get(ctx: typer.Context, branch_id: recordverbs.BranchId, output: Output = None, fields: Fields = None) -> None:
    """Show one branch.

    Prints the whole branch.

    Examples:
      $ wfctl branches get <branch-id>
      $ wfctl branches get <branch-id> -o json
    """
    recordverbs.get_record(ctx, "branch", branch_id, output=output, fields=fields)
