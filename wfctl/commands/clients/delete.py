"""wfctl clients delete."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun, Yes
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("delete")
@takes_output()
def delete(ctx: typer.Context, client_id: recordverbs.ClientId, yes: Yes = False, dry_run: DryRun = False,
           output: OutputOptions = AS_CONFIGURED) -> None:
    """Delete a client.

    Asks for confirmation on a terminal; elsewhere --yes is required. A client that still has sites is not deleted (exit 5).

    Examples:
      $ wfctl clients delete <client-id>
      $ wfctl clients delete <client-id> --yes
    """
    recordverbs.delete_record(ctx, "client", client_id, yes=yes, dry_run=dry_run, output=output)
