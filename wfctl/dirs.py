"""Where wfctl keeps its files: the one answer for the config, state and cache directories.

- config (config.toml, file credentials, login locks): `$XDG_CONFIG_HOME/wfctl`;
- state (journals of bulk runs, the write history, token-refresh locks): `$XDG_STATE_HOME/wfctl`;
- cache (ids for shell completion, the help index): `$XDG_CACHE_HOME/wfctl`.

An XDG variable that is set to an absolute path wins on every platform (a relative one is ignored, as the
XDG Base Directory spec says). Otherwise the platform's own place, as platformdirs gives it: on Linux and
the other XDG platforms `~/.config/wfctl`, `~/.local/state/wfctl` and `~/.cache/wfctl`; on macOS
`~/Library/Application Support/wfctl` (config and state) and `~/Library/Caches/wfctl`; on Windows
`%APPDATA%\\wfctl` (config, roaming), `%LOCALAPPDATA%\\wfctl` (state) and `%LOCALAPPDATA%\\wfctl\\Cache`.
Earlier versions kept state in `~/.local/state/wfctl` everywhere: while only that folder holds runs it is
still the state directory there (the journals of earlier runs stay resumable and undoable).

On the XDG platforms the spec's defaults are written out here rather than asking platformdirs, so the
fast paths (completion, help) do not import it; tests/layers/test_infrastructure.py holds the two answers
equal. Nothing is created here (wfctl.fsutil.private_dir does that).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "wfctl"
_XDG_DEFAULTS = {"config": (".config",), "state": (".local", "state"), "cache": (".cache",)}


def config_dir() -> Path:
    return _dir("config")


def config_file() -> Path:
    """`WFCTL_CONFIG`, else `config.toml` in the config directory (wfctl.config reads it; the help index
    keys what it holds from it on this file: wfctl.cmdline.helpindex.config_stamp)."""
    explicit = os.environ.get("WFCTL_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return config_dir() / "config.toml"


def state_dir() -> Path:
    return _dir("state")


def cache_dir() -> Path:
    return _dir("cache")


def _dir(kind: str) -> Path:
    base = os.environ.get(f"XDG_{kind.upper()}_HOME")
    if base and os.path.isabs(base):
        return Path(base) / APP
    xdg_default = Path(os.path.expanduser("~"), *_XDG_DEFAULTS[kind]) / APP
    if sys.platform in ("win32", "darwin"):
        native = platform_dir(kind)
        if kind == "state" and not (native / "runs").exists() and (xdg_default / "runs").is_dir():
            return xdg_default  # where earlier versions kept journals on every platform: runs stay resumable
        return native
    return xdg_default


def platform_dir(kind: str) -> Path:
    """platformdirs' answer for `kind` ("config", "state" or "cache"), XDG variables aside."""
    from platformdirs import PlatformDirs

    dirs = PlatformDirs(APP, appauthor=False, roaming=kind == "config")
    return Path(getattr(dirs, f"user_{kind}_dir"))
