"""wfctl sites delete."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun, Yes
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("delete")
@takes_output()
def delete(ctx: typer.Context, site_id: recordverbs.SiteId, client: recordverbs.SiteClientOption = None, yes: Yes = False,
           dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Delete a site.

    Asks for confirmation on a terminal; elsewhere --yes is required.

    Examples:
      $ wfctl sites delete <site-id>
      $ wfctl sites delete <site-id> --yes
    """
    recordverbs.delete_record(ctx, "site", site_id, yes=yes, dry_run=dry_run, output=output, scope=client)
