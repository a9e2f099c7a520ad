"""Removing a tenant (issue 48): `wfctl sandbox tenant remove NAME` deletes an agency's records, logins and tokens
and what it played of its own, over a real socket, on SQLite and on PostgreSQL; the default tenant stays; a
certification on a shared sandbox (--url) leaves no tenant behind."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.certify.helpers import CONTROL_TOKEN, REFERENCE, control, small_scenarios
from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, OTHER_ADMIN, SandboxServer, auth_headers, login_token
from wfctl.sandbox.accounts import list_agencies


def removed_tenant_is_gone_and_others_unharmed(cli: Cli, server: SandboxServer, token_file: Path) -> None:
    """Add a tenant, use it, remove it: its login fails, its tokens are refused, the others play on."""
    added = json.loads(control(cli, server, token_file, "tenant", "add", "Acme Integration").stdout)
    login = added["logins"][0]
    pair = login_token(server, login["username"], login["password"])
    acme = {"Authorization": f"Bearer {pair['accessToken']}"}
    assert httpx.get(f"{server.url}/api/branches", headers=acme).status_code == 200
    northwind, southgate = auth_headers(server, *ADMIN), auth_headers(server, *OTHER_ADMIN)
    before = httpx.get(f"{server.url}/api/branches", headers=northwind).json()
    assert control(cli, server, token_file, "faults", "set", "--quirk", "put-clears",
                   "--tenant", "Acme Integration").exit_code == 0
    assert control(cli, server, token_file, "clock", "advance", "1m", "--tenant", "Acme Integration").exit_code == 0

    result = control(cli, server, token_file, "tenant", "remove", "acme integration")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"id": added["id"], "name": "Acme Integration", "branches": 2,
                                         "clients": 3, "sites": 30, "logins": 1}
    assert result.stderr == "removed tenant Acme Integration: 30 sites, 3 clients, 2 branches, 1 login\n"

    assert httpx.get(f"{server.url}/api/branches", headers=acme).status_code == 401  # its token is refused
    refresh = httpx.post(f"{server.url}/identity/refresh", json={"accessToken": pair["accessToken"],
                                                                 "refreshToken": pair["refreshToken"]})
    assert refresh.status_code == 401
    again = httpx.post(f"{server.url}/identity/login", json={"username": login["username"],
                                                             "password": login["password"]})
    assert again.status_code == 401  # its login fails
    assert httpx.get(f"{server.url}/api/branches", headers=northwind).json() == before
    assert httpx.get(f"{server.url}/api/branches", headers=southgate).status_code == 200
    assert not server.behaviour.per_tenant and not server.app.state.clock.per_tenant  # what it played went too
    assert [a["name"] for a in list_agencies(server.app.state.store)] == ["Northwind Staffing",
                                                                           "Southgate Recruitment"]

    gone = control(cli, server, token_file, "tenant", "remove", "Acme Integration")
    assert (gone.exit_code, gone.stdout) == (4, "")
    assert gone.stderr == ("error: no agency 'Acme Integration' (see wfctl sandbox agencies list) (HTTP 404)\n")
    default = control(cli, server, token_file, "tenant", "remove", "Northwind Staffing")
    assert (default.exit_code, default.stdout) == (5, "")
    assert default.stderr == ("error: Northwind Staffing is the sandbox's default tenant: it cannot be removed "
                              "(wfctl sandbox reset puts it back to its seed) (HTTP 409)\n")
    assert httpx.get(f"{server.url}/api/branches", headers=northwind).json() == before
    # the name is free again: a new tenant of it has nothing of the old one
    anew = control(cli, server, token_file, "tenant", "add", "Acme Integration", "--no-records")
    assert anew.exit_code == 0 and json.loads(anew.stdout)["id"] != added["id"]


def test_tenant_remove_on_sqlite(cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    removed_tenant_is_gone_and_others_unharmed(cli, controlled, token_file)


def test_tenant_remove_on_postgresql(cli: Cli, postgres: object, token_file: Path) -> None:
    server = SandboxServer(postgres.new_database(), control_token=CONTROL_TOKEN)  # type: ignore[attr-defined]
    try:
        removed_tenant_is_gone_and_others_unharmed(cli, server, token_file)
    finally:
        server.stop()


def test_tenant_remove_wants_the_control_token(cli: Cli, controlled: SandboxServer, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token-at-all-000000")
    refused = control(cli, controlled, wrong, "tenant", "remove", "Southgate Recruitment")
    assert (refused.exit_code, refused.stdout) == (3, "")
    assert auth_headers(controlled, *OTHER_ADMIN)  # still there


def test_certify_on_a_shared_sandbox_removes_the_tenants_it_made(cli: Cli, controlled: SandboxServer,
                                                                 token_file: Path, tmp_path: Path) -> None:
    scenarios = small_scenarios(tmp_path, "plain", "put-clears")
    result = cli("sandbox", "certify", "--scenarios", scenarios, "--url", controlled.url, "--control-token-file",
                 token_file, "--", *REFERENCE)
    assert result.exit_code == 0, result.stdout + result.stderr
    played = {record.tenant for record in controlled.journal.records() if record.tenant}
    assert len(played) == 2  # a tenant a scenario ...
    assert [a["name"] for a in list_agencies(controlled.app.state.store)] == ["Northwind Staffing",
                                                                               "Southgate Recruitment"]  # ... gone
