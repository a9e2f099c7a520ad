"""`--quirk`: the sandbox plays each tolerance of the contract (part 1), over a real socket.

Each quirky server shares its database with a default one, which reads back what the quirky one holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from tests.sandbox.helpers import (
    api_client,
    assert_problem,
    create_branch,
    create_client,
    create_site,
    unique,
)
from wfctl.sandbox.quirks import QUIRKS, Quirks, parse_quirks

Pair = tuple[httpx.Client, httpx.Client]  # (the quirky server, a default server on the same database)


@pytest.fixture
def pair(sandbox_factory: Callable[..., SandboxServer]) -> Iterator[Callable[..., Pair]]:
    clients: list[httpx.Client] = []

    def start(*quirks: str) -> Pair:
        plain = sandbox_factory(seed=False)
        odd = sandbox_factory(seed=False, db_path=plain.db_path, quirks=quirks)
        token = login_token(plain, *ADMIN)["accessToken"]
        made = [httpx.Client(base_url=s.url, headers={"Authorization": f"Bearer {token}"}, timeout=10)
                for s in (odd, plain)]
        clients.extend(made)
        return made[0], made[1]

    yield start
    for client in clients:
        client.close()


def test_quirks_parse_as_the_option_spells_them() -> None:
    quirks = parse_quirks(["put-clears", "next-page=int", "errors=html", "login-field=email"])
    assert quirks == Quirks(put_clears=True, next_page="int", errors="html", login_field="email")
    assert quirks.names() == ["put-clears", "next-page=int", "errors=html", "login-field=email"]
    assert Quirks().names() == []
    for bad, message in [("bogus", "unknown quirk 'bogus'"), ("next-page=cursor", "next-page=url|int|"),
                         ("errors", "errors=problem|"), ("put-clears=yes", "takes no value")]:
        with pytest.raises(ValueError, match=message.replace("|", r"\|")):
            parse_quirks([bad])


def test_every_quirk_is_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "sandbox.md").read_text(encoding="utf-8")
    for name in QUIRKS:
        assert f"`{name}`".replace("|", "\\|") in docs, name  # a | in a table cell is written \|


def test_put_clears_replaces_the_record(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("put-clears")
    branch = create_branch(plain, address="1 Dock Rd", phone="0161", email="b@example.com")
    client = create_client(plain, branch["id"], phone="07", email="c@example.com", billingAddress="2 Bill St")
    site = create_site(plain, client["id"], phone="01", rates=[{"skill": "picker", "hourlyRate": 12.5}],
                       departments=[{"name": "Goods In"}], bannedWorkers=["W-1"], assessmentRequired=True)

    assert odd.put(f"/api/branches/{branch['id']}", json={"name": branch["name"], "phone": "0999"}).status_code == 200
    assert odd.put(f"/api/clients/{client['id']}", json={"name": client["name"], "phone": "08"}).status_code == 200
    answer = odd.put(f"/api/sites/{site['id']}", json={"name": site["name"], "phone": "02"})
    assert answer.status_code == 200

    assert plain.get(f"/api/branches/{branch['id']}").json() | {"createdOn": ""} == {
        "id": branch["id"], "name": branch["name"], "address": "", "phone": "0999", "email": "", "createdOn": ""}
    held_client = plain.get(f"/api/clients/{client['id']}").json()
    assert (held_client["phone"], held_client["email"], held_client["billingAddress"]) == ("08", "", "")
    held_site = plain.get(f"/api/sites/{site['id']}").json()
    assert {k: held_site[k] for k in ("phone", "address", "rates", "departments", "bannedWorkers",
                                      "assessmentRequired")} == {
        "phone": "02", "address": "", "rates": [], "departments": [], "bannedWorkers": [],
        "assessmentRequired": False}
    assert answer.json()["rates"] == []  # the answer says what it cleared
    # A replacing PUT still needs the name, as a create does.
    assert_problem(odd.put(f"/api/branches/{branch['id']}", json={"phone": "1"}), 400, "name")


def test_ignore_branch_filter_lists_every_client(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("ignore-branch-filter")
    one, two = create_branch(plain), create_branch(plain)
    create_client(plain, one["id"])
    create_client(plain, two["id"])
    assert plain.get("/api/clients", params={"branchId": one["id"]}).json()["totalRecordCount"] == 1
    page = odd.get("/api/clients", params={"branchId": one["id"]}).json()
    assert page["totalRecordCount"] == 2
    assert {row["branchId"] for row in page["data"]} == {one["id"], two["id"]}


def test_drop_create_answer_applies_the_create_and_answers_nothing(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("drop-create-answer")
    branch = create_branch(plain)
    for path, body in [("/api/branches", {"name": unique("Branch")}),
                       ("/api/clients", {"name": unique("Client"), "branchId": branch["id"]})]:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            odd.post(path, json=body)
        held = plain.get(path, params={"pageSize": 100}).json()["data"]
        assert [row["name"] for row in held].count(body["name"]) == 1
    client = plain.get("/api/clients").json()["data"][0]

    # The same Idempotency-Key again: nothing is applied, and the first answer is replayed.
    body = {"name": unique("Site")}
    headers = {"Idempotency-Key": unique("key")}
    with pytest.raises(httpx.RemoteProtocolError):
        odd.post(f"/api/clients/{client['id']}/sites", json=body, headers=headers)
    replay = odd.post(f"/api/clients/{client['id']}/sites", json=body, headers=headers)
    assert replay.status_code == 201 and replay.headers["idempotent-replayed"] == "true"
    held = plain.get(f"/api/clients/{client['id']}/sites").json()["data"]
    assert [row["id"] for row in held] == [replay.json()["id"]]
    # What is not applied is answered.
    assert_problem(odd.post("/api/branches", json={"name": branch["name"]}), 409)
    assert_problem(odd.post("/api/branches", json={}), 400, "name")


def test_ignore_idempotency_key_applies_every_post(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("ignore-idempotency-key")
    headers = {"Idempotency-Key": unique("key")}
    first = odd.post("/api/branches", json={"name": unique("Branch")}, headers=headers)
    second = odd.post("/api/branches", json={"name": unique("Branch")}, headers=headers)  # default: 422
    assert (first.status_code, second.status_code) == (201, 201)
    assert "idempotent-replayed" not in second.headers
    assert plain.get("/api/branches").json()["totalRecordCount"] == 2


@pytest.mark.parametrize(("form", "next_page", "previous_page"), [
    ("url", "{url}/api/branches?pageSize=2&pageNumber=3", "{url}/api/branches?pageSize=2&pageNumber=1"),
    ("relative", "/api/branches?pageSize=2&pageNumber=3", "/api/branches?pageSize=2&pageNumber=1"),
    ("int", 3, 1),
    ("string", "3", "1"),
    ("object", {"pageNumber": 3}, {"pageNumber": 1}),
])
def test_next_page_forms(pair: Callable[..., Pair], form: str, next_page: Any, previous_page: Any) -> None:
    odd, plain = pair(f"next-page={form}")
    for _ in range(5):
        create_branch(plain)
    page = odd.get("/api/branches", params={"pageSize": 2, "pageNumber": 2}).json()
    expand = (lambda v: v.format(url=str(odd.base_url).rstrip("/"))) if form == "url" else (lambda v: v)
    got = page["nextPage"]
    if form in ("url", "relative"):  # the URL forms also carry a cursor to seek with (test_keyset.py)
        got, cursor = got.split("&cursor=")
        assert cursor
    assert (got, page["previousPage"]) == (expand(next_page), expand(previous_page))
    last = odd.get("/api/branches", params={"pageSize": 2, "pageNumber": 3}).json()
    assert last["nextPage"] is None


def test_next_page_missing_leaves_the_fields_out(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("next-page=missing")
    for _ in range(3):
        create_branch(plain)
    page = odd.get("/api/branches", params={"pageSize": 2}).json()
    assert "nextPage" not in page and "previousPage" not in page
    assert (page["pageNumber"], page["pageCount"], len(page["data"])) == (1, 2, 2)


def test_no_expires_in(pair: Callable[..., Pair]) -> None:
    odd, _ = pair("no-expires-in")
    tokens = odd.post("/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]}).json()
    assert set(tokens) == {"accessToken", "refreshToken", "tokenType"}
    fresh = odd.post("/identity/refresh", json={"accessToken": tokens["accessToken"],
                                                "refreshToken": tokens["refreshToken"]}).json()
    assert set(fresh) == {"accessToken", "refreshToken", "tokenType"}


ERROR_FORMS = [
    ("message", "application/json", lambda body: json.loads(body) == {"message": "branch nope not found"}),
    ("error", "application/json", lambda body: json.loads(body) == {"error": "branch nope not found"}),
    ("list", "application/json", lambda body: json.loads(body) == {"errors": ["branch nope not found"]}),
    ("text", "text/plain", lambda body: body == "branch nope not found"),
    ("html", "text/html", lambda body: body.startswith("<!DOCTYPE html>") and "<h1>404 Not Found</h1>" in body
     and "branch nope not found" in body),
    ("empty", None, lambda body: body == ""),
]


@pytest.mark.parametrize(("form", "media_type", "check"), ERROR_FORMS, ids=[f[0] for f in ERROR_FORMS])
def test_error_forms(pair: Callable[..., Pair], form: str, media_type: str | None,
                     check: Callable[[str], bool]) -> None:
    odd, _ = pair(f"errors={form}")
    missing = odd.get("/api/branches/nope")
    assert missing.status_code == 404
    assert missing.headers.get("content-type", "").split(";")[0] == (media_type or "")
    assert check(missing.text), missing.text
    unauthorized = odd.get("/api/branches", headers={"Authorization": "Bearer wrong"})
    assert unauthorized.status_code == 401 and unauthorized.headers["www-authenticate"].startswith("Bearer")
    invalid = odd.post("/api/branches", json={"name": ""})
    assert invalid.status_code == 400
    if form == "list":  # field messages survive as "field: message" items
        assert [item.split(":")[0] for item in invalid.json()["errors"]] == ["name"]


def test_login_field(pair: Callable[..., Pair]) -> None:
    odd, _ = pair("login-field=email")
    assert odd.post("/identity/login", json={"email": ADMIN[0], "password": ADMIN[1]}).status_code == 200
    assert_problem(odd.post("/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]}), 400, "username")


def test_create_200_no_unique_names_no_agency_update(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("create-200", "no-unique-names", "no-agency-update")
    name = unique("Branch")
    first, second = (odd.post("/api/branches", json={"name": name}) for _ in range(2))
    assert (first.status_code, second.status_code) == (200, 200)
    assert [b["name"] for b in plain.get("/api/branches").json()["data"]] == [name, name]
    assert odd.put(f"/api/branches/{first.json()['id']}", json={"name": name.upper()}).status_code == 200
    refused = odd.put("/api/agency/", json={"phone": "1"})
    assert_problem(refused, 405)
    assert refused.headers["allow"] == "GET"


def test_a_default_sandbox_plays_no_quirk(sandbox: SandboxServer) -> None:
    assert sandbox.quirks == []
    with api_client(sandbox, ADMIN) as client:
        page = client.get("/api/branches", params={"pageSize": 1}).json()
        assert page["nextPage"].startswith(sandbox.url)
        assert_problem(client.get("/api/branches/nope"), 404)


def test_churn_pages_moves_a_record_back_once_per_listing(pair: Callable[..., Pair]) -> None:
    """Page 1 read, then page 2 asked: the first record is gone, one like it is at the end, the count is
    the same, and the record that was first on page 2 is now last on page 1 (already read)."""
    odd, plain = pair("churn-pages")
    path, listed = _churn_sites(plain, 6)
    names = [s["name"] for s in listed]
    first = odd.get(path, params={"pageSize": 3}).json()
    second = odd.get(path, params={"pageSize": 3, "pageNumber": 2}).json()
    assert [s["name"] for s in first["data"]] == names[:3]
    assert [s["name"] for s in second["data"]] == [names[4], names[5], names[0]]  # names[3] moved back
    assert second["totalRecordCount"] == first["totalRecordCount"] == 6
    assert first["data"][0]["id"] not in {s["id"] for s in second["data"]}  # a new record, not the same
    again = odd.get(path, params={"pageSize": 3, "pageNumber": 2}).json()
    assert again["data"] == second["data"]  # once per listing
    assert len(plain.get(path, params={"pageSize": 100}).json()["data"]) == 6


@pytest.mark.parametrize("order", ["at once", "last first"])
def test_churn_pages_churns_once_whatever_the_order_of_the_later_pages(pair: Callable[..., Pair], order: str) -> None:
    """A reader that fetches pages ahead asks for several at once, in any order: the first of them churns, every
    one is answered from the list as churned (one delete and one create per listing, whatever the timing)."""
    odd, plain = pair("churn-pages")
    path, listed = _churn_sites(plain, 12)
    before = [s["id"] for s in listed]
    assert [s["id"] for s in odd.get(path, params={"pageSize": 3}).json()["data"]] == before[:3]

    def page(number: int) -> list[str]:
        return [s["id"] for s in odd.get(path, params={"pageSize": 3, "pageNumber": number}).json()["data"]]

    if order == "at once":
        with ThreadPoolExecutor(max_workers=3) as pool:
            pages = dict(zip((2, 3, 4), pool.map(page, (2, 3, 4)), strict=True))
    else:
        pages = {number: page(number) for number in (4, 3, 2)}
    after = [s["id"] for s in plain.get(path, params={"pageSize": 100}).json()["data"]]
    assert after[:11] == before[1:] and after[11] not in before  # one delete, one create
    assert [*pages[2], *pages[3], *pages[4]] == after[3:]  # every later page answered as churned


def _churn_sites(plain: httpx.Client, count: int) -> tuple[str, list[dict[str, Any]]]:
    """A client with `count` sites: its sites' path, and the sites in the service's order."""
    client = create_client(plain, create_branch(plain)["id"])
    for i in range(count):
        create_site(plain, client["id"], name=f"Churn {i}")
    path = f"/api/clients/{client['id']}/sites"
    return path, plain.get(path, params={"pageSize": 100}).json()["data"]


def test_churn_pages_leaves_records_with_something_bound_to_them(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("churn-pages")
    branch = create_branch(plain)["id"]
    for _ in range(3):
        create_client(plain, branch)
    before = [c["id"] for c in plain.get("/api/clients", params={"branchId": branch}).json()["data"]]
    create_site(plain, before[0])  # the first client has a site: it is not churned
    odd.get("/api/clients", params={"pageSize": 1, "branchId": branch})
    odd.get("/api/clients", params={"pageSize": 1, "pageNumber": 2, "branchId": branch})
    ids = [c["id"] for c in plain.get("/api/clients", params={"branchId": branch}).json()["data"]]
    assert ids[:2] == [before[0], before[2]] and before[1] not in ids and len(ids) == 3


def test_ignore_page_number_answers_page_one(pair: Callable[..., Pair]) -> None:
    odd, plain = pair("ignore-page-number", "next-page=int")
    for _ in range(5):
        create_branch(plain)
    first = odd.get("/api/branches", params={"pageSize": 2}).json()
    third = odd.get("/api/branches", params={"pageSize": 2, "pageNumber": 3}).json()
    assert third["data"] == first["data"]
    assert (third["pageNumber"], third["nextPage"]) == (3, 4)
