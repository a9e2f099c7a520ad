"""wfctl config set."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_config_values
from wfctl.commands.config.get import Key
from wfctl.commands.options import app_context
from wfctl.commands.verbs import verb

Value = Annotated[str, typer.Argument(help="The new value.", metavar="<value>", show_default=False,
                                      autocompletion=complete_config_values)]


@verb("set")
def set_(ctx: typer.Context, key: Key, value: Value) -> None:
    """Change one setting of the profile in the config file.

    The value is checked first (a choice, a boolean or a URL where the setting needs one). The file
    is rewritten atomically with mode 0600; a file that cannot be parsed is left untouched.

    Examples:
      $ wfctl config set base_url https://wams.example.com
      $ wfctl config set output json
      $ wfctl --profile legacy config set login_username_field email
      $ wfctl config set credential_store file
    """
    from wfctl.commands.config.keys import check_key
    from wfctl.config import load_settings, parse_value, update_profile

    app_ctx = app_context(ctx)
    check_key(key)
    settings = load_settings(app_ctx.options)
    parsed = parse_value(key, value)
    path = update_profile(settings.profile, {key: parsed})
    app_ctx.io.note(f"Set {key} in profile {settings.profile!r} ({path}).")
