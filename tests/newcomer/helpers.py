"""Shared by the newcomer tests: the click tree, and running the installed entry point."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@functools.cache
def command_tree() -> tuple[tuple[list[str], Any], ...]:
    """Every command and group below the root, as (path words, click command), root first (the app walked
    once a process: a test a command asked it each time, 0.1-0.2 s each)."""
    import typer.main

    from wfctl.cmdline.app import app

    def walk(path: list[str], command: Any) -> Iterator[tuple[list[str], Any]]:
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                yield from walk([*path, name], sub)

    return tuple(walk([], typer.main.get_command(app)))


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a user with no config, no keyring session and no proxies."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("WFCTL_") and k not in ("NO_COLOR", "DBUS_SESSION_BUS_ADDRESS",
                                                        "PYTHON_KEYRING_BACKEND", "HTTP_PROXY",
                                                        "HTTPS_PROXY", "http_proxy", "https_proxy")}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
                "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                "WFCTL_SANDBOX_TEST_SCRYPT_N": os.environ.get("WFCTL_SANDBOX_TEST_SCRYPT_N", "1024")})
    env.update(extra)
    return env


def run_wfctl(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wfctl", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=str(REPO_ROOT))


def run_installed(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The installed `wfctl` run with `args` and `env`, and the names of the modules it imported."""
    proc = subprocess.run([str(BIN / "wfctl"), *args], capture_output=True, text=True,
                          env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, timeout=60)
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return proc, names
