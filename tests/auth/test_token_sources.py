"""The SDK's front door (issue 46): a script supplies its token from anywhere through one token source
protocol, asked on every request, builds a Client from the environment or from a wfctl profile, and
imports nothing of the CLI. Each script runs as a script author runs it: a Python process of its own,
against the sandbox on a real socket."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT, Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token

#: modules a script using the SDK must never load
CLI_SIDE = ("wfctl.config", "wfctl.errors", "wfctl.context", "wfctl.render", "wfctl.factory", "wfctl.commands",
            "wfctl.drivers", "wfctl.runs", "wfctl.plans", "wfctl.files", "wfctl.cmdline", "typer", "click", "rich")

TAIL = f"""
import sys as _sys
print(json.dumps({{"result": result, "cli": sorted(m for m in _sys.modules if m.startswith({CLI_SIDE!r}))}}))
"""


def run_script(cli: Cli, program: str, env: dict[str, str] | None = None) -> tuple[Any, list[str]]:
    """Run `program` (which sets `result`) as a script of its own; its result and the CLI modules it loaded."""
    full_env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), **(env or {}))
    proc = subprocess.run([sys.executable, "-c", "import json\n" + program + TAIL], capture_output=True,
                          text=True, env=full_env, timeout=60, cwd=str(cli.tmp_path))
    assert (proc.returncode, proc.stderr) == (0, ""), proc
    out = json.loads(proc.stdout.splitlines()[-1])
    return out["result"], out["cli"]


def test_a_token_from_a_callable_is_asked_for_on_every_request(cli: Cli, sandbox: SandboxServer, tmp_path):
    """A function returning the token (here: a file another program rotates) is the whole source."""
    token_file = tmp_path / "token"
    token_file.write_text(login_token(sandbox, *ADMIN)["accessToken"] + "\n")
    program = f"""
from pathlib import Path
from wfctl.api import Client
asked = []
def token():
    asked.append(1)
    return Path({str(token_file)!r}).read_text()
with Client({sandbox.url!r}, auth=token) as client:
    first = client.get_agency()["name"]
    branches = sum(1 for _ in client.iter_branches())
    result = [first, branches > 0, len(asked), client.tokens.location()]
"""
    result, loaded = run_script(cli, program)
    assert result == ["Northwind Staffing", True, 2, None]
    assert loaded == []


def test_a_client_from_the_environment(cli: Cli, sandbox: SandboxServer):
    token = login_token(sandbox, *ADMIN)["accessToken"]
    program = """
from wfctl.api import Client
with Client.from_environment() as client:
    result = [client.base_url, client.get_agency()["name"], client.tokens.location(), client.timeout]
"""
    result, loaded = run_script(cli, program, env={"WFCTL_BASE_URL": sandbox.url + "/",
                                                   "WFCTL_ACCESS_TOKEN": token, "WFCTL_TIMEOUT": "12"})
    assert result == [sandbox.url, "Northwind Staffing", "environment variable WFCTL_ACCESS_TOKEN", 12.0]
    assert loaded == []


@pytest.mark.parametrize(("env", "message"), [
    ({}, "no service URL: set WFCTL_BASE_URL"),
    ({"WFCTL_BASE_URL": "http://127.0.0.1:9"}, "no access token: set WFCTL_ACCESS_TOKEN"),
])
def test_an_environment_without_what_the_client_needs_says_what_to_set(cli: Cli, env, message):
    from wfctl.api import Client, NotLoggedIn

    for name, value in env.items():
        cli._monkeypatch.setenv(name, value)
    with pytest.raises(NotLoggedIn) as info:
        Client.from_environment()
    assert str(info.value) == message


def test_the_environment_names_the_timeout_and_the_ca_bundle_as_the_cli_reads_them(cli: Cli):
    from wfctl.api import Client

    for name, value in {"WFCTL_BASE_URL": "https://wams.example.com/", "WFCTL_ACCESS_TOKEN": " t0ken-1 ",
                        "WFCTL_TIMEOUT": "7.5", "WFCTL_CA_BUNDLE": "~/agency-ca.pem"}.items():
        cli._monkeypatch.setenv(name, value)
    client = Client.from_environment(put_clears=True)
    assert (client.base_url, client.access_token(), client.timeout, client.ca_bundle, client.put_clears) == (
        "https://wams.example.com", "t0ken-1", 7.5, str(cli.home / "agency-ca.pem"), True)
    cli._monkeypatch.setenv("WFCTL_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="WFCTL_TIMEOUT is not a number of seconds: 'soon'"):
        Client.from_environment()


def test_a_client_from_a_wfctl_profile_loads_no_cli_framework(logged_in: Cli, sandbox: SandboxServer):
    """`wfctl.profiles` is the one way from a profile to the SDK: the profile's URL and its stored login."""
    program = """
import wfctl.profiles
from wfctl.api import Client
with wfctl.profiles.client() as client:
    name = client.get_agency()["name"]
    where = client.tokens.location()
source = wfctl.profiles.token_source()
with Client(client.base_url, auth=source) as again:
    result = [name, again.get_agency()["name"], where.startswith("file "), source is not client.tokens]
"""
    result, loaded = run_script(logged_in, program)
    assert result == ["Northwind Staffing", "Northwind Staffing", True, True]
    assert [m for m in loaded if m.startswith(("typer", "click", "rich"))] == []


