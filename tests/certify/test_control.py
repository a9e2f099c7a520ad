"""The control plane (issue 48 §4): `wfctl sandbox reset|seed|tenant add|faults|clock advance|journal` against a
sandbox served with a control token, over a real socket; and what it refuses."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.certify.helpers import CONTROL_TOKEN, control
from tests.fixtures.cli import REPO_ROOT, Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers, login_token


def test_tenant_add_makes_an_agency_of_its_own_with_a_login_and_records(cli: Cli, controlled: SandboxServer,
                                                                          token_file: Path) -> None:
    result = control(cli, controlled, token_file, "tenant", "add", "Acme Integration")
    assert result.exit_code == 0, result.stderr
    tenant = json.loads(result.stdout)
    assert tenant["name"] == "Acme Integration"
    [login] = tenant["logins"]
    assert login["username"] == "admin@acme-integration.test" and login["role"] == "admin"
    headers = auth_headers(controlled, login["username"], login["password"])
    branches = httpx.get(f"{controlled.url}/api/branches", headers=headers).json()
    assert sorted(b["name"] for b in branches["data"]) == ["North", "South"]
    clients = httpx.get(f"{controlled.url}/api/clients", headers=headers).json()["data"]
    harbour = next(c for c in clients if c["name"] == "Harbour Foods")
    sites = httpx.get(f"{controlled.url}/api/clients/{harbour['id']}/sites", headers=headers).json()
    assert sites["totalRecordCount"] == 27 and sites["pageCount"] == 3
    # Northwind's admin sees none of it (G17)
    northwind = httpx.get(f"{controlled.url}/api/branches", headers=auth_headers(controlled, *ADMIN)).json()
    assert "North" not in [b["name"] for b in northwind["data"]]
    again = control(cli, controlled, token_file, "tenant", "add", "acme integration")
    assert again.exit_code == 5 and again.stderr.startswith("error: an agency named") and again.stdout == ""


def test_a_seed_file_links_records_by_reference_and_is_all_or_none(cli: Cli, controlled: SandboxServer,
                                                                    token_file: Path, tmp_path: Path) -> None:
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"records": [
        {"type": "branch", "ref": "york", "fields": {"name": "York Minster"}},
        {"type": "client", "ref": "shambles", "fields": {"name": "Shambles Bakery", "branchId": "${york:id}"}},
        {"type": "site", "ref": "oven", "fields": {"name": "Oven Room", "clientId": "${shambles:id}",
                                                   "rates": [{"skill": "Baker", "hourlyRate": 12.5}]}},
        {"type": "login", "fields": {"username": "york@northwind.test", "password": "york-staff-1",
                                     "role": "staff", "branchId": "${york:id}"}},
    ]}))
    result = control(cli, controlled, token_file, "seed", str(seed), "--tenant", "Northwind Staffing")
    assert result.exit_code == 0, result.stderr
    made = json.loads(result.stdout)["records"]
    assert set(made) == {"york", "shambles", "oven"}
    staff = auth_headers(controlled, "york@northwind.test", "york-staff-1")
    site = httpx.get(f"{controlled.url}/api/sites/{made['oven']}", headers=staff).json()
    assert site["clientId"] == made["shambles"] and site["rates"] == [{"skill": "Baker", "hourlyRate": 12.5}]

    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"records": [
        {"type": "branch", "ref": "hull", "fields": {"name": "Hull Docks"}},
        {"type": "client", "fields": {"name": "Nobody", "branchId": "${nowhere:id}"}}]}))
    refused = control(cli, controlled, token_file, "seed", str(broken))
    assert refused.exit_code == 6
    assert refused.stderr == "error: record 2: ${nowhere:id} names no earlier record's field (HTTP 400)\n"
    names = [b["name"] for b in httpx.get(f"{controlled.url}/api/branches?pageSize=100",
                                          headers=auth_headers(controlled, *ADMIN)).json()["data"]]
    assert "Hull Docks" not in names  # nothing of a refused file is kept


def test_reset_puts_back_the_seed_in_under_a_second(cli: Cli, controlled: SandboxServer, token_file: Path) -> None:
    headers = auth_headers(controlled, *ADMIN)
    created = httpx.post(f"{controlled.url}/api/branches", json={"name": "Gone After Reset"}, headers=headers)
    assert created.status_code == 201
    controlled.behaviour.change(quirks=["put-clears"])
    started = time.monotonic()
    result = control(cli, controlled, token_file, "reset")
    elapsed = time.monotonic() - started
    assert result.exit_code == 0 and result.stderr == f"{controlled.url}: reset to the seed\n"
    assert elapsed < 1.0, elapsed
    assert httpx.get(f"{controlled.url}/api/branches", headers=headers).status_code == 401  # tokens gone too
    fresh = auth_headers(controlled, *ADMIN)
    names = [b["name"] for b in httpx.get(f"{controlled.url}/api/branches", headers=fresh).json()["data"]]
    assert names == ["Manchester Central", "Leeds Riverside", "Birmingham Eastside"]
    assert controlled.behaviour.quirks.names() == []
    assert [(r.path, r.status) for r in controlled.journal.records()] == [
        ("/api/branches", 401), ("/identity/login", 200), ("/api/branches", 200)]  # the journal began again


def test_faults_set_and_clear_change_what_the_next_request_gets(cli: Cli, controlled: SandboxServer,
                                                                 token_file: Path) -> None:
    headers = auth_headers(controlled, *ADMIN)
    result = control(cli, controlled, token_file, "faults", "set", "--unavailable", "--quirk", "next-page=int")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"access_ttl": 900, "faults": {"unavailable": True}, "latency_ms": 0,
                                         "quirks": ["next-page=int"], "rate_limit": 0}
    down = httpx.get(f"{controlled.url}/api/branches", headers=headers)
    assert down.status_code == 503 and down.headers["retry-after"] == "1"
    assert control(cli, controlled, token_file, "faults", "clear").exit_code == 0
    up = httpx.get(f"{controlled.url}/api/branches?pageSize=1", headers=headers)
    assert up.status_code == 200 and up.json()["nextPage"].startswith("http")  # the quirk went with the fault
    bad = control(cli, controlled, token_file, "faults", "set", "--quirk", "no-such-quirk")
    assert bad.exit_code == 6 and "no-such-quirk" in bad.stderr and bad.stderr.count("\n") == 1


def test_clock_advance_expires_the_access_token_then_the_refresh_token(cli: Cli, controlled: SandboxServer,
                                                                        token_file: Path) -> None:
    pair = login_token(controlled, *ADMIN)
    headers = {"Authorization": f"Bearer {pair['accessToken']}"}
    assert httpx.get(f"{controlled.url}/api/agency/", headers=headers).status_code == 200
    result = control(cli, controlled, token_file, "clock", "advance", "16m")
    assert result.exit_code == 0 and result.stderr.startswith("the sandbox's clock now reads ")
    assert httpx.get(f"{controlled.url}/api/agency/", headers=headers).status_code == 401
    assert control(cli, controlled, token_file, "clock", "advance", "30d").exit_code == 0
    refresh = httpx.post(f"{controlled.url}/identity/refresh", json={"accessToken": pair["accessToken"],
                                                                     "refreshToken": pair["refreshToken"]})
    assert refresh.status_code == 401
    wrong = control(cli, controlled, token_file, "clock", "advance", "soon")
    assert (wrong.exit_code, wrong.stderr) == (2, "error: 'soon' is not a duration (e.g. 90s, 15m, 1h30m, 30d)\n")


def test_journal_prints_records_of_one_tenant_with_bodies_redacted(cli: Cli, controlled: SandboxServer,
                                                                   token_file: Path) -> None:
    assert control(cli, controlled, token_file, "journal", "--keep-bodies").exit_code == 0
    tenant = json.loads(control(cli, controlled, token_file, "tenant", "add", "Journal Co").stdout)
    login = tenant["logins"][0]
    headers = auth_headers(controlled, login["username"], login["password"])
    httpx.post(f"{controlled.url}/api/branches", json={"name": "Kept"}, headers=headers)
    httpx.get(f"{controlled.url}/api/branches", headers=auth_headers(controlled, *ADMIN))
    plain = control(cli, controlled, token_file, "journal", "--tenant", "Journal Co")
    records = [json.loads(line) for line in plain.stdout.splitlines()]
    assert [(r["method"], r["path"], r["status"]) for r in records] == [("POST", "/api/branches", 201)]
    assert "request_body" not in records[0]
    everything = control(cli, controlled, token_file, "journal", "--bodies")
    assert login["password"] not in everything.stdout and "accessToken\": \"ey" not in everything.stdout
    logins = [json.loads(line) for line in everything.stdout.splitlines() if '"/identity/login"' in line]
    assert logins[0]["request_body"]["password"] == "<redacted>"
    assert logins[0]["response_body"]["accessToken"] == "<redacted>"
    kept = [json.loads(line) for line in everything.stdout.splitlines() if '"/api/branches"' in line]
    assert kept[0]["request_body"] == {"name": "Kept"}


def test_the_control_plane_wants_its_token_and_no_browser(cli: Cli, controlled: SandboxServer,
                                                          tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token-at-all-000000")
    refused = control(cli, controlled, wrong, "reset")
    assert refused.exit_code == 3
    assert refused.stderr == ("error: the control plane needs its token: Authorization: Bearer <token> "
                              "(HTTP 401)\n")
    missing = cli("sandbox", "reset", "--url", controlled.url)
    assert missing.exit_code == 2 and "--control-token-file" in missing.stderr
    browser = httpx.post(f"{controlled.url}/_control/reset", headers={
        "Authorization": f"Bearer {CONTROL_TOKEN}", "Origin": "http://evil.example"})
    assert browser.status_code == 403 and "access-control-allow-origin" not in browser.headers
    preflight = httpx.options(f"{controlled.url}/_control/reset", headers={"Origin": "http://evil.example"})
    assert preflight.status_code == 403 and "access-control-allow-origin" not in preflight.headers
    assert [r.path for r in controlled.journal.records()] == []  # control requests are not journalled


def test_a_sandbox_without_control_has_no_control_plane(cli: Cli, sandbox: SandboxServer, token_file: Path) -> None:
    result = control(cli, sandbox, token_file, "reset")
    assert result.exit_code == 4
    assert result.stderr == (f"error: {sandbox.url} has no control plane (start it with: wfctl sandbox serve "
                             "--control) (HTTP 404)\n")


def test_a_request_from_off_loopback_is_refused(controlled: SandboxServer) -> None:
    import asyncio

    async def ask(address: str) -> int:
        transport = httpx.ASGITransport(app=controlled.app, client=(address, 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
            answer = await client.get("/_control/behaviour", headers={"Authorization": f"Bearer {CONTROL_TOKEN}"})
            return answer.status_code

    assert asyncio.run(ask("192.0.2.7")) == 403
    assert asyncio.run(ask("127.0.0.1")) == 200


def test_serve_control_writes_its_token_file_0600_and_the_cli_drives_it(cli: Cli, tmp_path: Path) -> None:
    token_path = tmp_path / "token"
    env = {**cli.env, "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", "0", "--control",
                             "--control-token-file", str(token_path)],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        lines = []
        while not any(line.startswith("control plane:") for line in lines):
            line = proc.stderr.readline()
            assert line, "".join(lines)
            lines.append(line)
        url = lines[0].split()[3]
        assert lines[-1] == f"control plane: {url}/_control/ (token in {token_path}; loopback only)\n"
        assert stat.S_IMODE(os.stat(token_path).st_mode) == 0o600
        assert token_path.read_text().strip() not in "".join(lines)
        served = cli("sandbox", "faults", "set", "--latency", "5", "--url", url, "--control-token-file", token_path)
        assert served.exit_code == 0 and json.loads(served.stdout)["latency_ms"] == 5
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_serve_control_is_refused_off_loopback(cli: Cli) -> None:
    result = cli("sandbox", "serve", "--control", "--host", "0.0.0.0", "--insecure-http")
    assert result.exit_code == 2
    assert result.stderr == ("error: --control serves loopback only: leave out --host, or give a loopback "
                             "address\n")


def test_reset_and_tenants_on_postgresql(cli: Cli, postgres: object, token_file: Path) -> None:
    server = SandboxServer(postgres.new_database(), control_token=CONTROL_TOKEN)  # type: ignore[attr-defined]
    try:
        tenant = json.loads(control(cli, server, token_file, "tenant", "add", "Acme On Postgres").stdout)
        login = tenant["logins"][0]
        headers = auth_headers(server, login["username"], login["password"])
        assert [b["name"] for b in httpx.get(f"{server.url}/api/branches", headers=headers).json()["data"]] == [
            "North", "South"]
        started = time.monotonic()
        assert control(cli, server, token_file, "reset").exit_code == 0
        assert time.monotonic() - started < 1.0
        gone = httpx.post(f"{server.url}/identity/login", json={"username": login["username"],
                                                                "password": login["password"]})
        assert gone.status_code == 401  # the tenant went with the reset
        names = [b["name"] for b in httpx.get(f"{server.url}/api/branches",
                                              headers=auth_headers(server, *ADMIN)).json()["data"]]
        assert names == ["Manchester Central", "Leeds Riverside", "Birmingham Eastside"]
    finally:
        server.stop()
