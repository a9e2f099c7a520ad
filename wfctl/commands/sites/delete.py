"""wfctl sites delete."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun, Output, Yes
from wfctl.commands.verbs import verb


@verb("delete")
def delete(ctx: typer.Context, site_id: recordverbs.SiteId, client: recordverbs.SiteClientOption = None, yes: Yes = False,
           dry_run: DryRun = False, output: Output = None) -> None:
    """Delete a site.

    Asks for confirmation on a terminal; elsewhere --yes is required.

    Examples:
      $ wfctl sites delete <site-id>
      $ wfctl sites delete <site-id> --yes
    """
    recordverbs.delete_record(ctx, "site", site_id, yes=yes, dry_run=dry_run, output=output, scope=client)
