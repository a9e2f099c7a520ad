"""Creates and deletes at the commit boundary (issue 30 §1), on PostgreSQL behind a TCP proxy that cuts the
sandbox's database connection right after a COMMIT went through (wfctl/sandbox/injectors/commits.py): the create
is answered as the committed one (never 409 to its own sender), the same Idempotency-Key replays it, and
wfctl's import and create count the record as theirs. Two DELETEs of one record at the same moment, through
two server processes on one database: one 200, one 404."""

from __future__ import annotations

import concurrent.futures
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers
from wfctl.sandbox.injectors import CommitCutProxy


@pytest.fixture
def cut(postgres: Any) -> Iterator[tuple[SandboxServer, CommitCutProxy]]:
    proxy = CommitCutProxy(postgres.new_database())
    server = SandboxServer(proxy.url)
    try:
        yield server, proxy
    finally:
        server.stop()
        proxy.stop()


def _client(server: SandboxServer, headers: dict[str, str]) -> str:
    branch = httpx.get(f"{server.url}/api/branches", headers=headers).json()["data"][0]["id"]
    answer = httpx.post(f"{server.url}/api/clients", headers=headers,
                        json={"name": f"Commit {uuid.uuid4().hex[:8]}", "branchId": branch})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _sites(server: SandboxServer, headers: dict[str, str], client: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{server.url}/api/clients/{client}/sites", headers=headers, params={"pageSize": 100})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


@pytest.mark.parametrize("keyed", [True, False])
def test_a_create_whose_commit_answer_was_cut_is_answered_as_made(cut: tuple[SandboxServer, CommitCutProxy],
                                                                  keyed: bool) -> None:
    server, proxy = cut
    headers = auth_headers(server, *ADMIN)
    client = _client(server, headers)
    key = {"Idempotency-Key": str(uuid.uuid4())} if keyed else {}
    proxy.cut_after(b"INSERT INTO sites")
    first = httpx.post(f"{server.url}/api/clients/{client}/sites", headers={**headers, **key},
                       json={"name": "Cut Depot"}, timeout=30)
    assert proxy.cuts == 1
    assert first.status_code == 201, first.text  # was 409: the sandbox ran its committed INSERT again
    held = _sites(server, headers, client)
    assert [site["id"] for site in held] == [first.json()["id"]]
    if keyed:
        again = httpx.post(f"{server.url}/api/clients/{client}/sites", headers={**headers, **key},
                           json={"name": "Cut Depot"}, timeout=30)
        assert (again.status_code, again.headers.get("idempotent-replayed")) == (201, "true"), again.text
        assert again.json()["id"] == first.json()["id"]


def test_a_create_whose_commit_outcome_could_not_be_asked_is_replayed_to_the_next_request(
        cut: tuple[SandboxServer, CommitCutProxy]) -> None:
    """The database stays unreachable for a moment after the cut: the create is a 503 (its outcome unknown),
    and the same key a moment later is answered with the committed record, not a second one or a 409."""
    server, proxy = cut
    headers = auth_headers(server, *ADMIN)
    client = _client(server, headers)
    key = {"Idempotency-Key": str(uuid.uuid4())}
    proxy.cut_after(b"INSERT INTO sites", refuse=1.0)
    first = httpx.post(f"{server.url}/api/clients/{client}/sites", headers={**headers, **key},
                       json={"name": "Failover Depot"}, timeout=30)
    assert first.status_code == 503, first.text
    deadline = time.monotonic() + 10
    while True:
        time.sleep(0.5)
        again = httpx.post(f"{server.url}/api/clients/{client}/sites", headers={**headers, **key},
                           json={"name": "Failover Depot"}, timeout=30)
        if again.status_code != 503 or time.monotonic() > deadline:
            break
    assert (again.status_code, again.headers.get("idempotent-replayed")) == (201, "true"), again.text
    assert [site["id"] for site in _sites(server, headers, client)] == [again.json()["id"]]


def test_an_import_and_a_create_through_cut_commits_count_what_they_made(cut: tuple[SandboxServer, CommitCutProxy],
                                                                        cli: Any, tmp_path: Path) -> None:
    server, proxy = cut
    headers = auth_headers(server, *ADMIN)
    client = _client(server, headers)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    rows = 30
    path = tmp_path / "sites.csv"
    path.write_text("name\n" + "".join(f"Depot {i}\n" for i in range(rows)), encoding="utf-8")
    proxy.cut_after(b"INSERT INTO sites", times=3)
    r = cli("sites", "import", str(path), "--client", client, "--concurrency", "4")
    assert r.exit_code == 0, r
    assert proxy.cuts == 3
    assert r.stderr.splitlines()[-1].endswith(f": created {rows}"), r.stderr
    proxy.cut_after(b"INSERT INTO sites")
    r = cli("sites", "create", "--client", client, "--name", "One More", "-o", "json")
    assert r.exit_code == 0, r
    assert proxy.cuts == 4
    assert len(_sites(server, headers, client)) == rows + 1
    run = json.loads(cli("imports", "list", "-o", "json").stdout)[0]["run"]
    r = cli("imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(f"deleted {rows} sites"), r.stderr
    assert [site["name"] for site in _sites(server, headers, client)] == ["One More"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_deletes_of_one_record_at_once_one_200_one_404(backend: str, request: pytest.FixtureRequest,
                                                           tmp_path: Path) -> None:
    """Two server processes on one database, each sent a DELETE of the same site at the same moment, 60
    sites: every site is deleted once (it was 200 twice: two undos of one run counted 2,040 deletes of
    2,000 sites)."""
    database = (request.getfixturevalue("postgres").new_database() if backend == "postgresql"
                else str(tmp_path / "deletes.db"))
    servers = [SandboxServer(database), SandboxServer(database, seed=False)]
    try:
        headers = auth_headers(servers[0], *ADMIN)
        client = _client(servers[0], headers)
        ids = []
        for i in range(60):
            answer = httpx.post(f"{servers[0].url}/api/clients/{client}/sites", headers=headers,
                                json={"name": f"Twice {i}"})
            assert answer.status_code == 201, answer.text
            ids.append(answer.json()["id"])
        sessions = [httpx.Client(base_url=server.url, headers=headers, timeout=30) for server in servers]
        barrier = concurrent.futures.ThreadPoolExecutor(2)

        def delete_both(site: str) -> list[int]:
            futures = [barrier.submit(session.delete, f"/api/sites/{site}") for session in sessions]
            return sorted(future.result().status_code for future in futures)

        statuses = [delete_both(site) for site in ids]
        for session in sessions:
            session.close()
        barrier.shutdown()
    finally:
        for server in servers:
            server.stop()
    assert all(pair == [200, 404] for pair in statuses), [pair for pair in statuses if pair != [200, 404]][:5]
