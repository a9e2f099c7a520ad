"""A client of its own with sites made for the query tests (issue 34): names that sort naturally only,
rates by skill, departments, banned workers, and text that YAML would re-type."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN


def make_client(cli: Any, server: Any, name: str) -> str:
    cli.login_as(server.url, *ADMIN)
    r = cli("clients", "create", "--branch", "Manchester Central", "--name", name, "-o", "json",
            "--jq", ".id")
    assert r.exit_code == 0, r
    client_id = r.stdout.strip().strip('"')
    sites = [
        ("Site 10", ["Forklift Driver=13.25", "Picker=11.50"], ["Goods In:Ann Lee"], ["w-1", "w-2"], "0427"),
        ("Site 2", ["forklift driver=12.00"], [], ["w-3"], "yes"),
        ("site 1", [], ["Goods In:Bo Chan", "Dispatch:Cy Dee"], [], "1e3"),
    ]
    for site, rates, departments, banned, phone in sites:
        args = ["sites", "create", "--client", client_id, "--name", site, "--address", "1 Dock Rd",
                "--phone", phone, "--email", "", "--no-assessment-required" if site != "Site 2" else
                "--assessment-required", "-o", "json"]
        for rate in rates:
            args += ["--rate", rate]
        for department in departments:
            args += ["--department", department]
        for worker in banned:
            args += ["--banned-worker", worker]
        r = cli(*args)
        assert r.exit_code == 0, r
    return client_id


@pytest.fixture
def agency_client(cli: Any, sandbox: Any, request: pytest.FixtureRequest) -> str:
    return make_client(cli, sandbox, f"Query {request.node.name[:40]}")
