"""The matrix: every entry point of wfctl against the default sandbox and each quirk (contract part 1).

A deployment is a sandbox playing some quirks, plus a default sandbox on the same database file:
tests set records up and read back what the server holds through the default one, so what they see
never depends on the quirk under test. Deployments start once per session, on first use.

    @pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
    def test_x(deployment: Deployment, run: Run) -> None:
        branch = deployment.create("branches", address="1 Dock Rd")   # through the default server
        result = run("branches", "update", branch["id"], "--phone", "0161")   # wfctl against the quirky one
        assert deployment.get("branches", branch["id"])["phone"] == "0161"
"""

from __future__ import annotations

import contextlib
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import Cli, Result
from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token

# Deployments, each id the quirks joined by "+" ("default" plays none). Each test crosses the entry point
# it drives with every deployment whose quirks change the requests that entry point makes (a quirk of
# POST answers cannot change a GET), so the matrix stays fast enough to run on every change.
PAGING = ["next-page=int", "next-page=string", "next-page=relative", "next-page=object", "next-page=missing",
          "ignore-branch-filter"]
CREATING = ["drop-create-answer", "ignore-idempotency-key", "drop-create-answer+ignore-idempotency-key",
            "create-200"]
# A lost create answer where nothing else stops a second record: only a look-up by natural key helps.
LOST_WITHOUT_UNIQUENESS = "drop-create-answer+ignore-idempotency-key+no-unique-names"
FOR_CREATES = ["default", *CREATING, LOST_WITHOUT_UNIQUENESS]
FOR_RECORDS = ["default", "put-clears"]  # get, update, delete of one record
FOR_LISTS = ["default", *PAGING]
FOR_ROUND_TRIPS = ["default", "put-clears", *PAGING]  # list or export, then import (updates)
# Lists that change while they are read (G7: a delete and a create between two pages), or a service that
# answers page 1 to every page: their own tests (test_changing_lists.py), since they change the records.
CHANGING_LISTS = ["churn-pages+next-page=int", "churn-pages+next-page=object", "churn-pages"]
IGNORED_PAGE_NUMBER = ["ignore-page-number+next-page=int", "ignore-page-number"]
ERROR_FORMS = ["errors=problem", "errors=message", "errors=error", "errors=list", "errors=text", "errors=html",
               "errors=empty"]

# The path of each resource and the record a test starts from: every writable field set, so that a
# field cleared by mistake shows.
PATHS = {"branches": "/api/branches", "clients": "/api/clients", "sites": "/api/sites"}
STAMPS = ("createdOn", "modifiedOn", "updatedOn")


