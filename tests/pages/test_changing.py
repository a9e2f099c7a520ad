"""Listings that change while they are read (issue 25 §3), on the sandbox over a real socket.

`--quirk churn-pages` deletes the list's first record and creates one at the end when a listing first
asks for a later page: the count stays the same and the record that was first on page 2 moves onto
page 1, already read. With page-number links nothing but a check of each boundary finds it. `--quirk
ignore-page-number` answers page 1 to every page. A mock transport only for a record repeated on a
page that is not the next one (no sandbox does that).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, auth_headers
from tests.pages.helpers import add_client, sdk_client
from wfctl.api.client import Client
from wfctl.api.errors import PaginationError

CHANGED = ("the list changed while it was read: records moved between pages faster than they could be read "
           "again; run it again")


def held(server: Any, client_id: str) -> list[str]:
    """The client's site ids as the database holds them now, in the service's order."""
    db = sqlite3.connect(server.db_path, timeout=10)
    try:
        return [row[0] for row in db.execute("SELECT id FROM sites WHERE client_id = ? ORDER BY created_on, id",
                                             (client_id,))]
    finally:
        db.close()


def assert_every_lasting_record_once_in_order(got: list[str], before: list[str], after: list[str]) -> None:
    lasting = [i for i in before if i in set(after)]
    assert len(got) == len(set(got)), "a record listed twice"
    assert [i for i in got if i in set(lasting)] == lasting  # none missing, in the service's order
    assert set(got) <= set(before) | set(after)


@pytest.mark.parametrize("form", ["int", "url", "object"])
@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_delete_and_a_create_between_two_pages_loses_no_record(sandbox_factory: Any, form: str,
                                                                 concurrency: int) -> None:
    server = sandbox_factory(quirks=["churn-pages", f"next-page={form}"])
    client_id, ids = add_client(server, 95)
    with sdk_client(server) as api:
        got = [site["id"] for site in api.iter_sites(client_id, page_size=10, concurrency=concurrency)]
    now = held(server, client_id)
    assert ids[0] not in now and len(now) == 95  # the sandbox did churn: one gone, one new, same count
    assert ids[10] in got  # the record that moved from page 2 onto page 1 after page 1 was read
    assert_every_lasting_record_once_in_order(got, ids, now)


def test_sites_list_all_and_api_paginate_list_the_record_that_moved(sandbox_factory: Any, cli: Any) -> None:
    server = sandbox_factory(quirks=["churn-pages", "next-page=int"])
    client_id, ids = add_client(server, 250)
    cli.login_as(server.url, *ADMIN)
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "jsonl")
    assert r.exit_code == 0, r
    got = [json.loads(line)["id"] for line in r.stdout.splitlines()]
    assert ids[100] in got
    assert_every_lasting_record_once_in_order(got, ids, held(server, client_id))

    before = held(server, client_id)
    r = cli("api", "GET", f"/api/clients/{client_id}/sites", "--paginate", "-o", "jsonl")
    assert r.exit_code == 0, r
    got = [json.loads(line)["id"] for line in r.stdout.splitlines()]
    assert before[10] in got  # api asks for pages of 10: the first of page 2 moved onto page 1
    assert_every_lasting_record_once_in_order(got, before, held(server, client_id))


def test_a_list_that_keeps_changing_stops_with_an_error(sandbox_factory: Any) -> None:
    """Before every request after page 1, another writer deletes the list's first 12 records and creates
    12 (more than a page moves back each time): the boundaries never settle, and the listing says so
    instead of giving a list with a gap."""
    server = sandbox_factory(quirks=["next-page=int"])
    client_id, _ = add_client(server, 60)
    headers = auth_headers(server, *ADMIN)

    class Churning(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()
            self.count = 0
            self.other = httpx.Client(base_url=server.url, headers=headers)

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if request.method == "GET" and "/sites" in request.url.path and "pageNumber" in request.url.params:
                self.count += 1
                first = self.other.get(f"/api/clients/{client_id}/sites", params={"pageSize": 12}).json()["data"]
                for n, site in enumerate(first):
                    assert self.other.delete(f"/api/sites/{site['id']}").status_code == 200
                    assert self.other.post(f"/api/clients/{client_id}/sites",
                                           json={"name": f"Churn {self.count}.{n}"}).status_code == 201
            return self.inner.handle_request(request)

        def close(self) -> None:
            self.other.close()
            self.inner.close()

    with sdk_client(server, transport=Churning()) as api, pytest.raises(PaginationError) as caught:
        list(api.iter_sites(client_id, page_size=10, concurrency=1))
    assert caught.value.one_line() == CHANGED


@pytest.mark.parametrize("extra", [["--all"], ["--limit", "12"]])
def test_a_service_that_ignores_page_number_stops_the_listing(sandbox_factory: Any, cli: Any,
                                                              extra: list[str]) -> None:
    server = sandbox_factory(quirks=["ignore-page-number", "next-page=int"])
    client_id, ids = add_client(server, 30)
    cli.login_as(server.url, *ADMIN)
    r = cli("sites", "list", "--client", client_id, "--page-size", "5", *extra, "-o", "jsonl")
    assert r.exit_code == 1, r
    assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == ids[:5]
    assert json.loads(r.stderr)["error"]["title"] == ("the service answered page 2 with only records it had "
                                                      "already given (does it ignore pageNumber?); stopped")
    r = cli("sites", "list", "--client", client_id, "--page-size", "5", *extra, "-o", "csv")
    assert r.exit_code == 1, r
    assert r.stderr.strip() == ("error: the service answered page 2 with only records it had already given "
                                "(does it ignore pageNumber?); stopped")


class RepeatingService(httpx.BaseTransport):
    """Pages of 10 by number; page 3 also carries the first record of page 1 (a record moved later)."""

    def __init__(self) -> None:
        self.rows = [{"id": f"r{i:03d}", "name": f"Row {i}"} for i in range(40)]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        number = int(request.url.params.get("pageNumber", "1"))
        size = int(request.url.params.get("pageSize", "10"))
        data = self.rows[(number - 1) * size:number * size]
        if size == 10 and number == 3:
            data = [*data[:5], self.rows[0], *data[5:]]
        return httpx.Response(200, json={"data": data, "pageNumber": number, "pageSize": size,
                                         "pageCount": -(-40 // size), "totalRecordCount": 40,
                                         "nextPage": number + 1 if number * size < 40 else None})


@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_record_repeated_on_a_later_page_is_listed_once(concurrency: int) -> None:
    with Client("http://127.0.0.1:9", transport=RepeatingService()) as api:
        got = [row["id"] for row in api.iter_branches(page_size=10, concurrency=concurrency)]
    assert got == [f"r{i:03d}" for i in range(40)]
