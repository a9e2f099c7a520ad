"""wfctl clients get."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import Fields, Output
from wfctl.commands.verbs import verb


@verb("get")
def get(ctx: typer.Context, client_id: recordverbs.ClientId, output: Output = None, fields: Fields = None) -> None:
    """Show one client.

    Prints the whole client (with its billing address).

    Examples:
      $ wfctl clients get <client-id>
      $ wfctl clients get <client-id> -o json
    """
    recordverbs.get_record(ctx, "client", client_id, output=output, fields=fields)
