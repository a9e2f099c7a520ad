"""An update changes only what it names (issue 30 §2) on both backends, and through a cut at its COMMIT:
PostgreSQL made the commit, the sandbox lost the answer (a network cut or a failover between the two) and
answered 503; wfctl sends the PUT again, and since it carries only the named fields, a colleague's change
to another field made in between stays."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token
from wfctl.sandbox.injectors import CommitCutProxy, FaultProxy


class Setup:
    """A sandbox with one site (banned W-1), wfctl's environment through a proxy in front of it that calls
    `on_put(n)` before it forwards the n-th PUT of the site."""

    def __init__(self, server: SandboxServer, on_put: Callable[[int], None]) -> None:
        self.server = server
        token = login_token(server, *ADMIN)["accessToken"]
        self.http = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        branch = self._post("/api/branches", {"name": "Faults branch"})
        client = self._post("/api/clients", {"name": "Faults client", "branchId": branch["id"]})
        self.site = self._post(f"/api/clients/{client['id']}/sites", {
            "name": "Dock 4", "email": "site@example.com", "bannedWorkers": ["W-1"]})
        path = f"/api/sites/{self.site['id']}"
        self.puts = 0

        def forward(method: str, asked: str) -> bytes | None:
            if method == "PUT" and asked == path:
                self.puts += 1
                on_put(self.puts)
            return None

        self.proxy = FaultProxy(server.url, drop=lambda _m, _p: False, answer=forward)
        self.env = {"WFCTL_BASE_URL": self.proxy.url, "WFCTL_ACCESS_TOKEN": token}

    def held(self) -> dict[str, Any]:
        response = self.http.get(f"/api/sites/{self.site['id']}")
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.proxy.stop()
        self.http.close()

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.http.post(path, json=body)
        assert response.status_code == 201, response.text
        return response.json()  # type: ignore[no-any-return]


@pytest.fixture
def setups() -> Iterator[Callable[[SandboxServer, Callable[[int], None]], Setup]]:
    made: list[Setup] = []

    def make(server: SandboxServer, on_put: Callable[[int], None]) -> Setup:
        made.append(Setup(server, on_put))
        return made[-1]

    yield make
    for setup in made:
        setup.close()


def test_a_ban_made_while_an_update_is_on_its_way_stays(cli: Cli, sandbox_factory: Callable[..., SandboxServer],
                                                        setups: Any) -> None:
    """SQLite and PostgreSQL (the backend fixture): the colleague bans W-9 after wfctl read the site, before
    its PUT arrives."""
    colleague: list[Callable[[], None]] = []
    setup = setups(sandbox_factory(), lambda n: colleague.pop(0)() if colleague else None)
    colleague.append(lambda: _checked(setup.http.put(f"/api/sites/{setup.site['id']}",
                                                     json={"bannedWorkers": ["W-1", "W-9"]})))
    r = cli("sites", "update", setup.site["id"], "--email", "ops@example.com", env=setup.env)
    assert (r.exit_code, r.stderr) == (0, ""), r
    held = setup.held()
    assert (held["email"], held["bannedWorkers"]) == ("ops@example.com", ["W-1", "W-9"])


def test_an_update_cut_at_its_commit_is_sent_again_and_keeps_a_change_made_meanwhile(
        cli: Cli, postgres: Any, setups: Any) -> None:
    import psycopg

    database = postgres.new_database()
    cut = CommitCutProxy(database)
    server = SandboxServer(cut.url)
    try:
        def on_put(n: int) -> None:
            if n == 1:
                # this PUT's UPDATE (an autocommit statement) is made, and its answer never reaches the sandbox,
                # nor that of the sandbox's one replay on a new connection: it answers 503 (Retry-After)
                cut.cut_after(b"UPDATE sites", times=2)
            elif n == 2:  # wfctl sends it again (503, Retry-After): a colleague's change came first
                assert cut.cuts == 2
                with psycopg.connect(database, autocommit=True) as conn:
                    conn.execute("UPDATE sites SET email = 'ops@example.com' WHERE id = %s", (setup.site["id"],))

        setup = setups(server, on_put)
        r = cli("sites", "update", setup.site["id"], "--add-banned-worker", "W-3", env=setup.env)
        assert (r.exit_code, r.stderr) == (0, ""), r
        assert setup.puts == 2
        held = setup.held()
        assert (held["email"], held["bannedWorkers"]) == ("ops@example.com", ["W-1", "W-3"])
    finally:
        server.stop()
        cut.stop()


def _checked(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text
