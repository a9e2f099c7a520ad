"""The data `wfctl audit`'s tests read: a sandbox of the package's own, unseeded, holding records made to trip
every check, and one client whose data is clean."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers


class World:
    """Two branches; Ashworth Foods (branch 1) and Calder Logistics (branch 2) whose sites trip every check;
    Kirkby Cleaning (branch 2), whose one site is clean."""

    def __init__(self, server: SandboxServer) -> None:
        self.url = server.url
        self.db_path = server.db_path
        self.http = httpx.Client(base_url=server.url, headers=auth_headers(server, *ADMIN), timeout=10)
        one, two = self.post("/api/branches", name="Audit North"), self.post("/api/branches", name="Audit South")
        self.ashworth = self.client("Ashworth Foods", one)
        self.calder = self.client("Calder Logistics", two)
        self.kirkby = self.client("Kirkby Cleaning", two)
        self.branch_one, self.branch_two = one, two
        ann = {"name": "Goods In", "contactPerson": "Ann Lee", "email": "ann@ashworth.test"}
        self.bakery = self.site(self.ashworth, "Ashworth Bakery", rates=[
            {"skill": "Forklift Driver", "hourlyRate": 13.0}, {"skill": "Picker Packer", "hourlyRate": 11.85}],
            departments=[ann], bannedWorkers=["W-1"])
        self.cold = self.site(self.ashworth, "Ashworth Cold Store", rates=[
            {"skill": "Forklift driver", "hourlyRate": 12.8}, {"skill": "Cleaner", "hourlyRate": 12.71}],
            departments=[{"name": "Dispatch", "contactPerson": "Bob Ray", "email": ""}], bannedWorkers=["W-1"])
        self.dock = self.site(self.ashworth, "Ardwick Cross-Dock", rates=[], departments=[ann], bannedWorkers=[],
                              assessmentRequired=True)
        self.crossdock = self.site(self.calder, "ardwick crossdock ltd",
                                   rates=[{"skill": "Forklift Driver", "hourlyRate": 17.5}], departments=[ann])
        self.yard = self.site(self.calder, "Calder Yard", rates=[{"skill": "Picker Packer", "hourlyRate": 17.48}],
                              departments=[ann])
        self.clean = self.site(self.kirkby, "Kirkby Depot", rates=[{"skill": "Cleaner", "hourlyRate": 18.0}],
                               departments=[ann])

    def post(self, path: str, **body: Any) -> str:
        response = self.http.post(path, json={"address": "1 Mill Lane", "phone": "+44 161 496 0000",
                                              "email": "office@audit.test", **body})
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def client(self, name: str, branch: str) -> str:
        response = self.http.post("/api/clients", json={"name": name, "branchId": branch,
                                                         "email": "ap@audit.test", "phone": "+44 161 496 0001"})
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def site(self, client: str, name: str, **fields: Any) -> str:
        return self.post(f"/api/clients/{client}/sites", name=name,
                         **{"assessmentRequired": False, "bannedWorkers": [], **fields})


@pytest.fixture(scope="package")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    server = SandboxServer(str(tmp_path_factory.mktemp("audit") / "sandbox.db"), seed=False)
    try:
        made = World(server)
        yield made
        made.http.close()
    finally:
        server.stop()


@pytest.fixture
def wf(cli: Any, world: World) -> Any:
    assert cli.login_as(world.url, *ADMIN).exit_code == 0
    return cli
