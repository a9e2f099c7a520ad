"""Seed data (G21): two agencies, their logins, and records that look like a real agency's.

Northwind Staffing gets 3 branches, 6 clients and 25 sites with rates, departments, documents and
banned workers; Southgate Recruitment gets a few records of its own, to show that tenants are isolated.
The seed is applied only to an empty database, so a `--db FILE` keeps what was changed across restarts.
"""

from __future__ import annotations

import json
import secrets
import uuid
from typing import Any

from wfctl.sandbox.auth import hash_password
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.store import Store, name_key

# (username, password, role, agency name); the staff login is bound to the first branch
LOGINS: list[tuple[str, str, str, str]] = [
    ("admin@northwind.test", "sandbox-admin", "admin", "Northwind Staffing"),
    ("manager@northwind.test", "sandbox-manager", "manager", "Northwind Staffing"),
    ("staff@northwind.test", "sandbox-staff", "staff", "Northwind Staffing"),
    ("admin@southgate.test", "sandbox-admin", "admin", "Southgate Recruitment"),
]

_AGENCIES = [
    {"name": "Northwind Staffing", "email": "office@northwind.test", "phone": "+44 161 496 0000",
     "work_week_start": "Monday", "calendar_year_start": "2026-01-01", "holiday_year_start": "2026-04-01",
     "holiday_cap_hours": 224.0},
    {"name": "Southgate Recruitment", "email": "hello@southgate.test", "phone": "+44 20 7946 0000",
     "work_week_start": "Sunday", "calendar_year_start": "2026-01-01", "holiday_year_start": "2026-01-01",
     "holiday_cap_hours": 196.0},
]

_NORTHWIND_BRANCHES = [
    ("Manchester Central", "14 Piccadilly, Manchester M1 2BN", "+44 161 496 0101", "manchester@northwind.test"),
    ("Leeds Riverside", "3 Wharf Approach, Leeds LS1 4BR", "+44 113 496 0202", "leeds@northwind.test"),
    ("Birmingham Eastside", "77 Digbeth High Street, Birmingham B5 6DY", "+44 121 496 0303",
     "birmingham@northwind.test"),
]

# (branch index, name, email, phone, billing address, site names)
_NORTHWIND_CLIENTS = [
    (0, "Pennine Foods Ltd", "accounts@penninefoods.test", "+44 161 496 1100",
     "Unit 4, Trafford Park, Manchester M17 1PG",
     ["Trafford Park Bakery", "Salford Quays Kitchen", "Oldham Packing Hall", "Stockport Cold Store",
      "Bolton Distribution"]),
    (0, "Irwell Logistics", "finance@irwell-logistics.test", "+44 161 496 1200",
     "Irwell House, 2 Water Street, Manchester M3 4JQ",
     ["Ardwick Cross-Dock", "Manchester Airport Hub", "Wigan Returns Centre", "Rochdale Yard"]),
    (1, "Aire Valley Healthcare", "payables@airevalley.test", "+44 113 496 2100",
     "1 Infirmary Street, Leeds LS1 2JP",
     ["St Aidan's Ward Block", "Kirkstall Day Clinic", "Headingley Care Home", "Bradford Outpatients"]),
    (1, "Kirkgate Retail Group", "ap@kirkgate-retail.test", "+44 113 496 2200",
     "Kirkgate Market Offices, Leeds LS2 7HY",
     ["Briggate Flagship", "White Rose Store", "Wakefield Warehouse", "Harrogate Outlet"]),
    (2, "Midland Precision Engineering", "accounts@midland-precision.test", "+44 121 496 3100",
     "Tyseley Works, Birmingham B11 2AA",
     ["Tyseley Machine Shop", "Aston Assembly Line", "Solihull Paint Plant", "Coventry Test Track"]),
    (2, "Bullring Events", "bookings@bullring-events.test", "+44 121 496 3200",
     "Rotunda Offices, Birmingham B2 4PA",
     ["NEC Hall 5", "Utilita Arena Catering", "Edgbaston Hospitality", "Villa Park Concourse"]),
]

_SKILLS = [("Warehouse Operative", 11.44), ("Forklift Driver", 13.25), ("Picker Packer", 11.60),
           ("Chef de Partie", 14.80), ("Kitchen Porter", 11.50), ("Healthcare Assistant", 12.75),
           ("Registered Nurse", 24.30), ("Retail Assistant", 11.44), ("CNC Machinist", 17.90),
           ("Steward", 11.80), ("Security Officer", 12.60), ("Cleaner", 11.44)]
_CONTACTS = ["Amelia Hart", "Ravi Chandra", "Sophie Walsh", "Tomasz Nowak", "Grace Okafor", "Liam Brennan",
             "Priya Desai", "Owen Price", "Hannah Lee", "Mohammed Aziz"]
_DEPARTMENTS = ["Operations", "Goods In", "Night Shift", "HR", "Health & Safety", "Front of House"]


