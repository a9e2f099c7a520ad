"""wfctl clients get."""

from __future__ import annotations

import typer

from wfctl.commands import records
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("get")
@takes_output(fields=True)
def get(ctx: typer.Context, client_id: records.ClientId, output: OutputOptions = AS_CONFIGURED) -> None:
    """Show one client.

    Prints the whole client (with its billing address).

    Examples:
      $ wfctl clients get <client-id>
      $ wfctl clients get <client-id> -o json
    """
    records.get_record(ctx, "client", client_id, output=output)
