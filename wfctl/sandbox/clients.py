"""The sandbox's client endpoints (G9: the branchId filter; G5: staff see only their branch's clients)."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.auth import Principal
from wfctl.sandbox.branches import branch_row
from wfctl.sandbox.handling import (
    Service,
    json_answer,
    read_body,
    update_fields,
)
from wfctl.sandbox.paging import page
from wfctl.sandbox.problems import ApiProblem, forbidden, not_found
from wfctl.sandbox.store import Connection

_CLIENT_COLUMNS = {"name": "name", "email": "email", "phone": "phone", "billingAddress": "billing_address"}
_CLIENT_COLS = "id, name, branch_id, email, phone, created_on"


async def list_clients(api: Service, request: Request, who: Principal) -> Response:
    branch_filter = None if api.quirks.ignore_branch_filter else request.query_params.get("branchId")
    where, args = "agency_id = ?", [who.agency_id]
    if who.role == "staff":
        where += " AND branch_id = ?"
        args.append(who.branch_id or "")
    if branch_filter is not None and "\x00" in branch_filter:
        where += " AND 1 = 0"  # no branch holds a NUL (G11), and PostgreSQL cannot be asked for one
    elif branch_filter is not None:
        where += " AND branch_id = ?"
        args.append(branch_filter)
    extra = "" if branch_filter is None else "&branchId=" + quote(branch_filter, safe="")
    rows, paging = page(api, request, "clients", _CLIENT_COLS, where, args, extra)
    return json_answer(paging.envelope([_client_summary(r) for r in rows]))


async def get_client(api: Service, request: Request, who: Principal) -> Response:
    return json_answer(_client(client_row(api, who, request.path_params["clientId"])))


async def create_client(api: Service, request: Request, who: Principal) -> Response:
    fields = v.validate(await read_body(request), v.CLIENT_CREATE, required=("name", "branchId"))
    branch_id = fields["branchId"]
    branch_row(api, who, branch_id)
    if who.role == "staff" and branch_id != who.branch_id:
        raise forbidden("staff may only create clients in their own branch")
    client_id, now = str(uuid.uuid4()), api.timestamp()
    def insert(db: Connection) -> None:
        db.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, "
                   "billing_address, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (client_id, who.agency_id, branch_id, fields["name"], api.name_key(fields["name"]),
                    fields.get("email", ""), fields.get("phone", ""), fields.get("billingAddress", ""), now))

    answer = json_answer({"id": client_id, "name": fields["name"], "branchId": branch_id,
                          "email": fields.get("email", ""), "phone": fields.get("phone", ""),
                          "billingAddress": fields.get("billingAddress", ""), "createdOn": now}, api.created)
    with api.unique("client", fields["name"], "in this branch"):
        return api.create(request, "clients", client_id, insert, answer)


async def update_client(api: Service, request: Request, who: Principal) -> Response:
    client_id = request.path_params["clientId"]
    client_row(api, who, client_id)
    fields = api.replacing(v.validate(await read_body(request), v.CLIENT_UPDATE), v.CLIENT_UPDATE)
    now = api.timestamp()
    with api.unique("client", fields.get("name"), "in this branch"), api.store.statement() as db:
        update_fields(db, "clients", client_id, fields, _CLIENT_COLUMNS, "updated_on", now, api.name_key)
    out = _client(client_row(api, who, client_id))
    del out["createdOn"]
    out["updatedOn"] = now
    return json_answer(out)


async def delete_client(api: Service, request: Request, who: Principal) -> Response:
    client_id = request.path_params["clientId"]
    client_row(api, who, client_id)
    def dependents(db: Connection) -> None:
        sites = db.execute("SELECT count(*) FROM sites WHERE client_id = ?", (client_id,)).fetchone()[0]
        if sites:
            raise ApiProblem(409, f"client {client_id} still has {sites} site(s); delete them first")

    return api.delete("client", "clients", client_id, dependents)


def client_row(api: Service, who: Principal, client_id: str) -> tuple[Any, ...]:
    row = api.db.execute(f"SELECT {_CLIENT_COLS}, billing_address, branch_id FROM clients "
                          "WHERE id = ? AND agency_id = ?", (client_id, who.agency_id)).fetchone()
    if row is None or (who.role == "staff" and row[-1] != who.branch_id):
        raise not_found("client", client_id)
    return row


def _client_summary(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "branchId": r[2], "email": r[3], "phone": r[4], "createdOn": r[5]}


def _client(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "branchId": r[2], "email": r[3], "phone": r[4], "billingAddress": r[6],
            "createdOn": r[5]}
