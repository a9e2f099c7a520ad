"""The sandbox's ASGI app: every endpoint of openapi.json with the gap decisions G1-G21.

Speed matters (the sandbox must never be what limits wfctl's own benchmarks), so the handlers are
plain `async def` Starlette endpoints registered on the FastAPI app: no per-request pydantic, bodies
checked by hand (validation.py), JSON written with the standard library, short synchronous SQLite
calls on one connection. FastAPI's own schema generation is off: /openapi.json serves the project's
copy of the contract, and /docs renders that same document.

This module builds the app (routes, middleware, error answers); the handlers are one module per resource
(identity, agency, branches, clients, sites), on the state and helpers of handling.py, with paging.py
(G7, G8) and idempotency.py (G20).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable
from importlib import resources
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp

from wfctl.sandbox import agency, branches, clients, idempotency, identity, sites
from wfctl.sandbox.accounts import LOGIN_FAILURE_LIMIT
from wfctl.sandbox.auth import Tokens, token_hash
from wfctl.sandbox.behaviour import DEFAULT_ACCESS_TTL, Behaviour, Played
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.faults import RETRY_AFTER, Failsafe, unavailable_response
from wfctl.sandbox.handling import Service, json_answer, log_caller
from wfctl.sandbox.idempotency import Handler
from wfctl.sandbox.journal import DEFAULT_CAPACITY, Recorder, RequestJournal
from wfctl.sandbox.middleware import AsPlayed, BodyLimit, OwnRedirects, played_inside, played_outside
from wfctl.sandbox.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, SEEK_SPAN_PAGES
from wfctl.sandbox.problems import ApiProblem, from_exception, problem_response
from wfctl.sandbox.quirks import Quirks
from wfctl.sandbox.store import Store, StoreUnavailable, open_store
from wfctl.sandbox.tenancy import TenantScope
from wfctl.sandbox.tokenforms import DEFAULT_JWT_SIZE

__all__ = ["DEFAULT_MAX_BODY", "DEFAULT_PAGE_SIZE", "MAX_PAGE_SIZE", "RETRY_AFTER", "SEEK_SPAN_PAGES", "SandboxApi",
           "create_app", "openapi_document"]

DEFAULT_MAX_BODY = 1024 * 1024  # bytes; a larger request body is answered 413 before it is read
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]


def create_app(
    database: str | None = None,
    *,
    seed: bool = True,
    access_ttl: int = DEFAULT_ACCESS_TTL,
    rate_limit: int | None = None,
    latency_ms: int = 0,
    max_body: int | None = DEFAULT_MAX_BODY,
    quirks: Quirks | Iterable[str] | None = None,
    exposed: bool = False,
    login_failure_limit: int = LOGIN_FAILURE_LIMIT,
    fast_commit: bool = False,
    journal_capacity: int = DEFAULT_CAPACITY,
    control_token: str | None = None,
    token_form: str = "opaque",
    token_size: int = DEFAULT_JWT_SIZE,
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
    `token_form`: "opaque" tokens, or "jwt": JWT-shaped ones of `token_size` characters (tokenforms.py).
    `fast_commit` (PostgreSQL): asynchronous commits, see pgstore.py (durable by default).
    While the database cannot be reached, what needs it is answered 503 with Retry-After (StoreUnavailable).

    The seams (docs/sandbox.md, "Seams"): `app.state.behaviour` (behaviour.py) holds the quirks, the
    access-token lifetime, the rate limit, the latency and the injected faults, and may be changed while
    the app serves; `app.state.clock` (clock.py) is the time every part asks; `app.state.journal`
    (journal.py) records each request, the newest `journal_capacity` kept.
    `control_token` turns on the control plane (control.py) under `/_control/`, outside everything else."""
    from wfctl.sandbox.seed import seed as apply_seed

    behaviour = Behaviour(quirks=quirks, access_ttl=access_ttl, rate_limit=rate_limit, latency_ms=latency_ms,
                          token_form=token_form, token_size=token_size)
    clock = Clock()
    store = open_store(database, fast_commit=fast_commit)
    try:
        # An empty database always gets the agencies and logins of G21.
        new_passwords = apply_seed(store, records=seed, random_passwords=exposed, clock=clock)
        store.purge_expired(clock.time())
        idempotency.release_abandoned(store)  # a worker started again: what its dead self held
    except BaseException:
        store.close()
        raise
    api = SandboxApi(store, Tokens(store, behaviour, clock), behaviour, exposed=exposed,
                     login_failure_limit=login_failure_limit)
    journal = RequestJournal(journal_capacity)

    options: dict[str, Any] = {}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters:
        # Newer FastAPI asks OpenTelemetry on every request whether it is configured, at a cost.
        options["telemetry"] = {"tracing": False, "metrics": False, "logs": False}
    app = FastAPI(title="Workforce Agency Management Service (sandbox)", openapi_url=None, docs_url=None,
                  redoc_url=None,
                  exception_handlers={StarletteHTTPException: _http_exception, StoreUnavailable: _unavailable,
                                      ClientDisconnect: _client_left, Exception: _server_error},
                  **options)
    app.state.store = store
    app.state.new_passwords = new_passwords
    app.state.behaviour = behaviour
    app.state.clock = clock
    app.state.journal = journal
    by_path: dict[str, dict[str, Callable[[Request], Awaitable[Response]]]] = {}
    for path, method, endpoint in api.routes():
        by_path.setdefault(path, {})[method] = endpoint
    for path, endpoints in by_path.items():
        app.add_route(path, _dispatch(path, endpoints, api.withheld), methods=_ALL_METHODS, include_in_schema=False)
    app.add_route("/openapi.json", _openapi, methods=["GET"], include_in_schema=False)
    app.add_route("/docs", _docs, methods=["GET"], include_in_schema=False)
    # add_middleware puts each one outside the ones before it: the Recorder, outermost, sees each answer as
    # the client does.
    app.add_middleware(OwnRedirects)
    app.add_middleware(AsPlayed, behaviour=behaviour, build=functools.partial(
        _middlewares, clock=clock, store=store, max_body=max_body))
    app.add_middleware(TenantScope, store=store, wanted=lambda: behaviour.per_tenant or clock.per_tenant or behaviour.limits_rate,
                       token_hash=token_hash)
    app.add_middleware(Recorder, journal=journal, clock=clock)
    if control_token is not None:
        from wfctl.sandbox.control import ControlPlane

        app.add_middleware(ControlPlane, token=control_token, store=store, behaviour=behaviour, clock=clock,
                           journal=journal, seed_records=seed, started=behaviour.now)
    return app


