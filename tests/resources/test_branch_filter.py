"""G9: `clients list --branch X` on a deployment that ignores the `branchId` filter, when the first page
happens to hold only X's clients (so the first page alone cannot tell an applied filter from an ignored
one). A fresh deployment each, so that no other test's clients come first."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.cli import Cli, Result
from tests.matrix.conftest import Deployment


@pytest.fixture(params=["ignore-branch-filter", "default"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    with Deployment.running(request.param, tmp_path) as deployment:
        yield deployment


def test_first_page_of_only_the_branchs_clients(fresh: Deployment, cli: Cli) -> None:
    mine, other = fresh.branch(), fresh.branch()
    first_two = [fresh.client(mine["id"]) for _ in range(2)]
    # The service orders by (createdOn, id), createdOn in whole seconds: the first page of 2 is ours
    # only when the other branch's client is created a second later.
    while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= max(c["createdOn"] for c in first_two):
        time.sleep(0.05)
    fresh.client(other["id"])
    fresh.client(mine["id"])
    ours = [row["id"] for row in fresh.all("/api/clients", branchId=mine["id"])]  # the service's order
    assert {row["id"] for row in first_two} == set(ours[:2])
    env = {"WFCTL_BASE_URL": fresh.url, "WFCTL_ACCESS_TOKEN": fresh.token}

    def run(*args: str) -> Result:
        return cli("clients", "list", "--branch", mine["id"], *args, "-o", "json", env=env)

    every = run("--all", "--page-size", "2")
    assert every.exit_code == 0, every
    assert [row["id"] for row in json.loads(every.stdout)] == ours
    first = run("--page-size", "2")
    assert first.exit_code == 0, first
    assert [row["id"] for row in json.loads(first.stdout)] == ours[:2]
    second = run("--page", "2", "--page-size", "2")
    assert second.exit_code == 0, second
    assert [row["id"] for row in json.loads(second.stdout)] == ours[2:]
