"""Tenants and seed files: what the control plane (control.py) and `wfctl sandbox certify` put in a sandbox.

    tenant = add_tenant(store, "Acme Integration", clock=clock)      # an agency, its logins, sample records
    tenant["logins"][0]    # {"username": "admin@acme-integration.test", "password": "...", "role": "admin"}
    load_seed(store, tenant["id"], {"records": [...]}, clock=clock)   # a seed file's records, in one transaction
    remove_tenant(store, tenant["id"])                                # its records, logins and tokens gone
    reset(store, clock=clock)                                         # back to the G21 seed

A tenant is an agency (G17: every record, login and token belongs to one), so tenants never share state.

A seed file is JSON: `{"records": [...]}`, each record `{"type": "branch"|"client"|"site"|"login", "ref": NAME,
"fields": {...}}`. `fields` are the service's own (a branch's, a client's, a site's create body; a login's
`username`, `password`, `role` and, for staff, `branchId`). A string `${NAME:id}` (or `${NAME:FIELD}`) anywhere
in `fields` is the value of an earlier record's field, as in stripe's fixtures: `"branchId": "${leeds:id}"`.
Records are checked with the service's own rules (validation.py) and written in one transaction: all or none.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from typing import Any

from wfctl.sandbox import validation
from wfctl.sandbox.accounts import ROLES
from wfctl.sandbox.auth import hash_password
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.names import name_key
from wfctl.sandbox.problems import ApiProblem
from wfctl.sandbox.store import Store

#: The tables a reset empties, children first (foreign keys); sandbox_meta (schema version, cursor key) stays.
TABLES = ("login_failures", "tenant_request_counts", "security_events", "idempotency_keys", "access_tokens",
          "refresh_tokens", "token_families", "sites", "clients", "users", "branches", "agencies")
REFERENCE = re.compile(r"\$\{([A-Za-z0-9_.-]+):([A-Za-z0-9_]+)\}")
TYPES = ("branch", "client", "site", "login")
#: The agency `seed` writes to when none is named (G21's first): a sandbox always has it, so it is never removed.
DEFAULT_TENANT = "Northwind Staffing"
#: What a tenant's removal deletes, children first (foreign keys), each by the agency's users or its own id.
_OF_USERS = "SELECT id FROM users WHERE agency_id = ?"
_OF_FAMILIES = f"SELECT id FROM token_families WHERE user_id IN ({_OF_USERS})"
_REMOVED = (("idempotency_keys", f"user_id IN ({_OF_USERS})"), ("security_events", f"user_id IN ({_OF_USERS})"),
            ("access_tokens", f"family_id IN ({_OF_FAMILIES})"), ("refresh_tokens", f"family_id IN ({_OF_FAMILIES})"),
            ("token_families", f"user_id IN ({_OF_USERS})"), ("sites", "agency_id = ?"), ("clients", "agency_id = ?"),
            ("users", "agency_id = ?"), ("branches", "agency_id = ?"), ("tenant_request_counts", "tenant = ?"),
            ("agencies", "id = ?"))


class SeedError(Exception):
    """A seed file or a tenant the sandbox cannot take: one line, and `status` (400, 404 or 409)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def reset(store: Store, *, clock: Clock, records: bool = True) -> None:
    """Every table emptied and the G21 seed written again (agencies, logins and, with `records`, their records)."""
    from wfctl.sandbox.seed import seed

    with store.transaction() as db:
        store.serialize(db)
        for table in TABLES:
            db.execute(f"DELETE FROM {table}")  # a fixed list of table names
    seed(store, records=records, clock=clock)


def add_tenant(store: Store, name: str, *, clock: Clock, logins: list[dict[str, Any]] | None = None,
               records: bool = True) -> dict[str, Any]:
    """A new agency named `name` with its logins (default: one admin with a random password) and, with
    `records`, the sample records of `standard_records`. Returns {"id", "name", "logins": [{username,
    password, role}]} (the passwords shown this once)."""
    from wfctl.sandbox.accounts import AccountError, add_agency

    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "tenant"
    try:
        agency = add_agency(store, name, clock=clock)
    except AccountError as exc:
        raise SeedError(str(exc), 409 if exc.kind == "conflict" else 400) from None
    wanted = logins if logins is not None else [{"username": f"admin@{slug}.test", "role": "admin"}]
    given = []
    document: list[dict[str, Any]] = standard_records(slug) if records else []
    for login in wanted:
        if not isinstance(login, dict):
            raise SeedError("each login is an object {username, password, role}")
        fields = {"password": secrets.token_urlsafe(12), "role": "admin", **login}
        given.append({"username": str(fields["username"]).strip().lower(), "password": fields["password"],
                      "role": fields["role"]})
        document.append({"type": "login", "fields": fields})
    made = load_seed(store, agency["id"], {"records": document}, clock=clock)
    return {"id": agency["id"], "name": agency["name"], "logins": given,
            "records": {ref: row["id"] for ref, row in made.items()}}


