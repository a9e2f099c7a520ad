"""Real-terminal runs for the message tests: wfctl in a pty of a fixed size, what the screen shows."""

from __future__ import annotations

import json
import re
import sys
import uuid
from typing import Any

from tests.fixtures.cli import REPO_ROOT

SIZES = [(24, 80), (40, 120)]  # (rows, columns)
_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def spawn(cli: Any, *args: str, size: tuple[int, int] = (40, 120), env: dict[str, str] | None = None) -> Any:
    import pexpect

    full = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color",
                PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", **(env or {}))
    full.pop("COLUMNS", None)  # the pty's own size decides
    return pexpect.spawn(sys.executable, ["-m", "wfctl", *args], env=full, encoding="utf-8", timeout=60,
                         cwd=str(cli.tmp_path), dimensions=size)


def finish(child: Any) -> tuple[int, str]:
    """Wait for the end; the exit status and everything shown, without colour and cursor codes."""
    import pexpect

    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, _CSI.sub("", child.before or "")


def screen_lines(text: str) -> list[str]:
    """The lines as a terminal leaves them: a carriage return starts the line again."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        lines.append(line.split("\r")[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r"))
    return lines


def new_client(cli: Any, name: str | None = None) -> tuple[str, str, str]:
    """(client id, client name, branch name) of a new client in the first branch."""
    r = cli("branches", "list", "-o", "json")
    assert r.exit_code == 0, r
    branch = json.loads(r.stdout)[0]
    name = name or f"Pennine {uuid.uuid4().hex[:8]}"
    r = cli("clients", "create", "--branch", branch["id"], "--name", name, "-o", "json")
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["id"]), name, str(branch["name"])


def new_site(cli: Any, client_id: str, name: str) -> str:
    r = cli("sites", "create", "--client", client_id, "--name", name, "-o", "json")
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["id"])
