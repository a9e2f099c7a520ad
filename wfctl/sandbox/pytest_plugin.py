"""A pytest plugin for an integrator's own tests: a sandbox per test session, a tenant per test (issue 48).

    # conftest.py
    pytest_plugins = ["wfctl.sandbox.pytest_plugin"]

    def test_my_connector(wfctl_tenant):
        run_my_connector(wfctl_tenant.url, wfctl_tenant.username, wfctl_tenant.password)
        assert [r["path"] for r in wfctl_tenant.journal()] == [...]

`wfctl_sandbox` (session) is a sandbox in memory on 127.0.0.1 and a free port, in a thread of the test
process, with its control plane on (`.url`, `.control`: a controlclient.ControlClient). `wfctl_tenant` (each
test) is an agency of its own with an admin login and sample records (tenants.standard_records): tests
never see each other's data, whatever order they run in. Change what one tenant plays with
`wfctl_tenant.play(quirks=["put-clears"], faults={"unavailable": True})` and move its clock alone with
`wfctl_tenant.advance(16 * 60)` (tests running at once on the session's sandbox are not touched); what every
tenant plays with `wfctl_sandbox.control.change(...)` (`restore()` ends it).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

_NAMES = itertools.count(1)


@dataclass
class Tenant:
    url: str
    name: str
    username: str
    password: str
    records: dict[str, str]
    control: Any

    def journal(self, *, bodies: bool = False) -> list[dict[str, Any]]:
        """This tenant's requests (bodies only when the journal keeps them: control.keep_bodies(True))."""
        return self.control.journal(tenant=self.name, bodies=bodies)

    def play(self, **changes: Any) -> dict[str, Any]:
        """This tenant alone plays `changes` (quirks, faults, latency_ms, rate_limit, access_ttl) from its next
        request; `play()` with nothing: what the sandbox plays for all again."""
        if not changes:
            return dict(self.control.restore(tenant=self.name))
        return dict(self.control.change(tenant=self.name, **changes))

    def advance(self, seconds: float) -> None:
        """This tenant's clock alone moves `seconds` forward (16 * 60: its access tokens have expired)."""
        self.control.advance(seconds, tenant=self.name)


class Sandbox:
    """A sandbox served from a thread until `stop()`."""

    def __init__(self) -> None:
        from wfctl.sandbox.app import create_app
        from wfctl.sandbox.controlclient import ControlClient
        from wfctl.sandbox.server import ThreadedServer

        token = secrets.token_urlsafe(32)
        self.app = create_app(None, control_token=token)
        self._served = ThreadedServer(self.app)
        self.url = self._served.url
        self.control = ControlClient(self.url, token)

    def tenant(self, name: str | None = None) -> Tenant:
        made = self.control.add_tenant(name or f"Tenant {next(_NAMES)} {secrets.token_hex(3)}")
        login = made["logins"][0]
        return Tenant(url=self.url, name=made["name"], username=login["username"], password=login["password"],
                      records=made["records"], control=self.control)

    def stop(self) -> None:
        self.control.close()
        self._served.stop()
        self.app.state.store.close()


@pytest.fixture(scope="session")
def wfctl_sandbox() -> Iterator[Sandbox]:
    sandbox = Sandbox()
    try:
        yield sandbox
    finally:
        sandbox.stop()


@pytest.fixture
def wfctl_tenant(wfctl_sandbox: Sandbox) -> Tenant:
    return wfctl_sandbox.tenant()
