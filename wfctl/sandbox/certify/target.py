"""The sandbox a certification plays on: one sandbox, each scenario a tenant of its own (issue 48).

    with own_sandbox() as sandbox:                        # an in-memory sandbox of this run, on loopback
        tenant = sandbox.tenant(scenario)                 # a fresh agency, its login, its records, its quirks
    sandbox = Sandbox("http://127.0.0.1:8765", token)     # or a running one (`serve --control`), shared

Everything goes through the sandbox's control plane (control.py) and its API, never its database, so a
certification in this process and eight in other processes play on one sandbox alike: a tenant's quirks and
clock are its own (behaviour.py, clock.py), and tenants never share state. Each tenant is removed once its
scenario is judged (`remove`), so a shared sandbox holds no more after a certification than before. The program talks to the stage
(stage.py), whose inner app is `Forward`: each request passed on to the sandbox, and the links the sandbox
writes on its own origin given back on the stage's.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.types import Receive, Scope, Send

from wfctl.sandbox.certify.scenarios import Scenario
from wfctl.sandbox.controlclient import ControlClient, ControlFailure
from wfctl.sandbox.middleware import AnswerDropped
from wfctl.sandbox.tenancy import read_body

ACCESS_EXPIRY = 16 * 60  # seconds a tenant's clock jumps to expire every access token issued (their life: 15 minutes)
#: A site's writable fields, by the service's names.
SITE_FIELDS = ("name", "address", "phone", "email", "assessmentRequired", "departments", "rates", "bannedWorkers")
_HOP = {b"content-length", b"transfer-encoding", b"connection", b"keep-alive", b"accept-encoding"}


@dataclass(frozen=True)
class Tenant:
    id: str
    username: str
    password: str
    records: dict[str, str]


class Sandbox:
    """A sandbox with its control plane on: where the scenarios' tenants are made, moved in time and read."""

    def __init__(self, url: str, control_token: str) -> None:
        self.url = url.rstrip("/")
        self.control = ControlClient(self.url, control_token)
        self._api = httpx.Client(base_url=self.url, timeout=30, trust_env=False)
        self._tokens: dict[str, str] = {}

    def close(self) -> None:
        self.control.close()
        self._api.close()

    def check(self) -> None:
        """The control plane answers its token (controlclient.ControlFailure, one line, when not)."""
        self.control.behaviour()

    def tenant(self, scenario: Scenario) -> Tenant:
        """A fresh tenant playing `scenario`'s quirks and nothing else (no latency, limit or outage)."""
        made = self.control.add_tenant(f"Certification {scenario.name} {secrets.token_hex(4)}")
        self.control.change(tenant=made["id"], quirks=list(scenario.quirks), faults={"unavailable": False},
                            latency_ms=0, rate_limit=0, access_ttl=900)
        login = made["logins"][0]
        return Tenant(id=made["id"], username=login["username"], password=login["password"], records=made["records"])

    def remove(self, tenant: Tenant) -> None:
        """The tenant removed with its records, logins and tokens (a control plane of an older wfctl, which
        cannot, keeps it)."""
        self._tokens.pop(tenant.id, None)
        try:
            self.control.remove_tenant(tenant.id)
        except ControlFailure as exc:
            if exc.kind != "not_found":
                raise

    def expire_access(self, tenant: Tenant) -> None:
        """Every access token the tenant holds has expired (its clock alone moves)."""
        self.control.advance(ACCESS_EXPIRY, tenant=tenant.id)

    def settle(self, tenant: Tenant) -> None:
        """The tenant plays the contract's decisions again, so what certify reads is read plainly."""
        self.control.restore(tenant=tenant.id)

    def reuse_detections(self, tenant: Tenant) -> int:
        return int(self.control.tenant(tenant.id)["reuse_detections"])

    def site(self, tenant: Tenant, site_id: str) -> dict[str, Any]:
        """A site's writable fields as the service holds them (empty: no such site)."""
        with self._as(tenant) as api:
            answer = api.get(f"/api/sites/{site_id}")
            if answer.status_code == 404:
                return {}
            answer.raise_for_status()
            return {name: answer.json().get(name) for name in SITE_FIELDS}

    def listing(self, tenant: Tenant, client_id: str) -> list[dict[str, Any]]:
        """Every site of the client, read in pages of 100."""
        sites: list[dict[str, Any]] = []
        page = 1
        with self._as(tenant) as api:
            while True:
                answer = api.get(f"/api/clients/{client_id}/sites", params={"pageNumber": page, "pageSize": 100})
                answer.raise_for_status()
                listing = answer.json()
                sites += listing["data"]
                if page >= int(listing.get("pageCount") or 1):
                    return sites
                page += 1

    @contextlib.contextmanager
    def _as(self, tenant: Tenant) -> Iterator[_TenantApi]:
        yield _TenantApi(self, tenant)

    def _token(self, tenant: Tenant, *, fresh: bool = False) -> str:
        """The tenant's access token for certify's own reads: one login a tenant (scrypt is slow), again when
        its clock expired the token."""
        if fresh or tenant.id not in self._tokens:
            pair = self._api.post("/identity/login", json={"username": tenant.username, "password": tenant.password})
            pair.raise_for_status()
            self._tokens[tenant.id] = pair.json()["accessToken"]
        return self._tokens[tenant.id]


