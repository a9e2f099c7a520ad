"""Fixtures of the resource-command tests: a sandbox of this package's own (so exact list output does not
depend on what other tests created) and a CLI logged in to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, own_sandbox


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    yield from own_sandbox(tmp_path_factory, "resources")


@pytest.fixture
def tag() -> str:
    """A unique prefix for the names a test creates in the shared sandbox."""
    import uuid

    return uuid.uuid4().hex[:8]


@pytest.fixture
def wf(cli: Any, service: SandboxServer) -> Any:
    """`cli`, logged in as the Northwind admin to `service`."""
    result = cli.login_as(service.url, *ADMIN)
    assert result.exit_code == 0, result
    return cli


def as_json(result: Any) -> Any:
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def make_tree(wf: Any, tag: str) -> dict[str, str]:
    """A branch with one client with two sites, all named after `tag`; returns their ids."""
    branch = as_json(wf("branches", "create", "--name", f"{tag} branch", "-o", "json"))["id"]
    client = as_json(wf("clients", "create", "--branch", branch, "--name", f"{tag} client", "-o", "json"))["id"]
    sites = [as_json(wf("sites", "create", "--client", client, "--name", f"{tag} site {i}", "-o", "json"))["id"]
             for i in (1, 2)]
    return {"branch": branch, "client": client, "site1": sites[0], "site2": sites[1]}


@pytest.fixture
def site_file(tmp_path: Path) -> Path:
    path = tmp_path / "site.json"
    path.write_text(json.dumps({"name": "From file", "address": "9 File Rd", "rates": [{"skill": "driver",
                                                                                        "hourlyRate": 14}]}))
    return path
