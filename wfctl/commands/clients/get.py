"""wfctl clients get."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("get")
@takes_output(fields=True)
def get(ctx: typer.Context, client_id: recordverbs.ClientId, output: OutputOptions = AS_CONFIGURED) -> None:
    """Show one client.

    Prints the whole client (with its billing address).

    Examples:
      $ wfctl clients get <client-id>
      $ wfctl clients get <client-id> -o json
    """
    recordverbs.get_record(ctx, "client", client_id, output=output)
