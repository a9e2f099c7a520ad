"""wfctl config unset."""

from __future__ import annotations

import typer

from wfctl.commands.config.get import Key
from wfctl.commands.options import app_context
from wfctl.commands.verbs import verb


@verb("unset")
def unset(ctx: typer.Context, key: Key) -> None:
    """Remove one setting from the profile, so its default applies again.

    Only the active profile (--profile, WFCTL_PROFILE, or the default profile) changes; the file is
    rewritten atomically and keeps mode 0600. An environment variable still overrides the default.

    Examples:
      $ wfctl config unset output
      $ wfctl --profile staging config unset allow_insecure_http
    """
    from wfctl.commands.config.keys import check_key, require_profile
    from wfctl.config import load_settings, update_profile

    app_ctx = app_context(ctx)
    check_key(key)
    require_profile(app_ctx)
    settings = load_settings(app_ctx.options)
    path = update_profile(settings.profile, {}, unset=(key,))
    app_ctx.io.note(f"Unset {key} in profile {settings.profile!r} ({path}).")
