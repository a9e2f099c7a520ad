"""wfctl agency edit."""

from __future__ import annotations

import typer

from wfctl.commands import editoptions
from wfctl.commands.options import app_context, offered_options
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.drivers import editing


@verb("edit")
@takes_output(fields=True)
def edit(ctx: typer.Context, recover: editoptions.Recover = False, yes: editoptions.Yes = False,
         force: editoptions.Force = False, output: OutputOptions = AS_CONFIGURED) -> int:
    """Edit your agency's settings in your editor (administrators only).

    The settings open as YAML. Saved, they are checked with the rules of `agency update` (a problem
    reopens the file with the message above its line) and the change is shown and asked for. Another
    administrator's change to another field meanwhile is merged in and said; a change to the same field
    reopens the file with both values (--force keeps yours). --recover reopens an edit not sent.

    Examples:
      $ wfctl agency edit
    """
    return editing.edit(app_context(ctx), editing.EditOptions("agency", None, output, recover=recover, yes=yes,
                                                             force=force, offered=offered_options(ctx)))
