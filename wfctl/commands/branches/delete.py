"""wfctl branches delete."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun, Yes
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("delete")
@takes_output()
def delete(ctx: typer.Context, branch_id: recordverbs.BranchId, yes: Yes = False, dry_run: DryRun = False,
           output: OutputOptions = AS_CONFIGURED) -> None:
    """Delete a branch.

    Asks for confirmation on a terminal; elsewhere --yes is required. A branch that still has clients is not deleted (exit 5).

    Examples:
      $ wfctl branches delete <branch-id>
      $ wfctl branches delete <branch-id> --yes
    """
    recordverbs.delete_record(ctx, "branch", branch_id, yes=yes, dry_run=dry_run, output=output)