def seed(store: Store, *, records: bool = True, random_passwords: bool = False, clock: Clock | None = None
         ) -> dict[str, str]:
    """Fill an empty database with the G21 agencies and logins, and (`records`) their sample records.

    Without records (`--no-seed`) the agencies and logins still exist, so the service can be used at all;
    the staff login is then bound to no branch (it reads branches, and sees no clients).
    `random_passwords` (a sandbox reachable from other machines): the logins get random passwords instead
    of the published ones; they are returned, {username: password}, to be shown once. Else {}."""
    if not store.is_empty():
        return {}
    now = clock or Clock()
    at = [now.time() - 90 * 86400]  # records created over the last three months, oldest first

    def stamp() -> str:
        at[0] += 3600 * 7 + 37
        return now.iso(at[0])

    passwords = {username: secrets.token_urlsafe(12) if random_passwords else password
                 for username, password, _, _ in LOGINS}
    hashes = {username: hash_password(password) if random_passwords else _published_hash(username, password)
              for username, password in passwords.items()}
    with store.transaction() as db:
        store.serialize(db)  # another process may be seeding the same new database: one of them does
        if not store.is_empty(db):
            return {}
        agency_ids: dict[str, str] = {}
        for agency in _AGENCIES:
            agency_id = str(uuid.uuid4())
            agency_ids[str(agency["name"])] = agency_id
            db.execute("INSERT INTO agencies (id, name, email, phone, work_week_start, calendar_year_start, "
                       "holiday_year_start, holiday_cap_hours) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (agency_id, agency["name"], agency["email"], agency["phone"], agency["work_week_start"],
                        agency["calendar_year_start"], agency["holiday_year_start"], agency["holiday_cap_hours"]))
        northwind, southgate = agency_ids["Northwind Staffing"], agency_ids["Southgate Recruitment"]

        if not records:
            _users(db, agency_ids, hashes, staff_branch=None)
            return passwords if random_passwords else {}
        branch_ids = [_branch(db, northwind, *b, stamp()) for b in _NORTHWIND_BRANCHES]
        n = 0
        for branch_index, name, email, phone, billing, sites in _NORTHWIND_CLIENTS:
            client_id = _client(db, northwind, branch_ids[branch_index], name, email, phone, billing, stamp())
            for site_name in sites:
                _site(db, northwind, branch_ids[branch_index], client_id, site_name, n, stamp())
                n += 1

        sg_branch = _branch(db, southgate, "Croydon", "9 Wellesley Road, Croydon CR0 2AD", "+44 20 7946 0101",
                            "croydon@southgate.test", stamp())
        sg_client = _client(db, southgate, sg_branch, "Thames Gateway Hotels", "accounts@tghotels.test",
                            "+44 20 7946 0500", "1 Riverside Walk, London SE1 9PP", stamp())
        for site_name in ("Bankside Hotel", "Greenwich Conference Centre"):
            _site(db, southgate, sg_branch, sg_client, site_name, n, stamp())
            n += 1

        _users(db, agency_ids, hashes, staff_branch=branch_ids[0])
    return passwords if random_passwords else {}


def _published_hash(username: str, password: str) -> str:
    """A published password's hash, made once a process: the control plane's reset writes the seed again in
    well under a second (scrypt is made to be slow; the password is in the docs anyway)."""
    key = (username, password)
    if key not in _PUBLISHED_HASHES:
        _PUBLISHED_HASHES[key] = hash_password(password)
    return _PUBLISHED_HASHES[key]


_PUBLISHED_HASHES: dict[tuple[str, str], str] = {}


def is_published(username: str, password: str) -> bool:
    """Whether this is one of the logins whose password is printed in the docs and banners."""
    return any(username.strip().lower() == name and password == known for name, known, _, _ in LOGINS)


def _users(db: Any, agency_ids: dict[str, str], hashes: dict[str, str],
           staff_branch: str | None) -> None:
    for username, _, role, agency_name in LOGINS:
        branch = staff_branch if role == "staff" else None
        db.execute("INSERT INTO users (id, agency_id, username, password_hash, role, branch_id) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   (str(uuid.uuid4()), agency_ids[agency_name], username, hashes[username], role, branch))


def _branch(db: Any, agency_id: str, name: str, address: str, phone: str, email: str, created: str) -> str:
    branch_id = str(uuid.uuid4())
    db.execute("INSERT INTO branches (id, agency_id, name, name_key, address, phone, email, created_on) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               (branch_id, agency_id, name, name_key(name), address, phone, email, created))
    return branch_id


def _client(db: Any, agency_id: str, branch_id: str, name: str, email: str, phone: str, billing: str,
            created: str) -> str:
    client_id = str(uuid.uuid4())
    db.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, billing_address, "
               "created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (client_id, agency_id, branch_id, name, name_key(name), email, phone, billing, created))
    return client_id


def _site(db: Any, agency_id: str, branch_id: str, client_id: str, name: str, n: int, created: str) -> None:
    site_id = str(uuid.uuid4())
    slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    rates = [{"skill": skill, "hourlyRate": round(rate + (n % 4) * 0.25, 2)}
             for skill, rate in (_SKILLS[(n + k) % len(_SKILLS)] for k in range(2 + n % 3))]
    departments = [{"name": _DEPARTMENTS[(n + k) % len(_DEPARTMENTS)],
                    "contactPerson": (person := _CONTACTS[(n * 3 + k) % len(_CONTACTS)]),
                    "email": person.split()[0].lower() + "@" + slug + ".test"}
                   for k in range(1 + n % 2)]
    banned = [f"W-{10400 + (n * 37 + k * 11) % 900:05d}" for k in range(n % 3)]
    documents = [{"name": "Site induction", "url": f"/documents/sites/{slug}/induction.pdf"},
                 {"name": "Risk assessment", "url": f"/documents/sites/{slug}/risk-assessment.pdf"}][: 1 + n % 2]
    db.execute(
        "INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, email, "
        "assessment_required, departments, rates, banned_workers, documents, created_on) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (site_id, agency_id, branch_id, client_id, name, name_key(name),
         f"{n + 1} {name.split()[0]} Road, {name.split()[0]}", f"+44 161 496 {2000 + n:04d}",
         f"site@{slug}.test", int(n % 3 == 0), json.dumps(departments), json.dumps(rates), json.dumps(banned),
         json.dumps(documents), created))
