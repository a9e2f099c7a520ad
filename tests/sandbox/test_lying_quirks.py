"""The quirks of listings that lie (issue 43): wrong parents, short listings, young records missing.

Each quirky server shares its database with a default one, which shows what the service really holds.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.sandbox.helpers import create_branch, create_client, create_site
from tests.sandbox.test_quirks import pair as pair  # the fixture: a quirky server and a default one

Pair = tuple[httpx.Client, httpx.Client]  # (the quirky server, a default server on the same database)


def _listed(client: httpx.Client, path: str, size: int = 5) -> tuple[list[dict], int]:
    rows, number = [], 1
    while True:
        body = client.get(path, params={"pageSize": size, "pageNumber": number}).json()
        rows.extend(body["data"])
        if number >= body["pageCount"]:
            return rows, body["totalRecordCount"]
        number += 1


def test_foreign_sites_lists_the_branchs_other_clients_sites(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("foreign-sites")
    branch = create_branch(plain)
    one, other = create_client(plain, branch["id"]), create_client(plain, branch["id"])
    mine = {create_site(plain, one["id"])["id"] for _ in range(2)}
    theirs = {create_site(plain, other["id"])["id"] for _ in range(3)}

    rows, total = _listed(odd, f"/api/clients/{one['id']}/sites")
    assert {r["id"] for r in rows} == mine | theirs and total == 5
    assert {r["id"] for r in rows if r["clientId"] == other["id"]} == theirs  # each item names its own client
    assert {r["id"] for r in _listed(plain, f"/api/clients/{one['id']}/sites")[0]} == mine


def test_short_listing_gives_fewer_records_than_it_counts(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("short-listing")
    client = create_client(plain, create_branch(plain)["id"])
    for _ in range(13):
        create_site(plain, client["id"])
    held = [r["id"] for r in _listed(plain, f"/api/clients/{client['id']}/sites")[0]]

    rows, total = _listed(odd, f"/api/clients/{client['id']}/sites")
    assert total == 13 and len(held) == 13
    assert [r["id"] for r in rows] == [i for n, i in enumerate(held) if n % 6 != 5]  # 11 of 13


def test_young_missing_leaves_out_the_two_newest(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("young-missing")
    client = create_client(plain, create_branch(plain)["id"])
    for _ in range(5):
        create_site(plain, client["id"])
    held = [r["id"] for r in _listed(plain, f"/api/clients/{client['id']}/sites")[0]]

    rows, total = _listed(odd, f"/api/clients/{client['id']}/sites", size=2)
    assert [r["id"] for r in rows] == held[:3] and total == 3
    assert odd.get(f"/api/sites/{held[-1]}").status_code == 200  # a GET by id finds it


def test_lean_site_items_leave_out_the_client_of_each_item(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("lean-site-items")
    client = create_client(plain, create_branch(plain)["id"])
    site = create_site(plain, client["id"])
    rows, _ = _listed(odd, f"/api/clients/{client['id']}/sites")
    assert [r["id"] for r in rows] == [site["id"]] and "clientId" not in rows[0]
    assert odd.get(f"/api/sites/{site['id']}").json()["clientId"] == client["id"]  # a GET by id says it
