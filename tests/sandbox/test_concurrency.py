"""Concurrent writers: every create lands exactly once, and a duplicate name is a 409, never a 500."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.fixtures.sandbox import ADMIN, SandboxServer
from tests.sandbox.helpers import all_pages, api_client, create_client, unique

WORKERS = 8
SITES = 1000


def _create_sites(server: SandboxServer, token: str, client_id: str, names: list[str]) -> Counter[int]:
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=server.url, headers={"Authorization": token}, timeout=30) as client:
        for name in names:
            response = client.post(f"/api/clients/{client_id}/sites",
                                   json={"name": name, "rates": [{"skill": "Picker", "hourlyRate": 11.5}]})
            statuses[response.status_code] += 1
    return statuses


def test_8_clients_create_1000_sites(sandbox_factory) -> None:  # type: ignore[no-untyped-def]
    server = sandbox_factory()
    with api_client(server, ADMIN) as admin:
        branch_id = all_pages(admin, "/api/branches")[0]["id"]
        client = create_client(admin, branch_id)
        token = admin.headers["Authorization"]
        names = [f"Site {i:04d}" for i in range(SITES)]
        shards = [names[i::WORKERS] for i in range(WORKERS)]
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(lambda shard: _create_sites(server, token, client["id"], shard), shards))
        statuses = sum(results, Counter())
        assert statuses == Counter({201: SITES})
        sites = all_pages(admin, f"/api/clients/{client['id']}/sites")
        assert len(sites) == SITES and len({s["id"] for s in sites}) == SITES
        assert sorted(s["name"] for s in sites) == names
        page = admin.get(f"/api/clients/{client['id']}/sites").json()
        assert page["totalRecordCount"] == SITES and page["pageCount"] == SITES // 10


def _race(urls: list[str], token: str, path: str, body: dict[str, object]) -> Counter[int]:
    """Send the same create from many connections at once (released together by a barrier)."""
    barrier = threading.Barrier(len(urls))

    def one(url: str) -> int:
        with httpx.Client(base_url=url, headers={"Authorization": token}, timeout=30) as client:
            client.get("/api/agency/")  # connect before the start line
            barrier.wait(timeout=30)
            return client.post(path, json=body).status_code

    with ThreadPoolExecutor(len(urls)) as pool:
        return Counter(pool.map(one, urls))


def test_a_duplicate_name_under_concurrency_is_409_never_500(sandbox: SandboxServer, admin: httpx.Client,
                                                            other_branch_id: str) -> None:
    token = admin.headers["Authorization"]
    client = create_client(admin, other_branch_id)
    for round_ in range(5):
        name = unique(f"Race {round_}")
        site_path = f"/api/clients/{client['id']}/sites"
        assert _race([sandbox.url] * WORKERS, token, site_path, {"name": name}) == Counter({201: 1, 409: 7})
        assert _race([sandbox.url] * WORKERS, token, "/api/branches", {"name": name}) == Counter({201: 1, 409: 7})
        assert _race([sandbox.url] * WORKERS, token, "/api/clients",
                     {"name": name, "branchId": other_branch_id}) == Counter({201: 1, 409: 7})
    assert len(all_pages(admin, f"/api/clients/{client['id']}/sites")) == 5


def test_two_servers_on_one_database_keep_names_unique(sandbox_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "shared.db")
    first = sandbox_factory(db_path=db)
    second = sandbox_factory(db_path=db)  # a second process-like writer: its own connection, same file
    with api_client(first, ADMIN) as admin:
        branch_id = all_pages(admin, "/api/branches")[0]["id"]
        client = create_client(admin, branch_id)
        token = admin.headers["Authorization"]
        for round_ in range(3):
            statuses = _race([first.url, second.url] * 4, token, f"/api/clients/{client['id']}/sites",
                             {"name": f"Shared {round_}"})
            assert statuses == Counter({201: 1, 409: 7})
        assert len(all_pages(admin, f"/api/clients/{client['id']}/sites")) == 3
