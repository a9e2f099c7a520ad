"""The drift tests' shared set-up: two real sandboxes as two profiles (issue 32 §3)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN

CLIENT = "Pennine Foods Ltd"


@pytest.fixture
def two(cli: Any, sandbox_factory: Any) -> Iterator[Any]:
    """`cli` logged in to a production sandbox (the default profile) and a staging one (`staging`), both
    seeded alike; staging's Pennine Foods Ltd then differs: one site's address and e-mail changed, one
    site added, one deleted."""
    production, staging = sandbox_factory(), sandbox_factory()
    assert cli.login_as(production.url, *ADMIN).exit_code == 0
    assert cli("-p", "staging", "login", "--base-url", staging.url, "--username", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1]).exit_code == 0
    sites = staged_sites(cli, "staging")
    names = sorted(sites)
    first, second = sites[names[0]], sites[names[1]]
    assert cli("-p", "staging", "sites", "update", first["id"], "--address", "1 Staging Way",
               "--email", "ops@staging.example").exit_code == 0
    assert cli("-p", "staging", "sites", "delete", second["id"], "--yes").exit_code == 0
    client = client_id(cli, "staging")
    assert cli("-p", "staging", "sites", "create", "--client", client, "--name", "Staging Only Depot",
               "--email", "depot@staging.example").exit_code == 0
    cli.names = (names[0], names[1])  # type: ignore[attr-defined]
    yield cli


def client_id(cli: Any, profile: str) -> str:
    r = cli("-p", profile, "clients", "list", "--all", "-o", "json")
    return next(c["id"] for c in json.loads(r.stdout) if c["name"] == CLIENT)


def staged_sites(cli: Any, profile: str) -> dict[str, dict[str, Any]]:
    r = cli("-p", profile, "sites", "list", "--client", client_id(cli, profile), "--all", "-o", "json")
    assert r.exit_code == 0, r
    return {s["name"]: s for s in json.loads(r.stdout)}