def _middlewares(app: ASGIApp, played: Played, *, clock: Clock, store: Store, max_body: int | None) -> ASGIApp:
    """The middlewares around the routes for what the behaviour plays now (built once a value, AsPlayed),
    innermost first: each one outside the ones before it, so ErrorForm rewrites every problem, 413s included."""
    app = played_inside(app, played, clock=clock, count_request=store.count_request)
    if max_body:
        app = BodyLimit(app, max_body=max_body)
    app = Failsafe(app, store=store)  # a database's fault is a 503, any other a 500 (faults.py)
    return played_outside(app, played)


def openapi_document() -> dict[str, Any]:
    """The contract the sandbox implements (the project's own copy, shipped in the package)."""
    text = resources.files("wfctl.sandbox").joinpath("openapi.json").read_text(encoding="utf-8")
    return json.loads(text)



class SandboxApi(Service):
    """The endpoints. Each handler checks the role, the tenancy, the body, then touches the database."""

    def routes(self) -> list[tuple[str, str, Callable[[Request], Awaitable[Response]]]]:
        p = self._protected

        def bind(handler: Callable[..., Any]) -> Any:
            return functools.partial(handler, self)

        routes = [
            ("/identity/login", "POST", self._public(bind(identity.login))),
            ("/identity/refresh", "POST", self._public(bind(identity.refresh))),
            ("/identity/logout", "POST", self._public(bind(identity.logout))),
            ("/api/agency/", "GET", p(bind(agency.get_agency))),
            ("/api/agency/", "PUT", p(bind(agency.update_agency))),
            ("/api/branches", "GET", p(bind(branches.list_branches))),
            ("/api/branches", "POST", p(bind(branches.create_branch))),
            ("/api/branches/{branchId}", "GET", p(bind(branches.get_branch))),
            ("/api/branches/{branchId}", "PUT", p(bind(branches.update_branch))),
            ("/api/branches/{branchId}", "DELETE", p(bind(branches.delete_branch))),
            ("/api/clients", "GET", p(bind(clients.list_clients))),
            ("/api/clients", "POST", p(bind(clients.create_client))),
            ("/api/clients/{clientId}", "GET", p(bind(clients.get_client))),
            ("/api/clients/{clientId}", "PUT", p(bind(clients.update_client))),
            ("/api/clients/{clientId}", "DELETE", p(bind(clients.delete_client))),
            ("/api/clients/{clientId}/sites", "GET", p(bind(sites.list_sites))),
            ("/api/clients/{clientId}/sites", "POST", p(bind(sites.create_site))),
            ("/api/sites/{siteId}", "GET", p(bind(sites.get_site))),
            ("/api/sites/{siteId}", "PUT", p(bind(sites.update_site))),
            ("/api/sites/{siteId}", "DELETE", p(bind(sites.delete_site))),
        ]
        return routes

    def withheld(self, path: str) -> tuple[str, ...]:
        """The methods of `path` this deployment does not offer now: no-agency-update (G6) takes
        `PUT /api/agency/` away (a 405 allowing GET), no-logout (G22) `POST /identity/logout` (a 404)."""
        quirks = self.quirks
        if quirks.no_agency_update and path == "/api/agency/":
            return ("PUT",)
        if quirks.no_logout and path == "/identity/logout":
            return ("POST",)
        return ()

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
                log_caller(request, who)
                key = request.headers.get("idempotency-key") if request.method == "POST" else None
                if self.quirks.ignore_idempotency_key:  # G20 tolerance
                    key = None
                if key is not None:
                    return await idempotency.idempotent(self, request, who, key, handler)
                return await handler(request, who)
            except ApiProblem as exc:
                return from_exception(exc)

        return endpoint


