"""The page reader (issue 17) against the sandbox over a real socket: the service's order with no gap
or repeat (also while records are added or removed), pages fetched several at a time and no more than
a window ahead, the one-by-one fallback for cursor links, 429s during parallel reads, and a page size
capped by the service (G7). A mock transport only where the sandbox cannot play the deployment (cursor
links, no pageCount)."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, auth_headers
from tests.pages.helpers import add_client, sdk_client
from wfctl.api.client import Client


def gets(lines: list[str], *, pages: bool = False) -> list[str]:
    """The GETs of a log; `pages`: only the pages, not the boundary checks' small blocks (pageSize < 10 here)."""
    return [line for line in lines if line.startswith("> GET")
            and not (pages and re.search(r"pageSize=[1-9](&|$)", line))]


@pytest.mark.parametrize("form", ["url", "int", "string", "relative", "object", "missing"])
def test_every_form_gives_every_row_once_in_order(sandbox_factory: Any, form: str) -> None:
    server = sandbox_factory(quirks=[f"next-page={form}"])
    client_id, ids = add_client(server, 253)
    with sdk_client(server) as api:
        got = [site["id"] for site in api.iter_sites(client_id, page_size=10)]
    assert got == ids


def test_pages_after_the_first_go_several_at_a_time(sandbox_factory: Any) -> None:
    server = sandbox_factory(latency_ms=50)
    client_id, ids = add_client(server, 400)
    with sdk_client(server) as api:
        started = time.monotonic()
        got = [site["id"] for site in api.iter_sites(client_id, page_size=10)]
        took = time.monotonic() - started
    assert got == ids
    # 40 pages one after another take 2 s at 50 ms; 8 at a time about 0.3 s
    assert took < 1.2, took


def test_all_asks_for_the_largest_page_and_takes_the_size_the_service_serves(sandbox_factory: Any) -> None:
    server = sandbox_factory()
    client_id, ids = add_client(server, 250)
    lines: list[str] = []
    with sdk_client(server, log=lines.append) as api:
        pages = list(api.list_sites(client_id, all_pages=True))
        assert [len(p.data) for p in pages] == [100, 100, 50]
        assert [row["id"] for p in pages for row in p.data] == ids
        lines.clear()
        capped = list(api.list_sites(client_id, page_size=500, all_pages=True))  # G7: served as 100
    assert [p.page_size for p in capped] == [100, 100, 100]
    assert [row["id"] for p in capped for row in p.data] == ids
    assert len(gets(lines, pages=True)) == 3
    assert len(gets(lines)) == 3  # links holding a cursor: the service's own positions, no boundary checks


def test_limit_stops_fetching(sandbox_factory: Any) -> None:
    server = sandbox_factory()
    client_id, ids = add_client(server, 200)
    lines: list[str] = []
    with sdk_client(server, log=lines.append) as api:
        rows = [row["id"] for p in api.list_sites(client_id, page_size=10, all_pages=True, limit=25)
                for row in p.data]
    assert rows[:25] == ids[:25]
    assert len(gets(lines, pages=True)) == 3


def test_memory_is_a_window_of_pages_not_the_list(sandbox_factory: Any) -> None:
    server = sandbox_factory(latency_ms=20)
    client_id, _ = add_client(server, 1000)
    lines: list[str] = []
    with sdk_client(server, log=lines.append) as api:
        pages = api.list_sites(client_id, page_size=10, all_pages=True, concurrency=4)
        next(pages)
        time.sleep(0.5)  # a slow reader: the fetching waits for it
        pages.close()
        sent = len(gets(lines, pages=True))
    assert sent <= 1 + 4 * 2, sent  # the first page and a window of 2 pages a request in flight


