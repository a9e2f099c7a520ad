"""wfctl sites edit."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_client_ids, complete_site_ids
from wfctl.commands import editoptions, recordverbs
from wfctl.commands.options import app_context, offered_options
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.drivers import editing

SiteRef = Annotated[str | None, typer.Argument(
    metavar="<site-id>", help=f"Id of the site ({recordverbs.REF_HELP}); leave it out with --client to edit every "
    "site of the client.", autocompletion=complete_site_ids, show_default=False)]
EditClient = Annotated[str | None, typer.Option(
    "--client", help="Without <site-id>: every site of this client in one file, sent as one run that `wfctl "
    "imports undo` takes back. With it: look for the site's name among this client's sites.",
    metavar="<client-id>", autocompletion=complete_client_ids)]


@verb("edit")
@takes_output(fields=True)
def edit(ctx: typer.Context, site_id: SiteRef = None, client: EditClient = None, recover: editoptions.Recover = False,
         yes: editoptions.Yes = False, force: editoptions.Force = False, max_change: editoptions.MaxChange = None,
         output: OutputOptions = AS_CONFIGURED) -> int:
    """Edit a site in your editor ($VISUAL, $EDITOR, else vi).

    The site opens as YAML, one rate, department or banned worker a line, read-only fields as
    comments. Saved, it is checked with the rules of `sites update` (a problem reopens the file with
    the message above its line) and the change is shown and asked for. Someone else's change made
    while you edited is merged in, field by field and entry by entry, and said; a change to the same
    field or entry reopens the file with both values (--force keeps yours). What you typed is kept
    until the service has it: --recover reopens it. A rate moved by more than --max-change (25%)
    reopens the file: 1225.00 typed for 12.25. Guide: docs/edit.md.

    Examples:
      $ wfctl sites edit <site-id>
      $ wfctl sites edit "Salford Quays Kitchen" --client "Pennine Foods Ltd"
      $ wfctl sites edit --client <client-id>          # every site of the client, one undoable run
      $ EDITOR=./fix-rates.sh wfctl sites edit <site-id> --yes
    """
    if site_id is None and client is None:
        from wfctl.errors import CliError

        raise CliError("missing <site-id> (or --client <client-id> to edit every site of a client)")
    return editing.edit(app_context(ctx), editing.EditOptions(
        "site", site_id, output, recover=recover, yes=yes, force=force, scope=client, max_change=max_change,
        offered=offered_options(ctx)))
