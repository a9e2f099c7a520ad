"""Records written straight into a sandbox's database (fast: thousands of sites without thousands of
requests), and an SDK Client logged in to it."""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from wfctl.api.client import Client
from wfctl.api.session.auth import StaticTokenAuth


def sdk_client(server: SandboxServer, **options: Any) -> Client:
    token = login_token(server, *ADMIN)["accessToken"]
    return Client(server.url, auth=StaticTokenAuth(token, server.url), **options)


def add_client(server: SandboxServer, sites: int, name: str | None = None) -> tuple[str, list[str]]:
    """A new client of the first Northwind branch holding `sites` sites; (client id, site ids in the
    service's order: createdOn, then id)."""
    db = sqlite3.connect(server.db_path, timeout=10)
    try:
        agency_id, branch_id = db.execute(
            "SELECT b.agency_id, b.id FROM branches b JOIN agencies a ON a.id = b.agency_id "
            "WHERE a.name = 'Northwind Staffing' ORDER BY b.created_on LIMIT 1").fetchone()
        client_id = str(uuid.uuid4())
        name = name or f"Pages {client_id[:8]}"
        db.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, billing_address,"
                   " created_on) VALUES (?, ?, ?, ?, ?, '', '', '', '2020-01-01T00:00:00Z')",
                   (client_id, agency_id, branch_id, name, name.lower()))
        rates = json.dumps([{"skill": "picker", "hourlyRate": 11.5}])
        rows = [(str(uuid.uuid4()), agency_id, branch_id, client_id, f"Site {i:06d}", f"site {i:06d}",
                 f"{i} Dock Rd", "", "", i % 2, rates,
                 f"2020-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z") for i in range(sites)]
        db.executemany("INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, "
                       "email, assessment_required, rates, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       rows)
        db.commit()
    finally:
        db.close()
    return client_id, [row[0] for row in rows]