def remove_tenant(store: Store, agency_id: str) -> dict[str, Any]:
    """Delete an agency with everything of it, in one transaction: its sites, clients, branches, logins, their
    tokens (refused from the next request on), idempotency records and security events, and the failed logins
    of its user names. SeedError: 404 for no such agency, 409 for DEFAULT_TENANT. Returns {"id", "name",
    "branches", "clients", "sites", "logins"}: how many of each went."""
    with store.transaction() as db:
        store.serialize(db)
        row = db.execute("SELECT name FROM agencies WHERE id = ?", (agency_id,)).fetchone()
        if row is None:
            raise SeedError(f"no agency {agency_id}", 404)
        if name_key(row[0]) == name_key(DEFAULT_TENANT):
            raise SeedError(f"{row[0]} is the sandbox's default tenant: it cannot be removed "
                            "(wfctl sandbox reset puts it back to its seed)", 409)
        counts = {table: int(db.execute(f"SELECT count(*) FROM {table} WHERE agency_id = ?",
                                        (agency_id,)).fetchone()[0])
                  for table in ("branches", "clients", "sites", "users")}
        names = [str(name).strip().casefold() for (name,) in
                 db.execute("SELECT username FROM users WHERE agency_id = ?", (agency_id,)).fetchall()]
        for name in names:
            db.execute("DELETE FROM login_failures WHERE scope = 'user' AND key = ?", (name,))
        for table, where in _REMOVED:  # fixed table names and conditions
            db.execute(f"DELETE FROM {table} WHERE {where}", (agency_id,))
    return {"id": agency_id, "name": str(row[0]), "branches": counts["branches"], "clients": counts["clients"],
            "sites": counts["sites"], "logins": counts["users"]}


def load_seed(store: Store, agency_id: str, document: Any, *, clock: Clock) -> dict[str, dict[str, Any]]:
    """Write a seed file's records into one agency, all or none; {ref: {"id": ..., field: ...}} of what was made."""
    if not isinstance(document, dict) or not isinstance(document.get("records"), list):
        raise SeedError('a seed file is a JSON object {"records": [...]}')
    made: dict[str, dict[str, Any]] = {}
    prepared = []
    for number, record in enumerate(document["records"], 1):
        if not isinstance(record, dict) or record.get("type") not in TYPES or not isinstance(
                record.get("fields", {}), dict):
            raise SeedError(f"record {number}: needs a type ({', '.join(TYPES)}) and an object of fields")
        prepared.append((number, record))
    hashes = {number: hash_password(str(record["fields"].get("password", "")))
              for number, record in prepared if record["type"] == "login"}  # scrypt before the write lock
    at = clock.time() - len(prepared)
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM agencies WHERE id = ?", (agency_id,)).fetchone() is None:
            raise SeedError(f"no agency {agency_id}", 404)
        for number, record in prepared:
            fields = _resolved(record.get("fields", {}), made, number)
            at += 1
            try:
                row = _write(db, agency_id, record["type"], fields, clock.iso(at), hashes.get(number))
            except ApiProblem as exc:
                raise SeedError(f"record {number} ({record['type']}): {_why(exc)}") from None
            except Exception as exc:
                if store.is_unique_violation(exc):
                    raise SeedError(f"record {number} ({record['type']}): the name is taken", 409) from None
                raise
            if record.get("ref"):
                made[str(record["ref"])] = row
    return made


def standard_records(slug: str) -> list[dict[str, Any]]:
    """A tenant's sample records: 2 branches, 3 clients, 27 sites (three pages of the default size at
    the first client), with rates, departments and banned workers to lose."""
    records: list[dict[str, Any]] = [
        {"type": "branch", "ref": "north", "fields": {"name": "North", "address": "1 High Street, Leeds",
                                                      "phone": "+44 113 496 0000", "email": f"north@{slug}.test"}},
        {"type": "branch", "ref": "south", "fields": {"name": "South", "address": "2 Quay Road, Bristol"}},
        {"type": "client", "ref": "c1", "fields": {"name": "Harbour Foods", "branchId": "${north:id}",
                                                   "billingAddress": "PO Box 1, Leeds", "email": f"ap@{slug}.test"}},
        {"type": "client", "ref": "c2", "fields": {"name": "Fell Logistics", "branchId": "${north:id}"}},
        {"type": "client", "ref": "c3", "fields": {"name": "Quay Events", "branchId": "${south:id}"}},
    ]
    for n in range(27):
        records.append({"type": "site", "ref": f"s{n + 1}", "fields": {
            "name": f"Site {n + 1:02d}", "clientId": "${c1:id}", "address": f"{n + 1} Dock Lane",
            "assessmentRequired": n % 2 == 0, "rates": [{"skill": "Picker", "hourlyRate": 11.5 + n % 4}],
            "departments": [{"name": "Goods In", "contactPerson": "Ada Lee", "email": f"ada@{slug}.test"}],
            "bannedWorkers": [f"W-{10000 + n}"] if n % 3 == 0 else []}})
    for n in range(3):
        records.append({"type": "site", "ref": f"t{n + 1}", "fields": {"name": f"Yard {n + 1}",
                                                                      "clientId": "${c2:id}"}})
    return records


