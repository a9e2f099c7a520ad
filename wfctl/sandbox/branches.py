"""The sandbox's branch endpoints: list, read, create, update (G13), delete (refused while clients or
staff logins are bound to it)."""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.auth import Principal
from wfctl.sandbox.handling import (
    Service,
    json_answer,
    read_body,
    update_fields,
)
from wfctl.sandbox.paging import page
from wfctl.sandbox.problems import ApiProblem, forbidden, not_found
from wfctl.sandbox.store import Connection

_BRANCH_COLUMNS = {"name": "name", "address": "address", "phone": "phone", "email": "email"}
_BRANCH_COLS = "id, name, address, phone, email, created_on"


async def list_branches(api: Service, request: Request, who: Principal) -> Response:
    rows, paging = page(api, request, "branches", _BRANCH_COLS, "agency_id = ?", [who.agency_id])
    return json_answer(paging.envelope([_branch(r) for r in rows]))


async def get_branch(api: Service, request: Request, who: Principal) -> Response:
    return json_answer(_branch(branch_row(api, who, request.path_params["branchId"])))


async def create_branch(api: Service, request: Request, who: Principal) -> Response:
    if who.role == "staff":
        raise forbidden("staff may not create branches")
    fields = v.validate(await read_body(request), v.BRANCH, required=("name",))
    branch_id, now = str(uuid.uuid4()), api.timestamp()
    def insert(db: Connection) -> None:
        db.execute("INSERT INTO branches (id, agency_id, name, name_key, address, phone, email, created_on) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (branch_id, who.agency_id, fields["name"], api.name_key(fields["name"]),
                    fields.get("address", ""), fields.get("phone", ""), fields.get("email", ""), now))

    answer = json_answer({"id": branch_id, "name": fields["name"], "address": fields.get("address", ""),
                          "phone": fields.get("phone", ""), "email": fields.get("email", ""), "createdOn": now},
                         api.created)
    with api.unique("branch", fields.get("name")):
        return api.create(request, "branches", branch_id, insert, answer)


async def update_branch(api: Service, request: Request, who: Principal) -> Response:
    if who.role == "staff":
        raise forbidden("staff may not change branches")
    branch_id = request.path_params["branchId"]
    branch_row(api, who, branch_id)
    fields = api.replacing(v.validate(await read_body(request), v.BRANCH), v.BRANCH)
    now = api.timestamp()
    with api.unique("branch", fields.get("name")), api.store.statement() as db:
        update_fields(db, "branches", branch_id, fields, _BRANCH_COLUMNS, "modified_on", now, api.name_key)
    row = branch_row(api, who, branch_id)
    out = _branch(row)
    del out["createdOn"]
    out["modifiedOn"] = now
    return json_answer(out)


async def delete_branch(api: Service, request: Request, who: Principal) -> Response:
    if who.role == "staff":
        raise forbidden("staff may not delete branches")
    branch_id = request.path_params["branchId"]
    branch_row(api, who, branch_id)
    def dependents(db: Connection) -> None:
        clients = db.execute("SELECT count(*) FROM clients WHERE branch_id = ?", (branch_id,)).fetchone()[0]
        if clients:
            raise ApiProblem(409, f"branch {branch_id} still has {clients} client(s); "
                                  "delete or move them first")
        users = db.execute("SELECT count(*) FROM users WHERE branch_id = ?", (branch_id,)).fetchone()[0]
        if users:
            raise ApiProblem(409, f"branch {branch_id} has {users} staff login(s) bound to it")

    return api.delete("branch", "branches", branch_id, dependents)


def branch_row(api: Service, who: Principal, branch_id: str) -> tuple[Any, ...]:
    row = api.db.execute(f"SELECT {_BRANCH_COLS} FROM branches WHERE id = ? AND agency_id = ?",
                          (branch_id, who.agency_id)).fetchone()
    if row is None:
        raise not_found("branch", branch_id)
    return row


def _branch(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "address": r[2], "phone": r[3], "email": r[4], "createdOn": r[5]}
