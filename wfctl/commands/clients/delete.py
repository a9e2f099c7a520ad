"""wfctl clients delete."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun, Output, Yes
from wfctl.commands.verbs import verb


@verb("delete")
def delete(ctx: typer.Context, client_id: recordverbs.ClientId, yes: Yes = False, dry_run: DryRun = False,
           output: Output = None) -> None:
    """Delete a client.

    Asks for confirmation on a terminal; elsewhere --yes is required. A client that still has sites is not deleted (exit 5).

    Examples:
      $ wfctl clients delete <client-id>
      $ wfctl clients delete <client-id> --yes
    """
    recordverbs.delete_record(ctx, "client", client_id, yes=yes, dry_run=dry_run, output=output)
