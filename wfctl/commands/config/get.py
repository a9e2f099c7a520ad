"""wfctl config get."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_config_keys
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

Key = Annotated[str, typer.Argument(help="Setting name, e.g. base_url (see `wfctl config list`).",
                                    metavar="<key>", show_default=False, autocompletion=complete_config_keys)]


@verb("get")
@takes_output()
def get(ctx: typer.Context, key: Key, output: OutputOptions = AS_CONFIGURED) -> None:
    """Print the value of one setting of the profile.

    Prints the effective value (flag > environment > profile > default) as plain text, whatever
    the profile's output format; an unset setting prints an empty line. -o json adds the source.

    Examples:
      $ wfctl config get base_url
      $ wfctl --profile staging config get credential_store
    """
    from wfctl.commands.config.keys import check_key, require_profile
    from wfctl.render.output import is_machine

    app_ctx = app_context(ctx)
    check_key(key)
    require_profile(app_ctx)
    value = getattr(app_ctx.settings, key)
    # Only an explicit -o json changes the shape: `$(wfctl config get base_url)` must keep working
    # whatever the profile's default output is.
    if is_machine(output.format or app_ctx.options.output):
        output.writer(app_ctx).value({"key": key, "value": value, "source": app_ctx.settings.source(key)})
        return
    text = "" if value is None else (str(value).lower() if isinstance(value, bool) else str(value))
    app_ctx.io.write(text + "\n")
