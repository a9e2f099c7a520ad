"""The sandbox's site endpoints: listed under their client, read, created, updated (G13: the answer
carries the fields sent) and deleted by id."""

from __future__ import annotations

import json
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.auth import Principal
from wfctl.sandbox.clients import client_row
from wfctl.sandbox.handling import (
    Service,
    dumps,
    json_answer,
    read_body,
    update_fields,
)
from wfctl.sandbox.paging import page, page_params
from wfctl.sandbox.problems import not_found
from wfctl.sandbox.store import Connection

_SITE_COLUMNS = {"name": "name", "address": "address", "phone": "phone", "email": "email",
                 "assessmentRequired": "assessment_required", "departments": "departments", "rates": "rates",
                 "bannedWorkers": "banned_workers"}
_SITE_SUMMARY_COLS = "id, client_id, name, address, phone, email, assessment_required, created_on"
_SITE_COLS = _SITE_SUMMARY_COLS + ", departments, rates, banned_workers, documents"


async def list_sites(api: Service, request: Request, who: Principal) -> Response:
    client_id = request.path_params["clientId"]
    page_params(request)  # a bad pageNumber/pageSize is a 400 before a missing client is a 404
    client = client_row(api, who, client_id)
    where, args = "client_id = ?", [client_id]
    if api.quirks.foreign_sites:  # quirk foreign-sites: every site of the client's branch
        where, args = "branch_id = ?", [client[-1]]
    rows, paging = page(api, request, "sites", _SITE_SUMMARY_COLS, where, args)
    items = [_site_summary(r) for r in rows]
    if api.quirks.lean_site_items:  # quirk lean-site-items: only a GET by id says a site's client
        items = [{k: v for k, v in item.items() if k != "clientId"} for item in items]
    return json_answer(paging.envelope(items))


async def get_site(api: Service, request: Request, who: Principal) -> Response:
    return json_answer(_site(site_row(api, who, request.path_params["siteId"])))


async def create_site(api: Service, request: Request, who: Principal) -> Response:
    client_id = request.path_params["clientId"]
    client = client_row(api, who, client_id)
    fields = v.validate(await read_body(request), v.SITE, required=("name",))
    site_id, now = str(uuid.uuid4()), api.timestamp()
    site = {"id": site_id, "clientId": client_id, "name": fields["name"],
            "address": fields.get("address", ""), "phone": fields.get("phone", ""),
            "email": fields.get("email", ""), "assessmentRequired": fields.get("assessmentRequired", False),
            "departments": fields.get("departments", []), "rates": fields.get("rates", []),
            "bannedWorkers": fields.get("bannedWorkers", []), "documents": [], "createdOn": now}
    def insert(db: Connection) -> None:
        db.execute(
            "INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, email, "
            "assessment_required, departments, rates, banned_workers, documents, created_on) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?)",
            (site_id, who.agency_id, client[-1], client_id, site["name"], api.name_key(fields["name"]),
             site["address"], site["phone"], site["email"], int(site["assessmentRequired"]),
             dumps(site["departments"]), dumps(site["rates"]), dumps(site["bannedWorkers"]), now))

    with api.unique("site", fields["name"], "for this client"):
        return api.create(request, "sites", site_id, insert, json_answer(site, api.created))


async def update_site(api: Service, request: Request, who: Principal) -> Response:
    site_id = request.path_params["siteId"]
    row = site_row(api, who, site_id)
    fields = api.replacing(v.validate(await read_body(request), v.SITE), v.SITE)
    now = api.timestamp()
    stored = {k: (dumps(val) if isinstance(val, list) else int(val) if isinstance(val, bool) else val)
              for k, val in fields.items()}
    with api.unique("site", fields.get("name"), "for this client"), api.store.statement() as db:
        update_fields(db, "sites", site_id, stored, _SITE_COLUMNS, "updated_on", now, api.name_key)
    # G13 / the specification: the answer carries id, clientId, the fields sent, and updatedOn.
    return json_answer({"id": site_id, "clientId": row[1], **fields, "updatedOn": now})


async def delete_site(api: Service, request: Request, who: Principal) -> Response:
    site_id = request.path_params["siteId"]
    site_row(api, who, site_id)
    return api.delete("site", "sites", site_id)


def site_row(api: Service, who: Principal, site_id: str) -> tuple[Any, ...]:
    row = api.db.execute(f"SELECT {_SITE_COLS}, branch_id FROM sites WHERE id = ? AND agency_id = ?",
                          (site_id, who.agency_id)).fetchone()
    if row is None or (who.role == "staff" and row[-1] != who.branch_id):
        raise not_found("site", site_id)
    return row


def _site_summary(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "clientId": r[1], "name": r[2], "address": r[3], "phone": r[4], "email": r[5],
            "assessmentRequired": bool(r[6]), "createdOn": r[7]}


def _site(r: tuple[Any, ...]) -> dict[str, Any]:
    out = _site_summary(r)
    out["departments"] = json.loads(r[8])
    out["rates"] = json.loads(r[9])
    out["bannedWorkers"] = json.loads(r[10])
    out["documents"] = json.loads(r[11])
    return out