# ---- private helpers --------------------------------------------------------------------------


def _resolved(value: Any, made: dict[str, dict[str, Any]], number: int) -> Any:
    if isinstance(value, dict):
        return {key: _resolved(item, made, number) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item, made, number) for item in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        ref, field = match.group(1), match.group(2)
        if ref not in made or field not in made[ref]:
            raise SeedError(f"record {number}: ${{{ref}:{field}}} names no earlier record's field")
        return str(made[ref][field])

    return REFERENCE.sub(one, value)


def _write(db: Any, agency_id: str, kind: str, fields: dict[str, Any], created: str,
           password_hash: str | None) -> dict[str, Any]:
    new_id = str(uuid.uuid4())
    if kind == "branch":
        body = validation.validate(fields, validation.BRANCH, required=("name",))
        db.execute("INSERT INTO branches (id, agency_id, name, name_key, address, phone, email, created_on) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (new_id, agency_id, body["name"], name_key(body["name"]), body.get("address", ""),
                    body.get("phone", ""), body.get("email", ""), created))
    elif kind == "client":
        body = validation.validate(fields, validation.CLIENT_CREATE, required=("name", "branchId"))
        _own(db, "branches", body["branchId"], agency_id)
        db.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, billing_address, "
                   "created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (new_id, agency_id, body["branchId"], body["name"], name_key(body["name"]), body.get("email", ""),
                    body.get("phone", ""), body.get("billingAddress", ""), created))
    elif kind == "site":
        client_id = fields.pop("clientId", None) if isinstance(fields, dict) else None
        body = validation.validate(fields, validation.SITE, required=("name",))
        if not isinstance(client_id, str):
            raise SeedError("a site needs a clientId")
        branch_id = _own(db, "clients", client_id, agency_id)
        db.execute(
            "INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, email, "
            "assessment_required, departments, rates, banned_workers, created_on) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (new_id, agency_id, branch_id, client_id, body["name"], name_key(body["name"]), body.get("address", ""),
             body.get("phone", ""), body.get("email", ""), int(body.get("assessmentRequired", False)),
             json.dumps(body.get("departments", [])), json.dumps(body.get("rates", [])),
             json.dumps(body.get("bannedWorkers", [])), created))
        body["clientId"] = client_id
    else:
        body = _login(db, agency_id, fields)
        db.execute("INSERT INTO users (id, agency_id, username, password_hash, role, branch_id) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   (new_id, agency_id, body["username"], password_hash, body["role"], body.get("branchId")))
        body.pop("password", None)
    return {"id": new_id, **body}


def _login(db: Any, agency_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    username, password, role = fields.get("username"), fields.get("password"), fields.get("role", "admin")
    if not isinstance(username, str) or not username.strip() or not isinstance(password, str) or len(password) < 8:
        raise SeedError("a login needs a username and a password of at least 8 characters")
    if role not in ROLES:
        raise SeedError(f"a login's role is one of {', '.join(ROLES)}, not {role!r}")
    unknown = set(fields) - {"username", "password", "role", "branchId"}
    if unknown:
        raise SeedError(f"a login has no field {', '.join(sorted(unknown))}")
    branch = fields.get("branchId")
    if (branch is not None) != (role == "staff"):
        raise SeedError("a staff login, and only a staff login, names its branchId")
    if branch is not None:
        _own(db, "branches", branch, agency_id)
    username = username.strip().lower()
    if db.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone():
        raise SeedError(f"a user named {username!r} already exists", 409)
    return {"username": username, "role": role, "branchId": branch}


def _own(db: Any, table: str, record_id: Any, agency_id: str) -> str:
    """The branch id of a branch or client of this agency (a seed never reaches into another tenant)."""
    column = "id" if table == "branches" else "branch_id"
    row = db.execute(f"SELECT {column} FROM {table} WHERE id = ? AND agency_id = ?",
                     (str(record_id), agency_id)).fetchone()
    if row is None:
        raise SeedError(f"no {table[:-1].replace('branche', 'branch')} {record_id} in this tenant", 404)
    return str(row[0])


def _why(exc: Exception) -> str:
    errors = getattr(exc, "errors", None) or {}
    if errors:
        return "; ".join(f"{field}: {', '.join(map(str, messages))}" for field, messages in errors.items())
    return str(getattr(exc, "detail", None) or exc)
