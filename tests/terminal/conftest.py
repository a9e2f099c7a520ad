"""Real-terminal tests: wfctl in a pseudo-terminal of a fixed size (80x24, 120x40), read as a person
reads the screen. A seeded sandbox of this package's own, plus a branch, client and site with long free
text, so that what the tables show does not depend on other tests."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers, own_sandbox

LONG_NAME = "Northwind Staffing Head Office Annexe"  # 37 characters, whole at 80 columns with a 36-char id
LONG_ADDRESS = ("Unit 17b, The Old Mill Business Park, Canal Side Industrial Estate, "
                "Huddersfield Road, Mossley, Greater Manchester OL5 9BQ")
LONG_SITE = "Canal Side Cold Store and Dispatch"


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    yield from own_sandbox(tmp_path_factory, "terminal")


@pytest.fixture(scope="package")
def long_records(service: SandboxServer) -> dict[str, str]:
    """A branch, client and site whose name and address are long; kind -> id."""
    headers = auth_headers(service, *ADMIN)

    def post(path: str, body: dict[str, Any]) -> str:
        response = httpx.post(service.url + path, json=body, headers=headers, timeout=10)
        response.raise_for_status()
        return str(response.json()["id"])

    branch = post("/api/branches", {"name": LONG_NAME, "address": LONG_ADDRESS, "phone": "+44 161 496 9999",
                                    "email": "annexe@northwind.test"})
    client = post("/api/clients", {"branchId": branch, "name": "Mossley Mills Trading Company Ltd",
                                   "email": "accounts@mossley-mills-trading.test", "phone": "+44 161 496 9000"})
    site = post(f"/api/clients/{client}/sites", {"name": LONG_SITE, "address": LONG_ADDRESS,
                                                 "phone": "+44 161 496 9001", "email": "dispatch@mossley.test"})
    return {"branch": branch, "client": client, "site": site}


@pytest.fixture
def wf(cli: Any, service: SandboxServer, long_records: dict[str, str]) -> Any:
    """`cli` (isolated config), logged in as the Northwind admin to `service`."""
    result = cli.login_as(service.url, *ADMIN)
    assert result.exit_code == 0, result
    return cli


_SGR = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Screen:
    """What a run printed on the terminal: `lines` without colour codes, `raw` as sent."""
    raw: str
    exit_status: int | None

    @property
    def text(self) -> str:
        return _SGR.sub("", self.raw).replace("\r\n", "\n")

    @property
    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.text.split("\n")]


def wfctl_command() -> tuple[str, list[str]]:
    script = REPO_ROOT / ".venv" / "bin" / "wfctl"
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "wfctl"]


def run_in_terminal(cli: Any, *args: str, columns: int, rows: int, shell: str | None = None) -> Screen:
    """`wfctl ARGS` in a pty of `rows` x `columns` (or `shell`, a bash command line, e.g. a pipe)."""
    pexpect = pytest.importorskip("pexpect")
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    env.pop("COLUMNS", None)  # the pty's own size decides
    env.pop("LINES", None)
    command, prefix = wfctl_command()
    if shell is not None:
        env["PATH"] = os.pathsep.join([str(Path(command).parent), env.get("PATH", "")])
        command, argv = "bash", ["-c", shell]
    else:
        argv = [*prefix, *args]
    child = pexpect.spawn(command, argv, env=env, encoding="utf-8", timeout=60, dimensions=(rows, columns),
                          cwd=str(cli.tmp_path))
    child.expect(pexpect.EOF)
    child.close()
    return Screen(child.before or "", child.exitstatus)