class Deployment:
    """`url` (the quirky server), `token`, `quirks`; set-up and read-back through the default server."""

    def __init__(self, quirks: list[str], directory: Path) -> None:
        db = str(directory / f"{uuid.uuid4().hex}.db")
        self.plain_server = SandboxServer(db, seed=False)
        self.server = SandboxServer(db, seed=False, quirks=quirks) if quirks else self.plain_server
        self.url = self.server.url
        self.quirks = quirks
        self.token = login_token(self.plain_server, *ADMIN)["accessToken"]
        self.plain = httpx.Client(base_url=self.plain_server.url, timeout=10,
                                  headers={"Authorization": f"Bearer {self.token}"})

    @classmethod
    @contextlib.contextmanager
    def running(cls, name: str, directory: Path) -> Iterator[Deployment]:
        """A deployment of one quirk (`default`: none) for one test, stopped after it."""
        deployment = cls([] if name == "default" else [name], directory)
        try:
            yield deployment
        finally:
            deployment.stop()

    def request_stop(self) -> None:
        self.plain.close()
        self.server.request_stop()
        self.plain_server.request_stop()

    def stop(self) -> None:
        self.request_stop()
        self.server.stop()
        self.plain_server.stop()

    # ---- set-up, through the default server --------------------------------------------------

    def branch(self, **fields: Any) -> dict[str, Any]:
        return self._post("/api/branches", {"name": unique("Branch"), "address": "1 Dock Rd, Leeds",
                                            "phone": "+44 113 496 0000", "email": "branch@example.com", **fields})

    def client(self, branch_id: str | None = None, **fields: Any) -> dict[str, Any]:
        branch_id = branch_id or self.branch()["id"]
        return self._post("/api/clients", {"name": unique("Client"), "branchId": branch_id,
                                           "email": "client@example.com", "phone": "+44 161 496 0000",
                                           "billingAddress": "2 Ledger St, Leeds", **fields})

    def site(self, client_id: str | None = None, **fields: Any) -> dict[str, Any]:
        client_id = client_id or self.client()["id"]
        return self._post(f"/api/clients/{client_id}/sites", {
            "name": unique("Site"), "address": "3 Quay, Hull", "phone": "+44 1482 496000",
            "email": "site@example.com", "assessmentRequired": True,
            "rates": [{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11.5}],
            "departments": [{"name": "Goods In", "contactPerson": "Ann Lee", "email": "ann@example.com"}],
            "bannedWorkers": ["W-1", "W-2"], **fields})

    def make(self, kind: str) -> dict[str, Any]:
        """A record of `kind` (branches, clients, sites) with every writable field set."""
        return {"branches": self.branch, "clients": self.client, "sites": self.site}[kind]()

    # ---- read-back, through the default server ---------------------------------------------

    def get(self, kind: str, record_id: str) -> dict[str, Any] | None:
        """The record as the server holds it, without timestamps; None when there is none."""
        response = self.plain.get(f"{PATHS[kind]}/{record_id}")
        if response.status_code == 404:
            return None
        assert response.status_code == 200, response.text
        return without_stamps(response.json())

    def all(self, path: str, **params: Any) -> list[dict[str, Any]]:
        """Every list item under `path` (e.g. /api/branches), in the service's order."""
        records: list[dict[str, Any]] = []
        page = 1
        while True:
            response = self.plain.get(path, params={"pageSize": 100, "pageNumber": page, **params})
            assert response.status_code == 200, response.text
            body = response.json()
            records.extend(body["data"])
            if page >= body["pageCount"]:
                return records
            page += 1

    def named(self, path: str, name: str, **params: Any) -> list[dict[str, Any]]:
        return [row for row in self.all(path, **params) if row["name"] == name]

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.plain.post(path, json=body)
        assert response.status_code == 201, response.text
        return response.json()  # type: ignore[no-any-return]


Run = Callable[..., Result]


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def without_stamps(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in STAMPS}


@pytest.fixture(scope="session")
def deployments() -> Iterator[Callable[[str], Deployment]]:
    started: dict[str, Deployment] = {}
    directory = tempfile.TemporaryDirectory(prefix="wfctl-matrix-")

    def get(name: str) -> Deployment:
        if name not in started:
            quirks = [] if name == "default" else name.split("+")
            started[name] = Deployment(quirks, Path(directory.name))
        return started[name]

    try:
        yield get
    finally:
        for deployment in started.values():  # every server winds down at once
            deployment.request_stop()
        for deployment in started.values():
            deployment.stop()
        directory.cleanup()


@pytest.fixture
def deployment(request: pytest.FixtureRequest, deployments: Callable[[str], Deployment]) -> Deployment:
    """The deployment named by `@pytest.mark.parametrize("deployment", [...], indirect=True)`."""
    return deployments(request.param)


@pytest.fixture
def run(cli: Cli, deployment: Deployment) -> Run:
    """wfctl against the deployment (its quirky server), with the admin's access token."""
    env = {"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token}

    def invoke(*args: str, **kwargs: Any) -> Result:
        return cli(*args, env={**env, **kwargs.pop("env", {})}, **kwargs)

    return invoke


@pytest.fixture
def sdk(deployment: Deployment) -> Iterator[Any]:
    """`wfctl.api.Client` on the deployment, as a script would build it."""
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    with Client(deployment.url, auth=StaticTokenAuth(deployment.token, deployment.url)) as client:
        yield client