def _dispatch(path: str, endpoints: dict[str, Callable[[Request], Awaitable[Response]]],
              withheld: Callable[[str], tuple[str, ...]]) -> Callable[[Request], Awaitable[Response]]:
    """One route per path: the method picks the handler; any other method is a 405 that lists them all. The
    methods the deployment withholds now (`withheld(path)`, the quirks) are answered as if they had no
    handler: a 405, or the 404 of an unknown path when nothing is left."""
    all_allowed = ", ".join(endpoints)

    async def endpoint(request: Request) -> Response:
        handlers, allow = endpoints, all_allowed
        gone = withheld(path)
        if gone:
            handlers = {method: handler for method, handler in endpoints.items() if method not in gone}
            if not handlers:
                return problem_response(404, f"no endpoint {request.method} {request.url.path}")
            allow = ", ".join(handlers)
        handler = handlers.get(request.method)
        if handler is None:
            return problem_response(405, f"{request.method} is not allowed here; allowed: {allow}",
                                    headers={"Allow": allow})
        for name, value in request.path_params.items():
            if "\x00" in value:  # no record holds a NUL (G11; PostgreSQL cannot): any unknown id's 404, on both stores
                return problem_response(404, f"{name.removesuffix('Id')} {value} not found")
        return await handler(request)

    return endpoint


async def _openapi(request: Request) -> Response:
    return json_answer(_OPENAPI)


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
    return unavailable_response(request.scope, str(exc))


async def _server_error(request: Request, exc: Exception) -> Response:
    """What escaped Failsafe (faults.py): a fault of the outermost middleware."""
    return problem_response(500, f"internal error: {type(exc).__name__}", headers={"Connection": "close"})


_OPENAPI = openapi_document()
