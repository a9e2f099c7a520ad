"""Checks the `config` verbs share: the profile named exists, the setting is a known one."""

from __future__ import annotations

from typing import Any


def require_profile(app_ctx: Any) -> None:
    """A profile named with -p/WFCTL_PROFILE that the config file does not have is an error naming it
    and the profiles there are (exit 2), not the defaults shown as if they were its settings."""
    from wfctl.config import ConfigError
    from wfctl.errors import unknown_profile_message

    name = app_ctx.options.profile
    message = unknown_profile_message(name) if name else None
    if message:
        raise ConfigError(message)


def check_key(key: str) -> None:
    """An unknown setting is an error naming the nearest known one (`outptu`: did you mean output?)."""
    import difflib

    from wfctl.config import KEYS, ConfigError

    if key in KEYS:
        return
    near = difflib.get_close_matches(key.replace("-", "_").lower(), [*KEYS], n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}? " if near else ""
    raise ConfigError(f"unknown setting {key!r}; {hint}known: {', '.join(KEYS)}")
