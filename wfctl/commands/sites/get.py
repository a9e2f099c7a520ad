"""wfctl sites get."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("get")
@takes_output(fields=True)
def get(ctx: typer.Context, site_id: recordverbs.SiteId, client: recordverbs.SiteClientOption = None,
        output: OutputOptions = AS_CONFIGURED) -> None:
    """Show one site.

    Prints the whole site with its rates, departments, documents and banned workers.

    Examples:
      $ wfctl sites get <site-id>
      $ wfctl sites get <site-id> -o json
      $ wfctl sites get "Rochdale Yard" --client "Irwell Logistics"
    """
    recordverbs.get_record(ctx, "site", site_id, output=output, scope=client)
