"""G12: names that look the same are the same name (full-width letters, NFC vs NFD, invisible characters,
case), on both backends; and a database of schema version 1 (case-folded keys) is migrated at start."""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable

import httpx

from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers
from tests.sandbox.helpers import assert_problem, create_branch, create_client
from wfctl.sandbox.store import SCHEMA_VERSION, open_store


def _full_width(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def _look_alikes(name: str) -> list[str]:
    """Other spellings of `name` (which has an é) that a person cannot tell from it."""
    return [_full_width(name), unicodedata.normalize("NFD", name), name.replace("a", "a\u200b", 1),
            name.replace("é", "\u00adé"), name.upper(), "\ufeff" + name]


def test_names_that_look_the_same_are_one_name(admin: httpx.Client) -> None:
    tag = uuid.uuid4().hex[:8]
    name = f"Café {tag}"
    assert unicodedata.is_normalized("NFC", name)
    created = admin.post("/api/branches", json={"name": name})
    assert created.status_code == 201, created.text
    for other in [*_look_alikes(name)[:4], name.upper()]:
        answer = admin.post("/api/branches", json={"name": other})
        body = assert_problem(answer, 409)
        assert body["detail"] == f"a branch named {other!r} already exists in this agency", other
    client = create_client(admin, created.json()["id"], name=name)
    duplicate = admin.post("/api/clients", json={"name": _full_width(name), "branchId": created.json()["id"]})
    assert_problem(duplicate, 409)
    site = admin.post(f"/api/clients/{client['id']}/sites", json={"name": name})
    assert site.status_code == 201, site.text
    for other in _look_alikes(name):
        assert_problem(admin.post(f"/api/clients/{client['id']}/sites", json={"name": other}), 409)
    # A rename onto a look-alike of another record's name is the same conflict.
    second = admin.post(f"/api/clients/{client['id']}/sites", json={"name": f"Other {tag}"}).json()
    assert_problem(admin.put(f"/api/sites/{second['id']}", json={"name": unicodedata.normalize("NFD", name)}), 409)


def test_simple_lower_casing_not_case_folding(admin: httpx.Client) -> None:
    """`Straße 1` and `STRASSE 1` are two names (casefold would make them one): both are kept."""
    branch = create_branch(admin)
    tag = uuid.uuid4().hex[:6]
    for name in (f"Straße 1 {tag}", f"STRASSE 1 {tag}"):
        answer = admin.post("/api/clients", json={"name": name, "branchId": branch["id"]})
        assert answer.status_code == 201, answer.text
    listed = admin.get("/api/clients", params={"branchId": branch["id"]}).json()["data"]
    assert sorted(c["name"] for c in listed) == sorted([f"Straße 1 {tag}", f"STRASSE 1 {tag}"])
    assert_problem(admin.post("/api/clients", json={"name": f"straße 1 {tag}", "branchId": branch["id"]}), 409)


def test_a_version_1_database_is_migrated(new_database: Callable[[], str],
                                          sandbox_factory: Callable[..., SandboxServer]) -> None:
    """A database of schema version 1 keyed names with casefold: at start its keys are computed again.
    Two records that are now one name both stay (neither is lost); a new one of that name is a 409."""
    database = new_database()
    store = open_store(database)
    try:
        from wfctl.sandbox.seed import seed

        seed(store)
        agency = store.db.execute("SELECT id FROM agencies WHERE name = 'Northwind Staffing'").fetchone()[0]
        nfc, nfd = "Café Royal", unicodedata.normalize("NFD", "Café Royal")
        for n, name in enumerate((nfc, nfd, "Ｗｉｄｅ")):
            store.db.execute("INSERT INTO branches (id, agency_id, name, name_key, created_on) VALUES (?, ?, ?, ?, ?)",
                             (str(uuid.uuid4()), agency, name, name.casefold(), f"2020-01-0{n + 1}T00:00:00Z"))
        # Back to version 1: its keys, its columns.
        for column in ("parent_hash", "spent_at", "presented_access", "replay"):
            store.db.execute(f"ALTER TABLE refresh_tokens DROP COLUMN {column}")
        store.db.execute("UPDATE sandbox_meta SET value = '1' WHERE key = 'schema_version'")
    finally:
        store.close()
    server = sandbox_factory(db_path=database)
    headers = auth_headers(server, *ADMIN)
    assert_problem(httpx.post(f"{server.url}/api/branches", headers=headers, json={"name": "CAFÉ ROYAL"}), 409)
    assert_problem(httpx.post(f"{server.url}/api/branches", headers=headers, json={"name": "wide"}), 409)
    names = [b["name"] for b in httpx.get(f"{server.url}/api/branches", headers=headers,
                                          params={"pageSize": 100}).json()["data"]]
    assert names.count(nfc) == 1 and names.count(nfd) == 1
    store = open_store(database)
    try:
        version = store.db.execute("SELECT value FROM sandbox_meta WHERE key = 'schema_version'").fetchone()[0]
        keys = sorted(row[0] for row in store.db.execute(
            "SELECT name_key FROM branches WHERE name IN (?, ?, ?)", (nfc, nfd, "Ｗｉｄｅ")).fetchall())
    finally:
        store.close()
    assert version == str(SCHEMA_VERSION) == "2"
    assert keys[0] == "café royal" and keys[1].startswith("café royal\n") and keys[2] == "wide"
    # The refresh tokens' new columns exist: a refresh works on the migrated database.
    pair = httpx.post(f"{server.url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]}).json()
    assert httpx.post(f"{server.url}/identity/refresh", json={"accessToken": pair["accessToken"],
                                                             "refreshToken": pair["refreshToken"]}).status_code == 200
