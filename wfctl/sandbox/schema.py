"""The sandbox's tables (SQLite's dialect; pgstore.py turns them into PostgreSQL's), their version, and the
migrations from older versions: what both stores create and check at start (store.py, pgstore.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wfctl.sandbox.accounts import SCHEMA as ACCOUNTS_SCHEMA
from wfctl.sandbox.names import name_key
from wfctl.sandbox.storebase import StoreError

#: The version of the schema below, kept in sandbox_meta: a database of an older version is migrated at
#: start (MIGRATIONS), one of a newer version is refused (rather than misread).
#: 2: name keys by `name_key` (was str.casefold); refresh tokens keep what the grace window replays.
SCHEMA_VERSION = 2
#: tenant_request_counts (the rate limit's count, per tenant and second: middleware.Throttle) is a table added
#: without a new version: a database of an older wfctl gets it at start, and keeps its request_counts (one count
#: for all tenants) unused; an older wfctl on a newer database makes request_counts again. Both ways work.

SCHEMA = """
CREATE TABLE IF NOT EXISTS agencies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    work_week_start TEXT NOT NULL DEFAULT 'Monday',
    calendar_year_start TEXT NOT NULL,
    holiday_year_start TEXT NOT NULL,
    holiday_cap_hours REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS branches (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    created_on TEXT NOT NULL,
    modified_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS branches_name ON branches(agency_id, name_key);
CREATE INDEX IF NOT EXISTS branches_order ON branches(agency_id, created_on, id);
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'manager', 'staff')),
    branch_id TEXT REFERENCES branches(id) ON DELETE RESTRICT
);
CREATE TABLE IF NOT EXISTS clients (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    branch_id TEXT NOT NULL REFERENCES branches(id) ON DELETE RESTRICT,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    billing_address TEXT NOT NULL DEFAULT '',
    created_on TEXT NOT NULL,
    updated_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS clients_name ON clients(branch_id, name_key);
CREATE INDEX IF NOT EXISTS clients_order ON clients(agency_id, created_on, id);
CREATE INDEX IF NOT EXISTS clients_branch_order ON clients(branch_id, created_on, id);
CREATE TABLE IF NOT EXISTS sites (
    id TEXT PRIMARY KEY,
    agency_id TEXT NOT NULL REFERENCES agencies(id),
    branch_id TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE RESTRICT,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    assessment_required INTEGER NOT NULL DEFAULT 0,
    departments TEXT NOT NULL DEFAULT '[]',
    rates TEXT NOT NULL DEFAULT '[]',
    banned_workers TEXT NOT NULL DEFAULT '[]',
    documents TEXT NOT NULL DEFAULT '[]',
    created_on TEXT NOT NULL,
    updated_on TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS sites_name ON sites(client_id, name_key);
CREATE INDEX IF NOT EXISTS sites_order ON sites(client_id, created_on, id);
CREATE TABLE IF NOT EXISTS token_families (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id TEXT NOT NULL REFERENCES token_families(id),
    spent INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    parent_hash TEXT,
    spent_at REAL,
    presented_access TEXT,
    replay BLOB
);
CREATE TABLE IF NOT EXISTS access_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id TEXT NOT NULL REFERENCES token_families(id),
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS access_tokens_family ON access_tokens(family_id);
CREATE TABLE IF NOT EXISTS security_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    user_id TEXT,
    family_id TEXT,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    media_type TEXT NOT NULL,
    body BLOB NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE TABLE IF NOT EXISTS tenant_request_counts (
    tenant TEXT NOT NULL,
    second INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (tenant, second)
);
CREATE TABLE IF NOT EXISTS sandbox_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
SCHEMA += ACCOUNTS_SCHEMA  # login_failures: the login throttle (accounts.py)

#: Version 1 -> 2, run in one transaction: the refresh tokens' new columns, then every name key again
#: (`rekey_names`, between dropping and re-creating the unique indexes).
MIGRATIONS: dict[int, list[str]] = {
    1: ["ALTER TABLE refresh_tokens ADD COLUMN parent_hash TEXT",
        "ALTER TABLE refresh_tokens ADD COLUMN spent_at REAL",
        "ALTER TABLE refresh_tokens ADD COLUMN presented_access TEXT",
        "ALTER TABLE refresh_tokens ADD COLUMN replay BLOB"],
}
#: (table, the column that scopes its names, its unique index)
_NAMED = (("branches", "agency_id", "branches_name"), ("clients", "branch_id", "clients_name"),
          ("sites", "client_id", "sites_name"))

def rekey_names(db: Any) -> int:
    """Inside a transaction, with the unique name indexes dropped: every name key computed again by
    `name_key`. Records that were distinct before and now have the same key stay distinct (the later one
    keeps a key of its own, `<key>\n<id>`, as no-unique-names does); a new record of that name is a
    duplicate of the first. Returns how many keys changed."""
    changed = 0
    for table, scope, _ in _NAMED:
        seen: set[tuple[str, str]] = set()
        rows = db.execute(f"SELECT id, {scope}, name, name_key FROM {table} ORDER BY created_on, id").fetchall()
        for record_id, parent, name, old in rows:
            key = name_key(name)
            if (parent, key) in seen:
                key = f"{key}\n{record_id}"
            seen.add((parent, key))
            if key != old:
                db.execute(f"UPDATE {table} SET name_key = ? WHERE id = ?", (key, record_id))
                changed += 1
    return changed


def check_schema_version(found: str | None, location: str) -> None:
    """A database of this version, of one this wfctl migrates from, or new (None); else a StoreError."""
    if found is not None and found != str(SCHEMA_VERSION) and not (found.isdigit() and int(found) in MIGRATIONS):
        raise StoreError(f"{location}: holds the sandbox's schema version {found}; this wfctl uses version "
                         f"{SCHEMA_VERSION}: use a wfctl of that version, or another database")


def migrate(db: Any, found: str | None, ddl: Callable[[str], str] = lambda statement: statement) -> None:
    """Inside the transaction that holds the schema lock: bring a database of version `found` to this one
    (`ddl` gives a backend's form of a statement). A new database (None) or a current one is left alone."""
    if found is None or found == str(SCHEMA_VERSION):
        return
    check_schema_version(found, "the database")
    for version in range(int(found), SCHEMA_VERSION):
        for statement in MIGRATIONS[version]:
            db.execute(ddl(statement))
        if version == 1:
            for _, _, index in _NAMED:
                db.execute(f"DROP INDEX IF EXISTS {index}")
            rekey_names(db)
            for table, scope, index in _NAMED:
                db.execute(f"CREATE UNIQUE INDEX {index} ON {table}({scope}, name_key)")
    db.execute("INSERT INTO sandbox_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) "
               "DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