def test_a_401_is_answered_by_one_refresh_of_a_custom_source(cli: Cli, sandbox_factory):
    """The service refuses the token (it expired): the source's `refresh` is asked once with the token the
    service refused, and the request is sent again with what it gives."""
    server = sandbox_factory(access_ttl=1)
    program = f"""
import time
from wfctl.api import Client, TokenSource
import httpx  # after wfctl.api, which keeps httpx's own command line (click, rich) unloaded

class Vault:
    def __init__(self):
        self.token, self.refreshed = self.fetch(), []
    def fetch(self):
        answer = httpx.post({server.url!r} + "/identity/login", json={{"username": {ADMIN[0]!r}, "password": {ADMIN[1]!r}}})
        return answer.json()["accessToken"]
    def access_token(self):
        return self.token
    def refresh(self, rejected):
        self.refreshed.append(rejected == self.token)
        self.token = self.fetch()
        return self.token
    def location(self):
        return "the vault"

vault = Vault()
with Client({server.url!r}, auth=vault) as client:
    client.get_agency()
    time.sleep(1.5)  # the access token has expired
    name = client.get_agency()["name"]
    result = [isinstance(vault, TokenSource), name, vault.refreshed, client.access_token() == vault.token]
"""
    result, loaded = run_script(cli, program)
    assert result == [True, "Northwind Staffing", [True], True]
    assert loaded == []


def test_a_source_with_nothing_new_after_a_401_is_not_logged_in(cli: Cli, sandbox: SandboxServer):
    program = f"""
from wfctl.api import Client, NotLoggedIn
try:
    Client({sandbox.url!r}, auth=lambda: "not-a-token-the-service-issued").get_agency()
    result = "no error"
except NotLoggedIn as exc:
    result = [type(exc).__name__, exc.status]
"""
    result, _ = run_script(cli, program)
    assert result == ["NotLoggedIn", 401]


def test_a_token_goes_only_to_the_service_origin(sandbox: SandboxServer):
    from wfctl.api import Client, ForeignOrigin

    asked: list[int] = []
    with Client(sandbox.url, auth=lambda: asked.append(1) or "t0ken") as client, pytest.raises(ForeignOrigin):
        client.send("GET", "https://elsewhere.example.com/api/agency/")
    assert asked == []


@pytest.mark.parametrize("token", ["", "  ", "line\nbreak", "caf\u00e9"])
def test_a_source_giving_no_sendable_token_is_one_clear_error(sandbox: SandboxServer, token: str):
    from wfctl.api import Client, NotLoggedIn

    with Client(sandbox.url, auth=lambda: token) as client, pytest.raises(NotLoggedIn) as info:
        client.get_agency()
    assert "the token source gave" in str(info.value)


def test_the_client_takes_only_the_options_it_names(sandbox: SandboxServer):
    from wfctl.api import Client

    with pytest.raises(TypeError, match="unexpected keyword argument 'timout'"):
        Client(sandbox.url, timout=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="auth must be a TokenSource"):
        Client(sandbox.url, auth=3)  # type: ignore[arg-type]


def test_the_bulk_writer_asks_the_same_source_and_refreshes_through_it(sandbox: SandboxServer):
    """The fast writer of bulk runs (wfctl.api.net.lean) asks the Client's source before every write, and a write
    answered 401 goes through the source's refresh like any other request."""
    import uuid

    from wfctl.api import Client

    good = login_token(sandbox, *ADMIN)["accessToken"]
    tokens = ["revoked-or-expired-token", good]
    asked: list[str] = []

    def token() -> str:
        asked.append(tokens[0])
        return tokens[0]

    class Source:
        def access_token(self) -> str:
            return token()

        def refresh(self, rejected: str) -> str | None:
            tokens.pop(0)
            return tokens[0]

        def location(self) -> str | None:
            return None

    with Client(sandbox.url, auth=Source()) as client:
        writer = client._runs.lean_writer()
        assert writer is not None
        names = [f"Lean {uuid.uuid4().hex[:8]}" for _ in range(3)]
        made = [writer.request("POST", "/api/branches", {"name": name}) for name in names]
        assert [branch["name"] for branch in made] == names
        assert [client.get_branch(branch["id"])["name"] for branch in made] == names
    # the first write: the stale token (401); the Client's flow asks again (401), refreshes and sends it again;
    # then one ask a request: two more writes and three reads
    assert asked == ["revoked-or-expired-token"] * 2 + [good] * 5


def test_a_stored_login_is_a_token_source_whose_refresh_rotates_once(sandbox_factory, tmp_path):
    """`TokenAuth` answers the protocol too: `refresh(rejected)` rotates the pair under the login's lock and
    stores it; asked again with the token already replaced, it gives the stored pair and sends nothing (the
    spent refresh token is never presented again: the service records no reuse)."""
    from wfctl.api import Client, FileStore, TokenAuth, TokenPair

    server = sandbox_factory()
    answer = login_token(server, *ADMIN)
    store = FileStore(tmp_path / "login.json", tmp_path / "login.lock")
    store.save(TokenPair.from_response(answer, username=ADMIN[0], base_url=server.url))
    with Client(server.url, auth=TokenAuth(store, server.url)) as client:
        source = client.tokens
        assert source is not None and client.access_token() == answer["accessToken"]
        new = source.refresh(answer["accessToken"])
        assert new is not None and new != answer["accessToken"]
        stored = store.load()
        assert stored is not None and (stored.access_token, stored.refresh_pending) == (new, False)
        assert source.refresh(answer["accessToken"]) == new  # already replaced: the stored pair, no request
        assert client.get_agency()["name"] == "Northwind Staffing"
        assert source.location() == f"file {tmp_path / 'login.json'} (mode 0600)"
    assert server.reuse_detections() == 0
