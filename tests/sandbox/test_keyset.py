"""Pages that cost the same at any depth (issue 10 section 3): the cursor in nextPage/previousPage.

The sandbox's URL links name the page by number and carry a cursor: a forward one says "page p ends
at this (createdOn, id)", and the server seeks past it, skipping whole pages only up to the page asked
for (at most SEEK_SPAN_PAGES - 1 while links are followed); a backward one says "page q starts here".
What holds, tested below:

- the pages reached by following links are the pages of the same numbers (same rows, same order,
  same envelope), forwards and backwards, across the re-anchoring every SEEK_SPAN_PAGES pages;
- rows added between pages (a create sorts last: its createdOn is now) appear once, at the end; no row
  is given twice or left out;
- a row deleted at or before a cursor's sort key moves nothing (the seek is by value, so deleting the
  very row the cursor names too); a row deleted between that key and the page asked for moves the
  later rows back as OFFSET would (the count drops, and previousPage, a seek back from the page's first
  row, gives the row that moved), which wfctl's reader mends;
- `pageNumber` alone is a direct jump; a malformed, altered or foreign cursor is a 400 problem.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.sandbox.helpers import assert_problem, create_branch, create_client, create_site
from wfctl.sandbox.app import SEEK_SPAN_PAGES
from wfctl.sandbox.store import open_store

ENVELOPE = ("pageNumber", "pageSize", "pageCount", "totalRecordCount")


def _query(link: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}


def _ids(page: dict[str, Any]) -> list[str]:
    return [row["id"] for row in page["data"]]


def _follow(http: httpx.Client, path: str, **params: Any) -> list[dict[str, Any]]:
    page = http.get(path, params=params).json()
    pages = [page]
    while page["nextPage"] is not None:
        response = http.get(page["nextPage"])
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
    return pages


def _in_order(records: list[dict[str, Any]]) -> list[str]:
    """The ids in list order (G7): createdOn (whole seconds), then id."""
    return [r["id"] for r in sorted(records, key=lambda r: (r["createdOn"], r["id"]))]


def _client_with_sites(admin: httpx.Client, count: int) -> tuple[str, list[str]]:
    client = create_client(admin, create_branch(admin)["id"])
    return client["id"], _in_order([create_site(admin, client["id"]) for _ in range(count)])


def test_followed_links_give_the_numbered_pages_forwards_and_backwards(admin: httpx.Client) -> None:
    client_id, created = _client_with_sites(admin, 2 * SEEK_SPAN_PAGES + 11)  # 38 pages of 2: a new anchor on page 33
    path = f"/api/clients/{client_id}/sites"
    pages = _follow(admin, path, pageSize=2)
    assert len(pages) == SEEK_SPAN_PAGES + 6
    cursors = set()
    for number, page in enumerate(pages, start=1):
        numbered = admin.get(path, params={"pageSize": 2, "pageNumber": number}).json()
        assert page["data"] == numbered["data"]
        assert [page[k] for k in ENVELOPE] == [numbered[k] for k in ENVELOPE] == [number, 2, len(pages), len(created)]
        if page["nextPage"] is not None:
            query = _query(page["nextPage"])
            assert query["pageNumber"] == str(number + 1) and query["pageSize"] == "2"
            cursors.add(query["cursor"])
    assert [row for page in pages for row in _ids(page)] == created
    # one cursor per SEEK_SPAN_PAGES pages: links differ only in pageNumber in between (fetch-ahead by number)
    assert len(cursors) == -(-(len(pages) - 1) // SEEK_SPAN_PAGES)

    page, back = pages[-1], [pages[-1]]
    while page["previousPage"] is not None:
        page = admin.get(page["previousPage"]).json()
        back.append(page)
    back.reverse()
    assert [p["data"] for p in back] == [p["data"] for p in pages]
    assert [p["pageNumber"] for p in back] == list(range(1, len(pages) + 1))


def test_branches_and_filtered_clients_follow_cursors(admin: httpx.Client) -> None:
    branch = create_branch(admin)
    mine = _in_order([create_client(admin, branch["id"]) for _ in range(7)])
    create_client(admin, create_branch(admin)["id"])  # another branch's client: not in the filtered list
    pages = _follow(admin, "/api/clients", pageSize=2, branchId=branch["id"])
    assert [row for page in pages for row in _ids(page)] == mine
    assert all(_query(p["nextPage"])["branchId"] == branch["id"] for p in pages[:-1])
    assert [p["totalRecordCount"] for p in pages] == [7] * 4

    total = admin.get("/api/branches").json()["totalRecordCount"]
    followed = [row for page in _follow(admin, "/api/branches", pageSize=3) for row in _ids(page)]
    numbered = [row for n in range(1, -(-total // 3) + 1)
                for row in _ids(admin.get("/api/branches", params={"pageSize": 3, "pageNumber": n}).json())]
    assert followed == numbered and len(followed) == total


def test_rows_added_between_pages_appear_once_at_the_end(admin: httpx.Client) -> None:
    client_id, created = _client_with_sites(admin, 12)
    path = f"/api/clients/{client_id}/sites"
    page = admin.get(path, params={"pageSize": 5}).json()
    seen = _ids(page)
    added: list[dict[str, Any]] = []
    time.sleep(1.05)  # createdOn is in whole seconds: the rows added now sort after every row there was
    while page["nextPage"] is not None:
        added.append(create_site(admin, client_id))  # between every two pages
        page = admin.get(page["nextPage"]).json()
        seen += _ids(page)
        assert page["totalRecordCount"] == len(created) + len(added)
    assert seen == created + _in_order(added)


def test_deleted_rows(admin: httpx.Client) -> None:
    client_id, created = _client_with_sites(admin, 12)
    path = f"/api/clients/{client_id}/sites"
    first = admin.get(path, params={"pageSize": 3}).json()
    second = admin.get(first["nextPage"]).json()
    assert second["nextPage"].split("&cursor=")[1] == first["nextPage"].split("&cursor=")[1]  # same anchor
    # before the anchor (page 1's last row, the very row the cursor names): nothing moves
    assert admin.delete(f"/api/sites/{created[2]}").status_code == 200
    third = admin.get(second["nextPage"]).json()
    assert _ids(third) == created[6:9] and third["totalRecordCount"] == 11
    # past the anchor, on a page already read: later rows move back one, as with OFFSET
    assert admin.delete(f"/api/sites/{created[4]}").status_code == 200
    fourth = admin.get(third["nextPage"]).json()
    assert _ids(fourth) == created[10:12] and fourth["totalRecordCount"] == 10
    again = admin.get(fourth["previousPage"]).json()  # a seek back from fourth's first row
    assert _ids(again) == created[7:10] and again["pageNumber"] == 3


def test_page_number_jumps_still_work(admin: httpx.Client) -> None:
    client_id, created = _client_with_sites(admin, 20)
    path = f"/api/clients/{client_id}/sites"
    for number in (1, 3, 7, 8):
        page = admin.get(path, params={"pageSize": 3, "pageNumber": number}).json()
        assert _ids(page) == created[(number - 1) * 3:number * 3] and page["pageNumber"] == number
    link = admin.get(path, params={"pageSize": 3, "pageNumber": 2}).json()["nextPage"]  # anchored at page 2
    cursor = _query(link)["cursor"]
    for number in (1, 2, 3, 5, 7, 8):  # with the cursor: behind it a jump, past it a seek and a skip
        page = admin.get(path, params={"pageSize": 3, "pageNumber": number, "cursor": cursor}).json()
        assert _ids(page) == created[(number - 1) * 3:number * 3] and page["pageNumber"] == number
    assert _ids(admin.get(path, params={"pageSize": 3, "cursor": cursor}).json()) == created[6:9]  # page 3


@pytest.mark.parametrize("how", ["garbage", "no-dot", "bad-base64", "altered", "other-list", "other-size",
                                 "not-json"])
def test_a_malformed_or_forged_cursor_is_a_400(admin: httpx.Client, how: str) -> None:
    client_id, _ = _client_with_sites(admin, 5)
    path = f"/api/clients/{client_id}/sites"
    cursor = _query(admin.get(path, params={"pageSize": 2}).json()["nextPage"])["cursor"]
    body, mac = cursor.split(".")
    params: dict[str, Any] = {"pageSize": 2}
    if how == "garbage":
        params["cursor"] = "hello"
    elif how == "no-dot":
        params["cursor"] = body
    elif how == "bad-base64":
        params["cursor"] = f"{body}!.{mac}"
    elif how == "altered":  # page 1's end moved to another key, the signature kept
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        payload[0] = 5
        params["cursor"] = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=") + "." + mac
    elif how == "other-list":
        path = "/api/branches"
        params["cursor"] = cursor
    elif how == "other-size":
        params = {"pageSize": 3, "cursor": cursor}
    else:
        params["cursor"] = "bm90IGpzb24." + mac
    assert_problem(admin.get(path, params=params), 400, "cursor")


def test_counts_follow_writes_and_other_connections(new_database: Callable[[], str]) -> None:
    db = new_database()
    one, other = open_store(db), open_store(db)
    try:
        assert one.cursor_key == other.cursor_key  # one key per database: every server takes the others' links
        where = "name = ?"
        assert one.count("agencies", where, ["x"]) == 0
        other.db.execute("INSERT INTO agencies (id, name, calendar_year_start, holiday_year_start) "
                         "VALUES ('a', 'x', '01-01', '01-01')")
        assert one.count("agencies", where, ["x"]) == 1  # another connection's commit
        one.db.execute("INSERT INTO agencies (id, name, calendar_year_start, holiday_year_start) "
                       "VALUES ('b', 'x', '01-01', '01-01')")
        assert one.count("agencies", where, ["x"]) == 2  # its own write
        one.db.execute("DELETE FROM agencies WHERE id = 'a'")
        assert one.count("agencies", where, ["x"]) == 1
    finally:
        one.close()
        other.close()
