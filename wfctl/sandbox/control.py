"""The control plane: what an integrator's own tests change and read in a running sandbox (issue 48).

    app = create_app(None, control_token=secrets.token_urlsafe(32))   # `wfctl sandbox serve --control`

Off unless a token is given. Served under `/_control/` by a pure ASGI layer outside everything else, so
its requests are not journalled, not rate limited and not failed by an injected fault. Each request must
come from a loopback address, carry no `Origin` (no browser page may drive it: there is no CORS, and a
cross-origin request is refused rather than answered without the headers) and present the token as
`Authorization: Bearer <token>`, compared in constant time. Answers are JSON; a refusal is a problem
document with one line of `detail`.

    POST   /_control/reset                       every table back to the G21 seed, the behaviour as started,
                                                 the journal emptied
    POST   /_control/seed?tenant=<id or name>    a seed file's records (tenants.py) into one agency
    POST   /_control/tenants                     {"name", "logins"?, "records"?}: a new agency and its logins
    GET    /_control/tenants?tenant=<id or name> that agency: {"id", "name", "reuse_detections"} (G3's count)
    DELETE /_control/tenants?tenant=<id or name> that agency removed: its records, logins, tokens and what it
                                                 played of its own (tenants.remove_tenant; 409 for the
                                                 default tenant): {"id", "name", "branches", "clients",
                                                 "sites", "logins"}, how many went
    GET    /_control/behaviour?tenant=           what is played now (for that tenant)
    PUT    /_control/behaviour?tenant=           {"quirks", "faults": {"unavailable"}, "latency_ms",
                                                 "rate_limit", "access_ttl"}: changed from the next request,
                                                 for every tenant or, named, for that one alone
    DELETE /_control/behaviour?tenant=           back to what the sandbox was started with (the tenant:
                                                 back to what the sandbox plays for all)
    POST   /_control/clock?tenant=               {"advance": seconds}: the service's time moves forward
                                                 (that tenant's alone, when named)
    GET    /_control/journal?tenant=&since=&bodies=1   the request records (bodies only when asked)
    PUT    /_control/journal                     {"bodies": true}: keep bodies from now on (secrets redacted)
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from wfctl.sandbox.accounts import AccountError, find_agency
from wfctl.sandbox.behaviour import Behaviour, Faults, Played
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.journal import RequestJournal
from wfctl.sandbox.store import Store
from wfctl.sandbox.tenants import SeedError, add_tenant, load_seed, remove_tenant, reset

PREFIX = "/_control/"
MAX_BODY = 4 * 1024 * 1024
#: On every answer of the control plane, so a client tells its 404 from a sandbox's without one.
CONTROL_HEADER = b"x-sandbox-control"


class ControlError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status


class ControlPlane:
    """Pure ASGI: `/_control/...` answered here (see the module's docstring), everything else passed on."""

    def __init__(self, app: ASGIApp, *, token: str, store: Store, behaviour: Behaviour, clock: Clock,
                 journal: RequestJournal, seed_records: bool = True, started: Played | None = None) -> None:
        if len(token) < 16:
            raise ValueError("a control token has at least 16 characters")
        self.app = app
        self._token = token.encode()
        self.store, self.behaviour, self.clock, self.journal = store, behaviour, clock, journal
        self.started: Played = started or behaviour.now  # what reset and DELETE behaviour go back to
        self.seed_records = seed_records
        self._routes: dict[tuple[str, str], Callable[[dict[str, list[str]], Any], Any]] = {
            ("POST", "reset"): self._reset,
            ("POST", "seed"): self._seed,
            ("POST", "tenants"): self._tenant,
            ("GET", "tenants"): self._tenant_info,
            ("DELETE", "tenants"): self._remove_tenant,
            ("GET", "behaviour"): lambda query, body: played_as_dict(self.behaviour.of(self._named(query))),
            ("PUT", "behaviour"): self._change,
            ("DELETE", "behaviour"): self._restore,
            ("POST", "clock"): self._advance,
            ("GET", "journal"): self._journal,
            ("PUT", "journal"): self._keep_bodies,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        try:
            self._admit(scope)
            name = scope["path"][len(PREFIX):].strip("/")
            route = self._routes.get((scope["method"], name))
            if route is None:
                raise ControlError(404, f"no control endpoint {scope['method']} {scope['path']}")
            body = await _body(receive)
            query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
            status, answer = 200, route(query, body)
        except ControlError as exc:
            status, answer = exc.status, {"type": "about:blank", "status": exc.status, "detail": str(exc)}
        except SeedError as exc:
            status, answer = exc.status, {"type": "about:blank", "status": exc.status, "detail": str(exc)}
        data = json.dumps(answer, sort_keys=True).encode()
        kind = b"application/json" if status < 400 else b"application/problem+json"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", kind), (b"content-length", str(len(data)).encode()),
                                (b"cache-control", b"no-store"), (CONTROL_HEADER, b"1")]})
        await send({"type": "http.response.body", "body": data})

    def _admit(self, scope: Scope) -> None:
        client = scope.get("client") or ("", 0)
        try:
            loopback = ipaddress.ip_address(client[0]).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ControlError(403, "the control plane answers loopback only")
        headers = dict(scope.get("headers") or [])
        if b"origin" in headers:
            raise ControlError(403, "the control plane answers no cross-origin request (no CORS)")
        presented = headers.get(b"authorization", b"")
        scheme, _, token = presented.partition(b" ")
        if not hmac.compare_digest(token.strip() if scheme.lower() == b"bearer" else b"", self._token):
            raise ControlError(401, "the control plane needs its token: Authorization: Bearer <token>")

    def _reset(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        reset(self.store, clock=self.clock, records=self.seed_records)
        self.behaviour.forget()
        self.clock.forget()
        self.behaviour.change(**_fields(self.started))
        self.journal.clear()
        return {"reset": True}

    def _seed(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        tenant = (query.get("tenant") or ["Northwind Staffing"])[0]
        try:
            agency_id, _ = find_agency(self.store, tenant)
        except AccountError as exc:
            raise ControlError(404, str(exc)) from None
        made = load_seed(self.store, agency_id, body, clock=self.clock)
        return {"tenant": agency_id, "records": {ref: row["id"] for ref, row in made.items()}}

    def _tenant(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise ControlError(400, 'a tenant is {"name": ..., "logins"?: [...], "records"?: true}')
        logins = body.get("logins")
        if logins is not None and not isinstance(logins, list):
            raise ControlError(400, "logins is a list of {username, password, role}")
        return add_tenant(self.store, body["name"], clock=self.clock, logins=logins,
                          records=bool(body.get("records", True)))

    def _tenant_info(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        tenant = self._named(query)
        if tenant is None:
            raise ControlError(400, "name the tenant: ?tenant=<id or name>")
        _, name = find_agency(self.store, tenant)
        return {"id": tenant, "name": name, "reuse_detections": self.store.reuse_detections(tenant)}

    def _remove_tenant(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        tenant = self._named(query)
        if tenant is None:
            raise ControlError(400, "name the tenant: ?tenant=<id or name>")
        removed = remove_tenant(self.store, tenant)
        self.behaviour.forget(tenant)
        self.clock.forget(tenant)
        return removed

    def _change(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ControlError(400, "a behaviour change is a JSON object")
        changes = dict(body)
        if "faults" in changes:
            faults = changes["faults"] or {}
            if not isinstance(faults, dict) or set(faults) - {"unavailable"}:
                raise ControlError(400, 'faults is {"unavailable": true|false}')
            changes["faults"] = Faults(unavailable=bool(faults.get("unavailable")))
        tenant = self._named(query)
        try:
            return played_as_dict(self.behaviour.change(tenant=tenant, **changes))
        except ValueError as exc:
            raise ControlError(400, str(exc)) from None

    def _restore(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        tenant = self._named(query)
        if tenant is not None:
            self.behaviour.forget(tenant)
            return played_as_dict(self.behaviour.of(tenant))
        return played_as_dict(self.behaviour.change(**_fields(self.started)))

    def _advance(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        seconds = body.get("advance") if isinstance(body, dict) else None
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ControlError(400, 'the clock moves forward only: {"advance": <seconds, at least 0>}')
        tenant = self._named(query)
        offset = self.clock.advance(seconds, tenant=tenant)
        return {"offset": offset, "now": self.clock.iso(self.clock.time() - self.clock.offset + offset)}

    def _named(self, query: dict[str, list[str]]) -> str | None:
        """The agency id `?tenant=` names (its id or name), or None when it names none."""
        ref = (query.get("tenant") or [""])[0]
        if not ref:
            return None
        try:
            return find_agency(self.store, ref)[0]
        except AccountError as exc:
            raise ControlError(404, str(exc)) from None

    def _journal(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        tenant: str | None = (query.get("tenant") or [""])[0] or None
        if tenant is not None:
            try:
                tenant = find_agency(self.store, tenant)[0]
            except AccountError as exc:
                raise ControlError(404, str(exc)) from None
        try:
            since = int((query.get("since") or ["0"])[0])
        except ValueError:
            raise ControlError(400, "since is a record id (a whole number)") from None
        bodies = (query.get("bodies") or ["0"])[0] in ("1", "true", "yes")
        records = []
        for record in self.journal.records():
            if record.id <= since or (tenant is not None and record.tenant != tenant):
                continue
            data = record.as_dict()
            if not bodies:
                data.pop("request_body", None)
                data.pop("response_body", None)
            records.append(data)
        return {"records": records, "bodies_kept": self.journal.bodies}

    def _keep_bodies(self, query: dict[str, list[str]], body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("bodies"), bool):
            raise ControlError(400, '{"bodies": true|false}')
        self.journal.bodies = body["bodies"]
        return {"bodies_kept": self.journal.bodies}


def played_as_dict(played: Played) -> dict[str, Any]:
    """What is played, as JSON: the quirks as --quirk spells them."""
    return {"quirks": played.quirks.names(), "access_ttl": played.access_ttl, "rate_limit": played.rate_limit,
            "latency_ms": played.latency_ms, "faults": {"unavailable": played.faults.unavailable}}


def _fields(played: Played) -> dict[str, Any]:
    return {"quirks": played.quirks, "access_ttl": played.access_ttl, "rate_limit": played.rate_limit,
            "latency_ms": played.latency_ms, "faults": played.faults}


async def _body(receive: Receive) -> Any:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ControlError(400, "the request body did not arrive")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise ControlError(413, f"a control request body is at most {MAX_BODY} bytes")
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    raw = b"".join(chunks)
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ControlError(400, f"the body is not JSON: {exc}") from None
