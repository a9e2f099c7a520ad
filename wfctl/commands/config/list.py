"""wfctl config list."""

from __future__ import annotations

import typer

from wfctl.commands.config import app
from wfctl.commands.options import Output, app_context, fmt


@app.command("list")
def list_(ctx: typer.Context, output: Output = None) -> None:
    """List the settings of the profile and where each value comes from.

    Shows every setting of the active profile (--profile) with its value and its source: flag,
    env (an environment variable), profile (the config file) or default.

    Examples:
      $ wfctl config list
      $ wfctl --profile staging config list -o json
    """
    from wfctl.config import KEYS

    app_ctx = app_context(ctx)
    settings = app_ctx.settings
    out = app_ctx.output(fmt(output))
    rows = [{"key": key, "value": getattr(settings, key), "source": settings.source(key)} for key in KEYS]
    rows.insert(0, {"key": "profile", "value": settings.profile, "source": "-"})
    rows.append({"key": "config_path", "value": str(settings.config_path), "source": "-"})
    out.records(rows, kind="setting", columns=["key", "value", "source"])
