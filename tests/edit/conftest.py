"""Fixtures of the `edit` tests: a sandbox of this package's own, a CLI logged in to it, and a scripted
editor (tests/edit/editor.py) driven by a list of steps."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, own_sandbox

EDITOR = Path(__file__).with_name("editor.py")


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    yield from own_sandbox(tmp_path_factory, "edit")


@pytest.fixture
def tag() -> str:
    import uuid

    return uuid.uuid4().hex[:8]


@pytest.fixture
def wf(cli: Any, service: SandboxServer) -> Any:
    result = cli.login_as(service.url, *ADMIN)
    assert result.exit_code == 0, result
    return cli


class Editor:
    """`editor.steps(...)` sets what each opening does; `env` is the EDITOR to run wfctl with; `seen(n)` is
    what the n-th opening showed."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "steps.json"
        self.env = {"EDITOR": f"{sys.executable} {EDITOR} {self.path}", "VISUAL": ""}

    def steps(self, *steps: dict[str, Any]) -> Editor:
        self.path.write_text(json.dumps(list(steps)))
        self.path.with_suffix(".count").unlink(missing_ok=True)
        return self

    def seen(self, n: int) -> str:
        return self.path.with_suffix(f".{n}.seen").read_text(encoding="utf-8")

    @property
    def opened(self) -> int:
        count = self.path.with_suffix(".count")
        return int(count.read_text()) if count.exists() else 0


@pytest.fixture
def editor(tmp_path: Path) -> Editor:
    return Editor(tmp_path)


def as_json(result: Any) -> Any:
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def make_site(wf: Any, tag: str) -> dict[str, str]:
    """A branch, a client and one site with a rate, a department and a banned worker; their ids."""
    branch = as_json(wf("branches", "create", "--name", f"{tag} branch", "-o", "json"))["id"]
    client = as_json(wf("clients", "create", "--branch", branch, "--name", f"{tag} client", "-o", "json"))["id"]
    site = as_json(wf("sites", "create", "--client", client, "--name", f"{tag} site", "--email", "dock@example.com",
                      "--rate", "Forklift Driver=13.25", "--department", "Goods In:Ann Lee:ann@example.com",
                      "--banned-worker", "W-1", "-o", "json"))["id"]
    return {"branch": branch, "client": client, "site": site}
