"""What a sandbox plays, per tenant (issue 48): `wfctl sandbox faults set|clear --tenant` and `clock advance
--tenant` change one agency's quirks, faults and time; every other tenant plays on unchanged; the rate limit is
counted per tenant. Over a real socket, through the command line, as an integrator's tests would drive it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from tests.certify.helpers import control
from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers, login_token


def acme(cli: Cli, server: SandboxServer, token_file: Path) -> tuple[str, str]:
    added = control(cli, server, token_file, "tenant", "add", "Acme Integration")
    assert added.exit_code == 0, added.stderr
    login = json.loads(added.stdout)["logins"][0]
    return login["username"], login["password"]


def test_a_fault_and_an_error_form_set_for_one_tenant_reach_that_tenant_alone(
        cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    user = acme(cli, controlled, token_file)
    acme_headers, northwind_headers = auth_headers(controlled, *user), auth_headers(controlled, *ADMIN)
    result = control(cli, controlled, token_file, "faults", "set", "--unavailable", "--quirk", "errors=html",
                     "--tenant", "Acme Integration")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"access_ttl": 900, "faults": {"unavailable": True}, "latency_ms": 0,
                                         "quirks": ["errors=html"], "rate_limit": 0}
    down = httpx.get(f"{controlled.url}/api/branches", headers=acme_headers)
    assert down.status_code == 503 and down.headers["content-type"].startswith("text/html")
    assert down.headers["retry-after"] == "1"
    # its login too (the tenant is told by the user name), and nobody else's request
    login = httpx.post(f"{controlled.url}/identity/login", json={"username": user[0], "password": user[1]})
    assert login.status_code == 503
    assert httpx.get(f"{controlled.url}/api/branches", headers=northwind_headers).status_code == 200
    assert login_token(controlled, *ADMIN)["tokenType"] == "Bearer"
    missing = httpx.get(f"{controlled.url}/api/sites/no-such-site", headers=northwind_headers)
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    # what the sandbox plays for all is unchanged, and the tenant's own is read back by its name
    everyone = control(cli, controlled, token_file, "faults", "clear")
    assert json.loads(everyone.stdout)["faults"] == {"unavailable": False}
    assert httpx.get(f"{controlled.url}/api/branches", headers=acme_headers).status_code == 503
    assert controlled.behaviour.now.quirks.names() == []
    cleared = control(cli, controlled, token_file, "faults", "clear", "--tenant", "acme integration")
    assert cleared.exit_code == 0 and json.loads(cleared.stdout)["quirks"] == []
    assert httpx.get(f"{controlled.url}/api/branches", headers=acme_headers).status_code == 200


def test_a_quirk_for_one_tenant_changes_what_its_put_does_and_no_one_elses(
        cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    user = acme(cli, controlled, token_file)
    assert control(cli, controlled, token_file, "faults", "set", "--quirk", "put-clears",
                   "--tenant", "Acme Integration").exit_code == 0
    for headers in (auth_headers(controlled, *user), auth_headers(controlled, *ADMIN)):
        branch = httpx.get(f"{controlled.url}/api/branches", headers=headers).json()["data"][0]
        assert branch["address"]
        put = httpx.put(f"{controlled.url}/api/branches/{branch['id']}", json={"name": branch["name"]},
                        headers=headers)
        assert put.status_code == 200
    acme_after = httpx.get(f"{controlled.url}/api/branches", headers=auth_headers(controlled, *user)).json()
    northwind_after = httpx.get(f"{controlled.url}/api/branches", headers=auth_headers(controlled, *ADMIN)).json()
    assert acme_after["data"][0]["address"] == ""           # cleared: put-clears is Acme's
    assert northwind_after["data"][0]["address"] != ""      # kept (G13)


def test_a_tenants_clock_moves_alone_and_a_reset_forgets_every_tenants_own(
        cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    user = acme(cli, controlled, token_file)
    acme_pair, northwind = login_token(controlled, *user), auth_headers(controlled, *ADMIN)
    acme_headers = {"Authorization": f"Bearer {acme_pair['accessToken']}"}
    moved = control(cli, controlled, token_file, "clock", "advance", "16m", "--tenant", "Acme Integration")
    assert moved.exit_code == 0 and moved.stderr.startswith("that tenant's clock now reads ")
    assert httpx.get(f"{controlled.url}/api/agency/", headers=acme_headers).status_code == 401
    assert httpx.get(f"{controlled.url}/api/agency/", headers=northwind).status_code == 200
    refreshed = httpx.post(f"{controlled.url}/identity/refresh", json={
        "accessToken": acme_pair["accessToken"], "refreshToken": acme_pair["refreshToken"]})
    assert refreshed.status_code == 200  # 16 minutes on: the refresh token (30 days) still serves
    renewed = {"Authorization": f"Bearer {refreshed.json()['accessToken']}"}
    assert httpx.get(f"{controlled.url}/api/agency/", headers=renewed).status_code == 200
    unknown = control(cli, controlled, token_file, "clock", "advance", "1m", "--tenant", "No Such Agency")
    assert unknown.exit_code == 4 and unknown.stderr.count("\n") == 1
    assert control(cli, controlled, token_file, "faults", "set", "--quirk", "put-clears", "--tenant",
                   "Southgate Recruitment").exit_code == 0
    assert control(cli, controlled, token_file, "reset").exit_code == 0
    assert not controlled.behaviour.per_tenant and not controlled.app.state.clock.per_tenant


def test_the_rate_limit_is_counted_per_tenant(cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    """`faults set --rate-limit 4` for the whole sandbox: one tenant's burst is answered 429, and in that same
    second another tenant's requests are all served; its own burst is then limited on its own."""
    acme_headers, northwind_headers = auth_headers(controlled, *acme(cli, controlled, token_file)), auth_headers(
        controlled, *ADMIN)
    limited = control(cli, controlled, token_file, "faults", "set", "--rate-limit", "4")
    assert limited.exit_code == 0 and json.loads(limited.stdout)["rate_limit"] == 4
    with httpx.Client(base_url=controlled.url, timeout=10) as client:
        client.get("/openapi.json")  # connected, so the bursts below fit in a second
        for _ in range(5):  # bursts that cross into the next second say nothing: try again
            time.sleep(1.05 - time.time() % 1)  # just after the start of a second
            started = time.time()
            acme_answers = [client.get("/api/branches", headers=acme_headers) for _ in range(6)]
            northwind = [client.get("/api/branches", headers=northwind_headers).status_code for _ in range(5)]
            if int(time.time()) == int(started):
                break
        else:
            pytest.skip("every burst crossed a second: too slow a machine to tell")
    assert [answer.status_code for answer in acme_answers] == [200, 200, 200, 200, 429, 429]
    assert acme_answers[-1].headers["retry-after"] == "1"
    assert northwind == [200, 200, 200, 200, 429]  # Acme's burst took none of Northwind's four
