"""wfctl clients edit."""

from __future__ import annotations

import typer

from wfctl.commands import editoptions, recordverbs
from wfctl.commands.options import app_context, offered_options
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.drivers import editing


@verb("edit")
@takes_output(fields=True)
def edit(ctx: typer.Context, client_id: recordverbs.ClientId, recover: editoptions.Recover = False, yes: editoptions.Yes = False,
         force: editoptions.Force = False, output: OutputOptions = AS_CONFIGURED) -> int:
    """Edit a client in your editor ($VISUAL, $EDITOR, else vi).

    The client opens as YAML, read-only fields as comments. Saved, it is checked with the rules of
    `clients update` (a problem reopens the file with the message above its line) and the change is
    shown and asked for. Someone else's change to another field while you edited is merged in and
    said; a change to the same field reopens the file with both values (--force keeps yours). What
    you typed is kept until the service has it: --recover reopens it. Guide: docs/edit.md.

    Examples:
      $ wfctl clients edit <client-id>
      $ VISUAL="code --wait" wfctl clients edit <client-id>
    """
    return editing.edit(app_context(ctx), editing.EditOptions("client", client_id, output, recover=recover, yes=yes,
                                                             force=force, offered=offered_options(ctx)))
