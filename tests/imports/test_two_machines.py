"""Two machines importing the same file into one client at once (issue 26 §3): between them every row is
created once, neither claims a record the other made, and undoing one machine's run deletes only what
that machine made. Some of each machine's POSTs never reach the service (a proxy drops them unsent)."""

from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, login_token, own_sandbox
from wfctl.sandbox.injectors import FaultProxy

ROWS = 240


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The sandbox on each backend (a team's staging service runs on PostgreSQL)."""
    if request.param == "sqlite":
        yield from own_sandbox(tmp_path_factory, "two-machines")
        return
    from tests.fixtures.sandbox import SHARED_LOGIN_FAILURE_LIMIT, SandboxServer

    server = SandboxServer(request.getfixturevalue("postgres").new_database(),
                           login_failure_limit=SHARED_LOGIN_FAILURE_LIMIT)
    try:
        yield server
    finally:
        server.stop()


def test_two_machines_import_one_file_without_claiming_each_others_records(server: Any, cli: Any,
                                                                          tmp_path: Path) -> None:
    token = login_token(server, *ADMIN)["accessToken"]
    api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    branch = api.get("/api/branches", params={"pageSize": 1}).json()["data"][0]
    client = api.post("/api/clients", json={"name": "Two Machines Ltd", "branchId": branch["id"]}).json()
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i:04d},{i} Quay\n" for i in range(ROWS)), encoding="utf-8")
    proxies = [FaultProxy(server.url, drop=lambda method, _path: method == "POST", seed=seed, share=0.08,
                          unsent=True) for seed in (1, 2)]
    machines = []
    for name, proxy in zip("ab", proxies, strict=True):
        home = tmp_path / name
        machines.append({"WFCTL_CONFIG": str(home / "config.toml"), "XDG_STATE_HOME": str(home / "state"),
                         "WFCTL_BASE_URL": proxy.url, "WFCTL_ACCESS_TOKEN": token,
                         "REPORT": str(tmp_path / f"report-{name}.csv")})

    def run(env: dict[str, str], *args: str) -> Any:
        return cli.subprocess(*args, env=env, timeout=240)

    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda env: run(env, "sites", "import", str(path), "--client", client["id"],
                                                    "--concurrency", "4", "--report", env["REPORT"]), machines))
        for proxy in proxies:
            proxy.share = 0.0  # the undo below goes through machine a's proxy, dropping nothing
        _check(results, proxies, api, client["id"], machines, run)
    finally:
        for proxy in proxies:
            proxy.stop()
        api.close()


def _check(results: list[Any], proxies: list[FaultProxy], api: httpx.Client, client_id: str,
           machines: list[dict[str, str]], run: Any) -> None:
    reports = [Path(env["REPORT"]).read_text(encoding="utf-8") for env in machines]
    assert [r.exit_code for r in results] == [0, 0], [line for report in reports for line in report.splitlines()
                                                      if "failed" in line][:3]
    assert sum(p.dropped for p in proxies) > 0
    held = _sites(api, client_id)
    assert len(held) == ROWS and len({s["name"] for s in held}) == ROWS

    runs = []
    for env in machines:
        listed = json.loads(run(env, "imports", "list", "-o", "json").stdout)
        assert len(listed) == 1, listed
        runs.append(listed[0])
    created = [r["counts"].get("created", 0) for r in runs]
    assert sum(created) == ROWS, runs  # every row created once between them, none claimed twice
    assert [r["counts"].get("created", 0) + r["counts"].get("skipped", 0) for r in runs] == [ROWS, ROWS]

    undone = run(machines[0], "imports", "undo", runs[0]["run"], "--yes")
    assert undone.exit_code == 0, undone
    assert len(_sites(api, client_id)) == created[1]  # only machine a's records went


def _sites(api: httpx.Client, client_id: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        body = api.get(f"/api/clients/{client_id}/sites", params={"pageSize": 100, "pageNumber": page}).json()
        rows.extend(body["data"])
        if page >= body["pageCount"]:
            return rows
        page += 1
