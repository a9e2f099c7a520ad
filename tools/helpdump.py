#!/usr/bin/env python3
"""Dump `wfctl <command> --help` of every command into a folder, to diff two trees' help byte for byte.

    .venv/bin/python tools/helpdump.py /tmp/help-before     # before a change (tools/relayout.py)
    .venv/bin/python tools/helpdump.py /tmp/help-after      # after it
    diff -r /tmp/help-before /tmp/help-after                # nothing: --help is byte-identical

Each command's help is asked of the installed `wfctl` (beside this Python) in a pipe, with a fresh cache
folder (the help index is built once, as on a first run) and a fixed width.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click


def root() -> click.Command:
    for name in ("wfctl.cmdline.app", "wfctl.cli"):
        try:
            return importlib.import_module(name).root_command()
        except ModuleNotFoundError:
            continue
    raise SystemExit("helpdump: no wfctl root command found")


def paths(command: click.Command, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    if hasattr(command, "list_commands"):  # a group (typer's may not be a click.Group)
        for name in sorted(command.list_commands(click.Context(command))):
            sub = command.get_command(  # type: ignore[attr-defined]
                click.Context(command), name)
            if sub is not None:
                found += paths(sub, (*prefix, name))
    return found


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    wfctl = str(Path(sys.executable).parent / "wfctl")
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "COLUMNS": "100", "XDG_CACHE_HOME": f"{home}/cache",
               "XDG_CONFIG_HOME": f"{home}/config", "XDG_STATE_HOME": f"{home}/state", "NO_COLOR": "1"}
        env.pop("WFCTL_PROFILE", None)
        subprocess.run([wfctl, "--help"], env=env, capture_output=True, check=False)  # builds the index

        def dump(path: tuple[str, ...]) -> None:
            done = subprocess.run([wfctl, *path, "--help"], env=env, capture_output=True, check=False)
            name = "_".join(path) or "wfctl"
            (out / f"{name}.txt").write_bytes(done.stdout + b"\n--- stderr ---\n" + done.stderr
                                              + f"\n--- exit {done.returncode} ---\n".encode())

        commands = paths(root())
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(dump, commands))
    print(f"helpdump: {len(commands)} commands into {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
