"""wfctl config list."""

from __future__ import annotations

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("list")
@takes_output()
def list_(ctx: typer.Context, output: OutputOptions = AS_CONFIGURED) -> None:
    """List the settings of the profile and where each value comes from.

    Shows every setting of the active profile (--profile) with its value and its source: flag,
    env (an environment variable), profile (the config file) or default.

    Examples:
      $ wfctl config list
      $ wfctl --profile staging config list -o json
    """
    from wfctl.commands.config.keys import require_profile
    from wfctl.config import KEYS

    app_ctx = app_context(ctx)
    require_profile(app_ctx)
    settings = app_ctx.settings
    out = output.writer(app_ctx)
    rows = [{"key": key, "value": getattr(settings, key), "source": settings.source(key)} for key in KEYS]
    rows.insert(0, {"key": "profile", "value": settings.profile, "source": "-"})
    rows.append({"key": "config_path", "value": str(settings.config_path), "source": "-"})
    if out.tabular:
        # a person reads words: the setting's name as `config set` takes it, where its value comes from
        rows = [{"setting": _LABELS.get(row["key"], row["key"]), "value": row["value"],
                 "from": _SOURCES.get(row["source"], row["source"])} for row in rows]
        out.records(rows, kind="setting", columns=["setting", "value", "from"])
        return
    out.records(rows, kind="setting", columns=["key", "value", "source"])


_LABELS = {"profile": "(profile)", "config_path": "(config file)"}
_SOURCES = {"flag": "a flag", "env": "an environment variable", "profile": "the config file",
            "default": "the default", "-": ""}