class _TenantApi:
    """GET as the tenant's admin, logging in again once on a 401."""

    def __init__(self, sandbox: Sandbox, tenant: Tenant) -> None:
        self.sandbox, self.tenant = sandbox, tenant

    def get(self, path: str, params: dict[str, Any] | None = None) -> httpx.Response:
        for fresh in (False, True):
            token = self.sandbox._token(self.tenant, fresh=fresh)
            answer = self.sandbox._api.get(path, params=params, headers={"Authorization": f"Bearer {token}"})
            if answer.status_code != 401:
                break
        return answer


@contextlib.contextmanager
def own_sandbox() -> Iterator[Sandbox]:
    """An in-memory sandbox of this certification's own, served on a free loopback port with a control token."""
    import uvicorn

    from wfctl.sandbox.app import create_app
    from wfctl.sandbox.server import bind, uvicorn_config

    token = secrets.token_urlsafe(32)
    app = create_app(None, seed=False, control_token=token)
    sock = bind("127.0.0.1", 0)
    config = uvicorn_config(app, port=sock.getsockname()[1], log_level="critical")
    config.timeout_graceful_shutdown = 1
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="certify-sandbox")
    thread.start()
    try:
        wait_started(server, thread)
        sandbox = Sandbox(f"http://127.0.0.1:{sock.getsockname()[1]}", token)
        try:
            yield sandbox
        finally:
            sandbox.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        app.state.store.close()


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every forwarded request (building one a request costs more than the request; the
    sandbox is plain http on loopback, so it is never used to connect)."""
    return ssl.create_default_context()


def wait_started(server: Any, thread: threading.Thread) -> None:
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the certification's sandbox did not start")
        time.sleep(0.01)


class Forward:
    """Pure ASGI: each request passed on to the sandbox at `url` as it came, the answer given back as it went; an
    answer the sandbox dropped (drop-create-answer) is AnswerDropped, for the stage. The sandbox writes its
    absolute links on its own origin (origin.py trusts no other Host), so they are given back on the origin the
    program asked (the stage's), as a reverse proxy does."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(receive)
        asked = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in _HOP and k.lower() != b"host"]
        headers.append((b"accept-encoding", b"identity"))  # the body passed back as the sandbox wrote it
        target = self.url + scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        async with httpx.AsyncClient(timeout=60, trust_env=False, verify=_tls()) as client:
            try:
                answer = await client.request(scope["method"], target, headers=headers, content=body)
            except httpx.RemoteProtocolError as exc:
                raise AnswerDropped(scope["path"]) from exc
        own, public = self.url.encode(), f"{scope.get('scheme', 'http')}://{asked}".encode()
        out = [(k, v.replace(own, public) if asked else v) for k, v in answer.headers.raw
               if k.lower() not in _HOP and k.lower() not in (b"date", b"server")]
        content = answer.content.replace(own, public) if asked else answer.content
        await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
        await send({"type": "http.response.body", "body": content})
