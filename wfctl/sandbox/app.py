"""The sandbox's ASGI app: every endpoint of openapi.json with the gap decisions G1-G21.

Speed matters (the sandbox must never be what limits wfctl's own benchmarks), so the handlers are
plain `async def` Starlette endpoints registered on the FastAPI app: no per-request pydantic, bodies
checked by hand (validation.py), JSON written with the standard library, short synchronous SQLite
calls on one connection. FastAPI's own schema generation is off: /openapi.json serves the project's
copy of the contract, and /docs renders that same document.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import inspect
import json
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.accounts import LOGIN_FAILURE_LIMIT, LoginThrottle
from wfctl.sandbox.auth import Principal, Tokens, dummy_hash, verify_password
from wfctl.sandbox.listquirks import Churn
from wfctl.sandbox.middleware import BodyLimit, DropCreateAnswer, EmptyAnswers, ErrorForm, Throttle
from wfctl.sandbox.problems import ApiProblem, forbidden, from_exception, invalid, not_found, problem_response
from wfctl.sandbox.quirks import Quirks, parse_quirks
from wfctl.sandbox.seed import is_published
from wfctl.sandbox.store import Connection, Store, StoreUnavailable, name_key, open_store

JSON_TYPE = "application/json"
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
IDEMPOTENCY_WINDOW = 24 * 3600
IDEMPOTENCY_WAIT = 10.0  # seconds a request waits for the answer of another with the same key
#: Seconds a client is told to wait (Retry-After) when the database is unavailable.
RETRY_AFTER = 1
IDEMPOTENCY_ABANDONED = 60.0  # seconds after which a reservation without an answer is taken over
DEFAULT_MAX_BODY = 1024 * 1024  # bytes; a larger request body is answered 413 before it is read
#: A followed nextPage seeks past the end of a page at most this many pages back (see _Paging).
SEEK_SPAN_PAGES = 32
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

Handler = Callable[[Request, Principal], Awaitable[Response]]


def create_app(
    database: str | None = None,
    *,
    seed: bool = True,
    access_ttl: int = 900,
    rate_limit: int | None = None,
    latency_ms: int = 0,
    max_body: int | None = DEFAULT_MAX_BODY,
    quirks: Quirks | Iterable[str] | None = None,
    exposed: bool = False,
    login_failure_limit: int = LOGIN_FAILURE_LIMIT,
    fast_commit: bool = False,
) -> FastAPI:
    """The sandbox app. `database`: None keeps the data in memory; else a SQLite file path, `sqlite:///file`
    or `postgresql://...` (store.open_store).

    An empty database gets the agencies and logins of G21; `seed` adds their sample records.
    `max_body`: request bodies above it (bytes) are answered 413 (None: no limit). `quirks`: tolerances
    of the contract to play (`["put-clears", "next-page=int"]`, see quirks.py); none by default.
    A database the sandbox cannot use raises store.StoreError (one line saying why).
    `exposed` (served beyond loopback): a new database's logins get random passwords, kept in
    `app.state.new_passwords` to be shown once, and the published passwords (seed.LOGINS) are refused.
    `login_failure_limit`: failed logins per user name and per address (in 15 minutes) that lock logins.
    `fast_commit` (PostgreSQL): asynchronous commits, see pgstore.py (durable by default).
    While the database cannot be reached, what needs it is answered 503 with Retry-After (StoreUnavailable)."""
    from wfctl.sandbox.seed import seed as apply_seed

    played = parse_quirks(quirks)
    store = open_store(database, fast_commit=fast_commit)
    try:
        # An empty database always gets the agencies and logins of G21.
        new_passwords = apply_seed(store, records=seed, random_passwords=exposed)
        store.purge_expired()
    except BaseException:
        store.close()
        raise
    api = SandboxApi(store, Tokens(store, access_ttl), played, exposed=exposed,
                     login_failure_limit=login_failure_limit)

    options: dict[str, Any] = {}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters:
        # Newer FastAPI asks OpenTelemetry on every request whether it is configured: about 10% of a create.
        options["telemetry"] = {"tracing": False, "metrics": False, "logs": False}
    app = FastAPI(title="Workforce Agency Management Service (sandbox)", openapi_url=None, docs_url=None,
                  redoc_url=None,
                  exception_handlers={StarletteHTTPException: _http_exception, StoreUnavailable: _unavailable,
                                      ClientDisconnect: _client_left, Exception: _server_error},
                  **options)
    app.state.store = store
    app.state.new_passwords = new_passwords
    app.state.quirks = played
    by_path: dict[str, dict[str, Callable[[Request], Awaitable[Response]]]] = {}
    for path, method, endpoint in api.routes():
        by_path.setdefault(path, {})[method] = endpoint
    for path, endpoints in by_path.items():
        app.add_route(path, _dispatch(endpoints), methods=_ALL_METHODS, include_in_schema=False)
    app.add_route("/openapi.json", _openapi, methods=["GET"], include_in_schema=False)
    app.add_route("/docs", _docs, methods=["GET"], include_in_schema=False)
    # add_middleware puts each one outside the ones before it: ErrorForm rewrites every problem, 413s included.
    if played.drop_create_answer:
        app.add_middleware(DropCreateAnswer)
    if played.empty_get or played.empty_create_answer:
        app.add_middleware(EmptyAnswers, gets=played.empty_get, creates=played.empty_create_answer)
    if rate_limit or latency_ms:
        app.add_middleware(Throttle, rate_limit=rate_limit, latency_ms=latency_ms, count_request=store.count_request)
    if max_body:
        app.add_middleware(BodyLimit, max_body=max_body)
    if played.errors != "problem":
        app.add_middleware(ErrorForm, form=played.errors)
    return app


def openapi_document() -> dict[str, Any]:
    """The contract the sandbox implements (the project's own copy, shipped in the package)."""
    text = resources.files("wfctl.sandbox").joinpath("openapi.json").read_text(encoding="utf-8")
    return json.loads(text)


class SandboxApi:
    """The endpoints. Each handler checks the role, the tenancy, the body, then touches the database."""

    def __init__(self, store: Store, tokens: Tokens, quirks: Quirks | None = None, *, exposed: bool = False,
                 login_failure_limit: int = LOGIN_FAILURE_LIMIT) -> None:
        self.store = store
        self.exposed = exposed
        self.db = store.db
        self.tokens = tokens
        self.quirks = quirks or Quirks()
        self.created = 200 if self.quirks.create_200 else 201
        self.throttle = LoginThrottle(store, limit=login_failure_limit)
        self.churn = Churn() if self.quirks.churn_pages else None  # quirk churn-pages (listquirks.py)

    def routes(self) -> list[tuple[str, str, Callable[[Request], Awaitable[Response]]]]:
        p = self._protected
        routes = [
            ("/identity/login", "POST", self._public(self.login)),
            ("/identity/refresh", "POST", self._public(self.refresh)),
            ("/api/agency/", "GET", p(self.get_agency)),
            ("/api/agency/", "PUT", p(self.update_agency)),
            ("/api/branches", "GET", p(self.list_branches)),
            ("/api/branches", "POST", p(self.create_branch)),
            ("/api/branches/{branchId}", "GET", p(self.get_branch)),
            ("/api/branches/{branchId}", "PUT", p(self.update_branch)),
            ("/api/branches/{branchId}", "DELETE", p(self.delete_branch)),
            ("/api/clients", "GET", p(self.list_clients)),
            ("/api/clients", "POST", p(self.create_client)),
            ("/api/clients/{clientId}", "GET", p(self.get_client)),
            ("/api/clients/{clientId}", "PUT", p(self.update_client)),
            ("/api/clients/{clientId}", "DELETE", p(self.delete_client)),
            ("/api/clients/{clientId}/sites", "GET", p(self.list_sites)),
            ("/api/clients/{clientId}/sites", "POST", p(self.create_site)),
            ("/api/sites/{siteId}", "GET", p(self.get_site)),
            ("/api/sites/{siteId}", "PUT", p(self.update_site)),
            ("/api/sites/{siteId}", "DELETE", p(self.delete_site)),
        ]
        if self.quirks.no_agency_update:  # G6 tolerance: the path answers 405, allowing GET only
            routes = [route for route in routes if route[:2] != ("/api/agency/", "PUT")]
        return routes

    # ---- identity (G1-G4) -----------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        field = self.quirks.login_field  # G1 tolerance: another name for the user field
        schema = v.LOGIN if field == "username" else {field: v.LOGIN["username"], "password": v.LOGIN["password"]}
        body = v.validate(v.parse_json_body(await request.body()), schema, required=(field, "password"))
        username = body[field]
        user = self.tokens.find_user(username)
        stored = user[1] if user else dummy_hash()
        # scrypt is deliberately slow: keep it off the event loop. It runs whether the user exists or not,
        # and whether the login is locked or not, so the time of an answer tells neither.
        verified = await asyncio.to_thread(verify_password, body["password"], stored)
        address = request.client.host if request.client else ""
        wait = self.throttle.locked_for(username, address)
        if wait:  # even a right password: the lock holds until the failures leave the window
            _log_note(request, f"login throttled: {username}")
            raise ApiProblem(429, "too many failed logins for this user name or from this address; try again in "
                                  f"{_minutes(wait)}", headers={"Retry-After": str(wait)})
        if user is None or not verified or (self.exposed and is_published(username, body["password"])):
            self.throttle.failed(username, address)
            _log_note(request, f"login failed: {username}")
            raise ApiProblem(401, "wrong username or password", headers={"WWW-Authenticate": "Bearer"})
        self.throttle.succeeded(username)
        _log_note(request, username)
        return _json(self._token_answer(self.tokens.login(user[0])))

    async def refresh(self, request: Request) -> Response:
        body = v.validate(v.parse_json_body(await request.body()), v.REFRESH,
                          required=("accessToken", "refreshToken"))
        return _json(self._token_answer(self.tokens.refresh(body["accessToken"], body["refreshToken"])))

    def _token_answer(self, tokens: dict[str, object]) -> dict[str, object]:
        if self.quirks.no_expires_in:  # G2 tolerance
            tokens.pop("expiresIn", None)
        return tokens

    # ---- agency (G6) ----------------------------------------------------------------------------

    async def get_agency(self, request: Request, who: Principal) -> Response:
        return _json(self._agency(who.agency_id))

    async def update_agency(self, request: Request, who: Principal) -> Response:
        if who.role != "admin":
            raise forbidden("only an admin may update the agency")
        fields = v.validate(await _body(request), v.AGENCY)
        if fields:
            sets = ", ".join(f"{_AGENCY_COLUMNS[k]} = ?" for k in fields)
            with self.store.statement() as db:
                db.execute(f"UPDATE agencies SET {sets} WHERE id = ?", (*fields.values(), who.agency_id))
        return _json(self._agency(who.agency_id))

    def _agency(self, agency_id: str) -> dict[str, Any]:
        row = self.db.execute("SELECT name, email, phone, work_week_start, calendar_year_start, "
                              "holiday_year_start, holiday_cap_hours FROM agencies WHERE id = ?",
                              (agency_id,)).fetchone()
        return {"name": row[0], "email": row[1], "phone": row[2], "workWeekStart": row[3],
                "calendarYearStart": row[4], "holidayYearStart": row[5], "holidayCapHours": row[6]}

    # ---- branches -------------------------------------------------------------------------------

    async def list_branches(self, request: Request, who: Principal) -> Response:
        rows, paging = self._page(request, "branches", _BRANCH_COLS, "agency_id = ?", [who.agency_id])
        return _json(paging.envelope([_branch(r) for r in rows]))

    async def get_branch(self, request: Request, who: Principal) -> Response:
        return _json(_branch(self._branch_row(who, request.path_params["branchId"])))

    async def create_branch(self, request: Request, who: Principal) -> Response:
        if who.role == "staff":
            raise forbidden("staff may not create branches")
        fields = v.validate(await _body(request), v.BRANCH, required=("name",))
        branch_id, now = str(uuid.uuid4()), _now()
        with self._unique("branch", fields.get("name")), self.store.statement() as db:
            db.execute("INSERT INTO branches (id, agency_id, name, name_key, address, phone, email, created_on) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (branch_id, who.agency_id, fields["name"], self._name_key(fields["name"]),
                        fields.get("address", ""), fields.get("phone", ""), fields.get("email", ""), now))
        return _json({"id": branch_id, "name": fields["name"], "address": fields.get("address", ""),
                      "phone": fields.get("phone", ""), "email": fields.get("email", ""), "createdOn": now}, self.created)

    async def update_branch(self, request: Request, who: Principal) -> Response:
        if who.role == "staff":
            raise forbidden("staff may not change branches")
        branch_id = request.path_params["branchId"]
        self._branch_row(who, branch_id)
        fields = self._replacing(v.validate(await _body(request), v.BRANCH), v.BRANCH)
        now = _now()
        with self._unique("branch", fields.get("name")), self.store.statement() as db:
            _update(db, "branches", branch_id, fields, _BRANCH_COLUMNS, "modified_on", now, self._name_key)
        row = self._branch_row(who, branch_id)
        out = _branch(row)
        del out["createdOn"]
        out["modifiedOn"] = now
        return _json(out)

    async def delete_branch(self, request: Request, who: Principal) -> Response:
        if who.role == "staff":
            raise forbidden("staff may not delete branches")
        branch_id = request.path_params["branchId"]
        self._branch_row(who, branch_id)
        def delete(db: Connection) -> None:
            clients = db.execute("SELECT count(*) FROM clients WHERE branch_id = ?", (branch_id,)).fetchone()[0]
            if clients:
                raise ApiProblem(409, f"branch {branch_id} still has {clients} client(s); "
                                      "delete or move them first")
            users = db.execute("SELECT count(*) FROM users WHERE branch_id = ?", (branch_id,)).fetchone()[0]
            if users:
                raise ApiProblem(409, f"branch {branch_id} has {users} staff login(s) bound to it")
            db.execute("DELETE FROM branches WHERE id = ?", (branch_id,))

        self.store.atomic(delete)
        return _deleted("branch")

    def _page(self, request: Request, table: str, cols: str, where: str, args: list[Any],
              extra_query: str = "") -> tuple[list[tuple[Any, ...]], _Paging]:
        """One page of a list (G7), ordered by (created_on, id); `cols` starts with id and ends with created_on.

        `pageNumber` alone is a direct jump (OFFSET). With a `cursor` (written by `_Paging`) the server
        seeks instead: a forward cursor says "page p ends at this sort key", so page n > p is the rows past
        that key, skipping the n-p-1 whole pages between (at most SEEK_SPAN_PAGES - 1 when the links are
        followed); a backward cursor says "page q starts at this key", and serves page q-1 as the rows
        before it. A cursor that cannot serve the pageNumber asked for leaves it a direct jump."""
        page, size, raw_cursor, page_given = _page_params(request)
        path = f"{request.url.path}?pageSize={size}{extra_query}"
        seek = None if raw_cursor is None else _read_cursor(self.store.cursor_key, path, raw_cursor)
        if seek is not None and not page_given:
            page = seek.page + 1 if seek.forward else seek.page - 1
        if self.churn is not None:
            self.churn.before_page(self.store, path, page, table, where, args)
        if self.quirks.ignore_page_number:  # every page answers page 1's rows, under the number asked for
            rows = self.db.execute(f"SELECT {cols} FROM {table} WHERE {where} ORDER BY created_on, id LIMIT ?",
                                   (*args, size + 1)).fetchall()
            return rows[:size], _Paging(self, request, path, self.store.count(table, where, args), page, size,
                                        rows[:size], len(rows) > size)
        db = self.db
        total = self.store.count(table, where, args)
        select = f"SELECT {cols} FROM {table} WHERE {where}"
        if seek is not None and seek.forward and page > seek.page:
            rows = db.execute(f"{select} AND (created_on, id) > (?, ?) ORDER BY created_on, id LIMIT ? OFFSET ?",
                              (*args, seek.created_on, seek.id, size + 1, _offset(page - seek.page, size))).fetchall()
            more = len(rows) > size
            return rows[:size], _Paging(self, request, path, total, page, size, rows[:size], more, seek, raw_cursor)
        if seek is not None and not seek.forward and page == seek.page - 1 > 1:
            rows = db.execute(f"{select} AND (created_on, id) < (?, ?) ORDER BY created_on DESC, id DESC LIMIT ?",
                              (*args, seek.created_on, seek.id, size + 1)).fetchall()
            if len(rows) > size:  # rows before this page: it is not the start of the list
                rows = rows[size - 1::-1]
                after = db.execute(f"SELECT 1 FROM {table} WHERE {where} AND (created_on, id) > (?, ?) LIMIT 1",
                                   (*args, rows[-1][-1], rows[-1][0])).fetchone()
                return rows, _Paging(self, request, path, total, page, size, rows, after is not None)
            page = 1  # back at the start of the list: page 1, as a jump serves it
        rows = db.execute(f"{select} ORDER BY created_on, id LIMIT ? OFFSET ?",
                          (*args, size + 1, _offset(page, size))).fetchall()
        more = len(rows) > size
        return rows[:size], _Paging(self, request, path, total, page, size, rows[:size], more)

    def _branch_row(self, who: Principal, branch_id: str) -> tuple[Any, ...]:
        row = self.db.execute(f"SELECT {_BRANCH_COLS} FROM branches WHERE id = ? AND agency_id = ?",
                              (branch_id, who.agency_id)).fetchone()
        if row is None:
            raise not_found("branch", branch_id)
        return row

    # ---- clients (G9; staff see only their branch's clients, G5) -------------------------------

    async def list_clients(self, request: Request, who: Principal) -> Response:
        branch_filter = None if self.quirks.ignore_branch_filter else request.query_params.get("branchId")
        where, args = "agency_id = ?", [who.agency_id]
        if who.role == "staff":
            where += " AND branch_id = ?"
            args.append(who.branch_id or "")
        if branch_filter is not None:
            where += " AND branch_id = ?"
            args.append(branch_filter)
        extra = "" if branch_filter is None else "&branchId=" + quote(branch_filter, safe="")
        rows, paging = self._page(request, "clients", _CLIENT_COLS, where, args, extra)
        return _json(paging.envelope([_client_summary(r) for r in rows]))

    async def get_client(self, request: Request, who: Principal) -> Response:
        return _json(_client(self._client_row(who, request.path_params["clientId"])))

    async def create_client(self, request: Request, who: Principal) -> Response:
        fields = v.validate(await _body(request), v.CLIENT_CREATE, required=("name", "branchId"))
        branch_id = fields["branchId"]
        self._branch_row(who, branch_id)
        if who.role == "staff" and branch_id != who.branch_id:
            raise forbidden("staff may only create clients in their own branch")
        client_id, now = str(uuid.uuid4()), _now()
        with self._unique("client", fields["name"], "in this branch"), self.store.statement() as db:
            db.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, "
                       "billing_address, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (client_id, who.agency_id, branch_id, fields["name"], self._name_key(fields["name"]),
                        fields.get("email", ""), fields.get("phone", ""), fields.get("billingAddress", ""), now))
        return _json({"id": client_id, "name": fields["name"], "branchId": branch_id,
                      "email": fields.get("email", ""), "phone": fields.get("phone", ""),
                      "billingAddress": fields.get("billingAddress", ""), "createdOn": now}, self.created)

    async def update_client(self, request: Request, who: Principal) -> Response:
        client_id = request.path_params["clientId"]
        self._client_row(who, client_id)
        fields = self._replacing(v.validate(await _body(request), v.CLIENT_UPDATE), v.CLIENT_UPDATE)
        now = _now()
        with self._unique("client", fields.get("name"), "in this branch"), self.store.statement() as db:
            _update(db, "clients", client_id, fields, _CLIENT_COLUMNS, "updated_on", now, self._name_key)
        out = _client(self._client_row(who, client_id))
        del out["createdOn"]
        out["updatedOn"] = now
        return _json(out)

    async def delete_client(self, request: Request, who: Principal) -> Response:
        client_id = request.path_params["clientId"]
        self._client_row(who, client_id)
        def delete(db: Connection) -> None:
            sites = db.execute("SELECT count(*) FROM sites WHERE client_id = ?", (client_id,)).fetchone()[0]
            if sites:
                raise ApiProblem(409, f"client {client_id} still has {sites} site(s); delete them first")
            db.execute("DELETE FROM clients WHERE id = ?", (client_id,))

        self.store.atomic(delete)
        return _deleted("client")

    def _client_row(self, who: Principal, client_id: str) -> tuple[Any, ...]:
        row = self.db.execute(f"SELECT {_CLIENT_COLS}, billing_address, branch_id FROM clients "
                              "WHERE id = ? AND agency_id = ?", (client_id, who.agency_id)).fetchone()
        if row is None or (who.role == "staff" and row[-1] != who.branch_id):
            raise not_found("client", client_id)
        return row

    # ---- sites ----------------------------------------------------------------------------------

    async def list_sites(self, request: Request, who: Principal) -> Response:
        client_id = request.path_params["clientId"]
        _page_params(request)  # a bad pageNumber/pageSize is a 400 before a missing client is a 404
        self._client_row(who, client_id)
        rows, paging = self._page(request, "sites", _SITE_SUMMARY_COLS, "client_id = ?", [client_id])
        return _json(paging.envelope([_site_summary(r) for r in rows]))

    async def get_site(self, request: Request, who: Principal) -> Response:
        return _json(_site(self._site_row(who, request.path_params["siteId"])))

    async def create_site(self, request: Request, who: Principal) -> Response:
        client_id = request.path_params["clientId"]
        client = self._client_row(who, client_id)
        fields = v.validate(await _body(request), v.SITE, required=("name",))
        site_id, now = str(uuid.uuid4()), _now()
        site = {"id": site_id, "clientId": client_id, "name": fields["name"],
                "address": fields.get("address", ""), "phone": fields.get("phone", ""),
                "email": fields.get("email", ""), "assessmentRequired": fields.get("assessmentRequired", False),
                "departments": fields.get("departments", []), "rates": fields.get("rates", []),
                "bannedWorkers": fields.get("bannedWorkers", []), "documents": [], "createdOn": now}
        with self._unique("site", fields["name"], "for this client"), self.store.statement() as db:
            db.execute(
                "INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, email, "
                "assessment_required, departments, rates, banned_workers, documents, created_on) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?)",
                (site_id, who.agency_id, client[-1], client_id, site["name"], self._name_key(fields["name"]),
                 site["address"], site["phone"], site["email"], int(site["assessmentRequired"]),
                 _dumps(site["departments"]), _dumps(site["rates"]), _dumps(site["bannedWorkers"]), now))
        return _json(site, self.created)

    async def update_site(self, request: Request, who: Principal) -> Response:
        site_id = request.path_params["siteId"]
        row = self._site_row(who, site_id)
        fields = self._replacing(v.validate(await _body(request), v.SITE), v.SITE)
        now = _now()
        stored = {k: (_dumps(val) if isinstance(val, list) else int(val) if isinstance(val, bool) else val)
                  for k, val in fields.items()}
        with self._unique("site", fields.get("name"), "for this client"), self.store.statement() as db:
            _update(db, "sites", site_id, stored, _SITE_COLUMNS, "updated_on", now, self._name_key)
        # G13 / the specification: the answer carries id, clientId, the fields sent, and updatedOn.
        return _json({"id": site_id, "clientId": row[1], **fields, "updatedOn": now})

    async def delete_site(self, request: Request, who: Principal) -> Response:
        site_id = request.path_params["siteId"]
        self._site_row(who, site_id)
        with self.store.statement() as db:
            db.execute("DELETE FROM sites WHERE id = ?", (site_id,))
        return _deleted("site")

    def _site_row(self, who: Principal, site_id: str) -> tuple[Any, ...]:
        row = self.db.execute(f"SELECT {_SITE_COLS}, branch_id FROM sites WHERE id = ? AND agency_id = ?",
                              (site_id, who.agency_id)).fetchone()
        if row is None or (who.role == "staff" and row[-1] != who.branch_id):
            raise not_found("site", site_id)
        return row

    # ---- plumbing -------------------------------------------------------------------------------

    def _name_key(self, name: str) -> str:
        """The key of the UNIQUE index (G12, store.name_key); with no-unique-names, never a duplicate."""
        if self.quirks.no_unique_names:
            return f"{name_key(name)}\n{uuid.uuid4()}"  # names are trimmed: never end in a newline
        return name_key(name)

    def _replacing(self, fields: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """put-clears (G13 tolerance): a PUT is the whole record, so what it leaves out is cleared."""
        if not self.quirks.put_clears:
            return fields
        if "name" not in fields:
            raise invalid({"name": ["is required: a PUT replaces the whole record here"]})
        return {**{name: _CLEARED.get(name, "") for name in schema}, **fields}

    def _unique(self, kind: str, name: str | None, scope: str = "in this agency") -> _UniqueGuard:
        return _UniqueGuard(self.store, kind, name, scope)

    def _public(self, handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except ApiProblem as exc:
                return from_exception(exc)

        return endpoint

    def _protected(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                who = self.tokens.authenticate(request.headers.get("authorization"))
                _log_note(request, who.username)
                key = request.headers.get("idempotency-key") if request.method == "POST" else None
                if self.quirks.ignore_idempotency_key:  # G20 tolerance
                    key = None
                if key is not None:
                    return await self._idempotent(request, who, key, handler)
                return await handler(request, who)
            except ApiProblem as exc:
                return from_exception(exc)

        return endpoint

    async def _idempotent(self, request: Request, who: Principal, key: str, handler: Handler) -> Response:
        """G20: a POST with `Idempotency-Key` is applied once; the same key and body replay the answer.

        The first request reserves the key (the table's primary key: of any number of concurrent requests,
        in any server process, one gets it), runs, and stores its answer there; a request that finds the
        key reserved waits for that answer. A 5xx answer releases the key; a reservation left by a process
        that died mid-request is taken over after IDEMPOTENCY_ABANDONED seconds."""
        if not key.strip() or len(key) > 255:
            raise ApiProblem(400, "Idempotency-Key must be 1-255 characters",
                             errors={"Idempotency-Key": ["must be 1-255 characters"]})
        fingerprint = _fingerprint(request.url.path, await request.body())
        waited_until = time.monotonic() + IDEMPOTENCY_WAIT
        while True:
            now = time.time()
            reserved = self.db.execute(
                "INSERT INTO idempotency_keys (user_id, key, fingerprint, status, media_type, body, created_at) "
                "VALUES (?, ?, ?, 0, '', ?, ?) ON CONFLICT (user_id, key) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, status = 0, media_type = '', body = excluded.body, "
                "created_at = excluded.created_at WHERE idempotency_keys.created_at < ? "
                "OR (idempotency_keys.status = 0 AND idempotency_keys.created_at < ?) RETURNING status",
                (who.user_id, key, fingerprint, b"", now, now - IDEMPOTENCY_WINDOW,
                 now - IDEMPOTENCY_ABANDONED)).fetchone()
            if reserved is not None:
                return await self._answer_once(request, who, key, handler)
            row = self.db.execute("SELECT fingerprint, status, media_type, body FROM idempotency_keys "
                                  "WHERE user_id = ? AND key = ?", (who.user_id, key)).fetchone()
            if row is None:  # released meanwhile (that request failed): reserve it again
                continue
            if row[0] != fingerprint:
                raise ApiProblem(422, "this Idempotency-Key was already used with another request body")
            if row[1]:
                return Response(bytes(row[3]), status_code=row[1], media_type=row[2],
                                headers={"Idempotent-Replayed": "true"})
            if time.monotonic() > waited_until:
                raise ApiProblem(503, "a request with this Idempotency-Key is still being answered; retry it",
                                 headers={"Retry-After": "1"})
            await asyncio.sleep(0.02)

    async def _answer_once(self, request: Request, who: Principal, key: str, handler: Handler) -> Response:
        """Run the request that reserved `key`, and keep its answer (or release the key after a 5xx)."""
        try:
            response = await handler(request, who)
        except ApiProblem as exc:
            response = from_exception(exc)
        except BaseException:
            self.db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?", (who.user_id, key))
            raise
        if response.status_code < 500:
            self.db.execute("UPDATE idempotency_keys SET status = ?, media_type = ?, body = ? "
                            "WHERE user_id = ? AND key = ?",
                            (response.status_code, response.media_type or JSON_TYPE, bytes(response.body),
                             who.user_id, key))
        else:
            self.db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?", (who.user_id, key))
        return response


class _UniqueGuard:
    """Turns the integrity error of a UNIQUE index (G12) into a 409, whatever the concurrency."""

    def __init__(self, store: Store, kind: str, name: str | None, scope: str) -> None:
        self.store, self.kind, self.name, self.scope = store, kind, name, scope

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        if exc is not None and isinstance(exc, self.store.integrity_errors):
            if self.store.is_unique_violation(exc):
                raise ApiProblem(409, f"a {self.kind} named {self.name!r} already exists {self.scope}") from None
            raise ApiProblem(409, f"the {self.kind} conflicts with another record: {exc}") from None


# ---- columns and shapes -------------------------------------------------------------------------

_AGENCY_COLUMNS = {"name": "name", "email": "email", "phone": "phone", "workWeekStart": "work_week_start",
                   "calendarYearStart": "calendar_year_start", "holidayYearStart": "holiday_year_start",
                   "holidayCapHours": "holiday_cap_hours"}
_BRANCH_COLUMNS = {"name": "name", "address": "address", "phone": "phone", "email": "email"}
_CLIENT_COLUMNS = {"name": "name", "email": "email", "phone": "phone", "billingAddress": "billing_address"}
_SITE_COLUMNS = {"name": "name", "address": "address", "phone": "phone", "email": "email",
                 "assessmentRequired": "assessment_required", "departments": "departments", "rates": "rates",
                 "bannedWorkers": "banned_workers"}
_CLEARED: dict[str, Any] = {"assessmentRequired": False, "departments": [], "rates": [], "bannedWorkers": []}
_BRANCH_COLS = "id, name, address, phone, email, created_on"
_CLIENT_COLS = "id, name, branch_id, email, phone, created_on"
_SITE_SUMMARY_COLS = "id, client_id, name, address, phone, email, assessment_required, created_on"
_SITE_COLS = _SITE_SUMMARY_COLS + ", departments, rates, banned_workers, documents"


def _branch(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "address": r[2], "phone": r[3], "email": r[4], "createdOn": r[5]}


def _client_summary(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "branchId": r[2], "email": r[3], "phone": r[4], "createdOn": r[5]}


def _client(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[0], "name": r[1], "branchId": r[2], "email": r[3], "phone": r[4], "billingAddress": r[6],
            "createdOn": r[5]}


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


def _deleted(kind: str) -> Response:
    return _json({"status": "success", "message": f"{kind} deleted"})


def _update(db: Connection, table: str, record_id: str, fields: dict[str, Any],
            columns: dict[str, str], stamp_column: str, now: str, name_key: Callable[[str], str]) -> None:
    """G13: only the fields sent change; a field left out keeps its value."""
    sets = [f"{columns[k]} = ?" for k in fields]
    args = list(fields.values())
    if "name" in fields:
        sets.append("name_key = ?")
        args.append(name_key(str(fields["name"])))
    sets.append(f"{stamp_column} = ?")
    args.append(now)
    db.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE id = ?", (*args, record_id))


# ---- pagination (G7, G8) ------------------------------------------------------------------------


def _page_params(request: Request) -> tuple[int, int, str | None, bool]:
    """pageNumber, pageSize (at most MAX_PAGE_SIZE), the raw cursor, and whether pageNumber was given."""
    query = request.query_params
    errors: dict[str, list[str]] = {}
    page = _positive_int(query.get("pageNumber"), 1, "pageNumber", errors)
    size = _positive_int(query.get("pageSize"), DEFAULT_PAGE_SIZE, "pageSize", errors)
    if errors:
        raise ApiProblem(400, "invalid paging parameters", errors=errors)
    return page, min(size, MAX_PAGE_SIZE), query.get("cursor"), "pageNumber" in query


@dataclass(frozen=True)
class _Seek:
    """What a cursor holds: forward, "page `page` ends at this sort key"; backward, "page `page` starts
    at this sort key"."""

    page: int
    created_on: str
    id: str
    forward: bool


def _cursor_mac(key: bytes, path: str, payload: bytes) -> bytes:
    # Bound to the list and page size (`path` holds both), so a cursor of another list is refused too.
    return hmac.new(key, path.encode() + b"\n" + payload, hashlib.sha256).digest()[:16]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _write_cursor(key: bytes, path: str, seek: _Seek) -> str:
    """base64url of a small JSON [page, createdOn, id, "n"|"p"], a dot, and its signature."""
    payload = json.dumps([seek.page, seek.created_on, seek.id, "n" if seek.forward else "p"],
                         separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_cursor_mac(key, path, payload))}"


_CURSOR_FORM = re.compile(r"[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{1,100}")


def _read_cursor(key: bytes, path: str, raw: str) -> _Seek:
    """The seek a cursor names; a malformed, forged or foreign one (another list or page size) is a 400."""
    bad = ApiProblem(400, "invalid paging parameters",
                     errors={"cursor": ["is not a cursor of this list and page size: follow the nextPage link "
                                        "as given, or use pageNumber"]})
    if not _CURSOR_FORM.fullmatch(raw.strip()):
        raise bad
    body, _, mac = raw.strip().partition(".")
    try:
        payload, signature = _unb64(body), _unb64(mac)
    except (ValueError, binascii.Error):
        raise bad from None
    if not hmac.compare_digest(signature, _cursor_mac(key, path, payload)):
        raise bad
    try:
        page, created_on, record_id, direction = json.loads(payload)
    except (ValueError, TypeError):
        raise bad from None
    if not (isinstance(page, int) and page >= 1 and isinstance(created_on, str) and isinstance(record_id, str)
            and direction in ("n", "p")):
        raise bad
    return _Seek(page, created_on, record_id, direction == "n")


class _Paging:
    """The envelope of one page (G7) and its links (G8; quirk next-page=FORM).

    The URL forms (absolute, the default, and relative) name the page by number and carry a cursor the
    server seeks with. nextPage's cursor is the end of a recent page: the one this page was reached
    from, kept while it is fewer than SEEK_SPAN_PAGES pages back, else this page's last row. So a
    list's links differ only in pageNumber for SEEK_SPAN_PAGES pages at a time: a reader that fetches
    pages ahead by number (wfctl's does) still can, and a link followed on page 200 costs what page 1
    costs. previousPage's cursor is this page's first row. The other forms can only name a number."""

    def __init__(self, api: SandboxApi, request: Request, path: str, total: int, page: int, size: int,
                 rows: list[tuple[Any, ...]], more: bool, anchor: _Seek | None = None,
                 anchor_cursor: str | None = None) -> None:
        self.api, self.request, self.path = api, request, path
        self.total, self.page, self.size, self.rows, self.more = total, page, size, rows, more
        self.anchor, self.anchor_cursor = anchor, anchor_cursor

    def envelope(self, data: list[dict[str, Any]]) -> dict[str, Any]:
        form = self.api.quirks.next_page
        envelope: dict[str, Any] = {"data": data, "pageNumber": self.page, "pageSize": self.size}
        if form != "missing":
            envelope["nextPage"] = self._link(self.page + 1, self._next_cursor(), form) if self.more else None
            envelope["previousPage"] = (self._link(self.page - 1, self._previous_cursor(), form)
                                        if self.page > 1 else None)
        envelope["pageCount"] = -(-self.total // self.size)
        envelope["totalRecordCount"] = self.total
        return envelope

    def _next_cursor(self) -> str | None:
        if self.anchor is not None and self.anchor_cursor is not None and self.page + 1 - self.anchor.page \
                <= SEEK_SPAN_PAGES:
            return self.anchor_cursor.strip()
        if not self.rows:
            return None
        last = self.rows[-1]
        return _write_cursor(self.api.store.cursor_key, self.path, _Seek(self.page, last[-1], last[0], True))

    def _previous_cursor(self) -> str | None:
        if not self.rows or self.page <= 2:
            return None  # page 1 (or a page past the end): a jump is as cheap, or there is no row to seek from
        first = self.rows[0]
        return _write_cursor(self.api.store.cursor_key, self.path, _Seek(self.page, first[-1], first[0], False))

    def _link(self, page: int, cursor: str | None, form: str) -> Any:
        if form == "int":
            return page
        if form == "string":
            return str(page)
        if form == "object":
            return {"pageNumber": page}
        link = f"{self.path}&pageNumber={page}" + ("" if cursor is None else f"&cursor={cursor}")
        if form == "relative":
            return link
        return f"{self.request.url.scheme}://{self.request.url.netloc}{link}"


def _positive_int(raw: str | None, default: int, name: str, errors: dict[str, list[str]]) -> int:
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        errors[name] = ["must be an integer"]
        return default
    if value < 1:
        errors[name] = ["must be 1 or more"]
    return value


def _offset(page: int, size: int) -> int:
    # A page far past the end is simply empty; keep the OFFSET inside SQLite's 64-bit range.
    return min((page - 1) * size, 2**62)


# ---- small helpers ------------------------------------------------------------------------------


async def _body(request: Request) -> Any:
    return v.parse_json_body(await request.body())


def _json(payload: Any, status: int = 200) -> Response:
    return Response(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode(),
                    status_code=status, media_type=JSON_TYPE)


def _log_note(request: Request, note: str) -> None:
    """What the request log (server.RequestLog, --log-requests) adds to this request's line: the user,
    or a failed login's name. Never a password or a token."""
    request.state.log_note = note


def _minutes(seconds: int) -> str:
    minutes = -(-seconds // 60)
    return f"{seconds} seconds" if seconds < 60 else f"{minutes} minute{'s' if minutes != 1 else ''}"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _fingerprint(path: str, raw: bytes) -> str:
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError, RecursionError):
        canonical = raw
    return hashlib.sha256(path.encode() + b"\n" + canonical).hexdigest()


def _dispatch(endpoints: dict[str, Callable[[Request], Awaitable[Response]]]) -> Callable[[Request], Awaitable[Response]]:
    """One route per path: the method picks the handler; any other method is a 405 that lists them all."""
    allow = ", ".join(endpoints)

    async def endpoint(request: Request) -> Response:
        handler = endpoints.get(request.method)
        if handler is None:
            return problem_response(405, f"{request.method} is not allowed here; allowed: {allow}",
                                    headers={"Allow": allow})
        return await handler(request)

    return endpoint


async def _openapi(request: Request) -> Response:
    return _json(_OPENAPI)


async def _docs(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(openapi_url="/openapi.json", title="Workforce Agency Management Service - sandbox")


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404:
        detail = f"no endpoint {request.method} {request.url.path}"
    return problem_response(exc.status_code, detail, headers=dict(exc.headers or {}))


async def _client_left(request: Request, exc: Exception) -> Response:
    """The client left (or was cut off by the server's read deadline) before its body arrived: nothing to
    answer, and nothing to log."""
    return problem_response(400, "the request body did not arrive")


async def _unavailable(request: Request, exc: Exception) -> Response:
    """The database is down or restarting: a 503 the client may retry (never a 500, never a long wait)."""
    return problem_response(503, "the sandbox's database is unavailable (restarting or down); retry shortly",
                            headers={"Retry-After": str(RETRY_AFTER)})


async def _server_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, StoreUnavailable):  # raised in a middleware, outside the handlers' exception handling
        return await _unavailable(request, exc)
    return problem_response(500, f"internal error: {type(exc).__name__}")


_OPENAPI = openapi_document()