def test_rows_added_or_removed_while_paging_come_once(sandbox_factory: Any) -> None:
    """Three records of page 1 deleted and five created once page 1 was read: every record that was
    there throughout comes exactly once, in order, with the new ones after (G7 pages are offsets)."""
    server = sandbox_factory()
    client_id, ids = add_client(server, 95)
    headers = auth_headers(server, *ADMIN)
    created: list[str] = []

    class AfterFirstPage(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()
            self.done = False

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = self.inner.handle_request(request)
            if request.method == "GET" and "/sites" in request.url.path and not self.done:
                self.done = True
                response.read()
                with httpx.Client(base_url=server.url, headers=headers) as other:
                    for site_id in ids[2:5]:
                        assert other.delete(f"/api/sites/{site_id}").status_code == 200
                    for i in range(5):
                        answer = other.post(f"/api/clients/{client_id}/sites", json={"name": f"New {i}"})
                        created.append(answer.json()["id"])
                # the body was read here: hand on an answer holding it (wfctl reads the stream itself)
                return httpx.Response(response.status_code, headers=response.headers, content=response.content)
            return response

        def close(self) -> None:
            self.inner.close()

    with sdk_client(server, transport=AfterFirstPage()) as api:
        got = [site["id"] for site in api.iter_sites(client_id, page_size=10)]
    assert len(got) == len(set(got))
    assert got[:95] == ids  # the deleted three were listed (they were there when page 1 was read)
    assert sorted(got[95:]) == sorted(created)


def test_a_rate_limit_during_parallel_reads_pauses_them_all(sandbox_factory: Any) -> None:
    server = sandbox_factory(rate_limit=10)
    client_id, ids = add_client(server, 300)
    lines: list[str] = []
    time.sleep(1.1)  # the set-up's login is in another second
    with sdk_client(server, log=lines.append) as api:
        started = time.monotonic()
        got = [site["id"] for site in api.iter_sites(client_id, page_size=10, concurrency=8)]
        took = time.monotonic() - started
    assert got == ids
    refused = [line for line in lines if "HTTP 429: retrying" in line]
    assert refused and took >= 1.0  # 30 pages at 10 a second: the pool waited, and every page came
    # one pause for all: a second's refusals are the requests in flight then, not retries of retries
    assert len(refused) <= 8 * (int(took) + 1), (len(refused), took)


class CursorService(httpx.BaseTransport):
    """A deployment whose links are cursors (or that gives no pageCount): nothing to fetch ahead."""

    def __init__(self, rows: int, *, page_count: bool) -> None:
        self.rows = [{"id": f"r{i:04d}", "name": f"Row {i}"} for i in range(rows)]
        self.page_count = page_count
        self.in_flight = 0
        self.most = 0
        self.lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        try:
            time.sleep(0.01)
            start = int(request.url.params.get("cursor", "0"))
            data = self.rows[start:start + 10]
            body: dict[str, Any] = {"data": data, "pageNumber": start // 10 + 1, "pageSize": 10,
                                    "totalRecordCount": len(self.rows)}
            if self.page_count:
                body["pageCount"] = -(-len(self.rows) // 10)
            more = start + 10 < len(self.rows)
            body["nextPage"] = f"/api/branches?cursor={start + 10}" if more else None
            return httpx.Response(200, json=body)
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.mark.parametrize("page_count", [True, False])
def test_cursor_links_are_followed_one_by_one(page_count: bool) -> None:
    service = CursorService(95, page_count=page_count)
    with Client("http://127.0.0.1:9", transport=service) as api:
        got = [row["id"] for row in api.iter_branches()]
    assert got == [row["id"] for row in service.rows]
    assert service.most == 1


class NumberedCursorService(httpx.BaseTransport):
    """Links that name the next page by number and carry a cursor that changes every `stretch` pages
    (1: on every page), as the sandbox's do every 32. Counts the pages asked for."""

    def __init__(self, rows: int, stretch: int) -> None:
        self.rows = [{"id": f"r{i:04d}", "name": f"R {i}"} for i in range(rows)]
        self.stretch = stretch
        self.asked = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.asked += 1
        number = int(request.url.params.get("pageNumber", "1"))
        data = self.rows[(number - 1) * 10:number * 10]
        pages = -(-len(self.rows) // 10)
        body: dict[str, Any] = {"data": data, "pageNumber": number, "pageSize": 10, "pageCount": pages,
                                "totalRecordCount": len(self.rows), "nextPage": None}
        if number < pages:
            body["nextPage"] = f"/api/branches?pageSize=10&pageNumber={number + 1}&cursor=c{number // self.stretch}"
        return httpx.Response(200, json=body)


@pytest.mark.parametrize("stretch", [1, 5, 32])
def test_pages_fetched_ahead_stay_within_how_long_the_links_held(stretch: int) -> None:
    """Pages fetched ahead by a link that the next link no longer names are wasted requests: after the
    first change, the reader fetches ahead no further than the last link held (a cursor that changes on
    every page: one by one, no waste)."""
    service = NumberedCursorService(1000, stretch)
    with Client("http://127.0.0.1:9", transport=service) as api:
        got = [row["id"] for row in api.iter_branches(page_size=10)]
    assert got == [row["id"] for row in service.rows]
    # the first window, and a quarter of a stretch once more (the first stretch seen may be one page short)
    assert service.asked <= 100 + 16 + 8, service.asked


def test_the_sandboxs_links_are_fetched_ahead_with_one_window_wasted_at_most(sandbox_factory: Any) -> None:
    server = sandbox_factory()
    client_id, ids = add_client(server, 2000)
    lines: list[str] = []
    with sdk_client(server, log=lines.append) as api:
        assert [row["id"] for row in api.iter_sites(client_id, page_size=10)] == ids
    assert 200 <= len(gets(lines)) <= 200 + 16 + 8, len(gets(lines))  # its cursor changes every 32 pages


def test_import_plan_reads_many_parents_at_once(sandbox_factory: Any, cli: Any, tmp_path: Any) -> None:
    """A plan of 40 rows over 40 clients: 80 GETs, 4 s one after another at 50 ms."""
    server = sandbox_factory(latency_ms=50)
    clients = [add_client(server, 3)[0] for _ in range(40)]
    cli.login_as(server.url, *ADMIN)
    rows = "".join(f"{cid},Plan site {i}\n" for i, cid in enumerate(clients))
    (tmp_path / "rows.csv").write_text("clientId,name\n" + rows, encoding="utf-8")
    started = time.monotonic()
    r = cli("sites", "import", str(tmp_path / "rows.csv"), "--dry-run", "--concurrency", "16")
    took = time.monotonic() - started
    assert r.exit_code == 0, r
    assert "to create" in r.stdout and "40" in r.stdout
    assert took < 2.5, took


@pytest.mark.parametrize(("extra", "expected"), [([], 16), (["--concurrency", "5"], 5)])
def test_export_reads_16_records_at_once_by_default(logged_in: Any, monkeypatch: Any, extra: list[str],
                                                    expected: int) -> None:
    import wfctl.drivers.exportrun
    from tests.bulk.helpers import new_client

    client_id = new_client(logged_in)  # export checks its parent before anything is written
    seen: dict[str, Any] = {}
    monkeypatch.setattr(wfctl.drivers.exportrun, "run_export", lambda app, kind, **kw: seen.update(kw) or 0)
    r = logged_in("sites", "export", "--client", client_id, *extra)
    assert r.exit_code == 0, r
    assert seen["concurrency"] == expected


def test_pages_by_number_have_each_boundary_checked_once(sandbox_factory: Any) -> None:
    server = sandbox_factory(quirks=["next-page=int"])
    client_id, ids = add_client(server, 250)
    lines: list[str] = []
    with sdk_client(server, log=lines.append) as api:
        assert [row["id"] for row in api.iter_sites(client_id)] == ids
    assert len(gets(lines, pages=True)) == 3
    assert len(gets(lines)) == 3 + 2  # one small block around each of the two boundaries
