"""The SDK stands on its own (issue 22 §2): importing `wfctl.api` and building a Client loads nothing of the
CLI, so a script using the SDK pays for none of it and cannot be broken by it."""

from __future__ import annotations

import json
import subprocess
import sys

CLI_SIDE = ("wfctl.config", "wfctl.errors", "wfctl.context", "wfctl.render", "wfctl.factory", "wfctl.commands",
            "wfctl.drivers", "wfctl.runs", "wfctl.plans", "wfctl.files", "typer", "click", "rich")

PROGRAM = """
import json, sys
from wfctl.api import Client
from wfctl.api.session.auth import StaticTokenAuth
client = Client("https://wf.example.com", auth=StaticTokenAuth("t0ken", "https://wf.example.com"))
client._session()  # the httpx session, its transport and TLS context: everything a first request builds
print(json.dumps(sorted(sys.modules)))
"""


def test_client_from_url_and_token_loads_nothing_of_the_cli():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    assert "wfctl.api.client" in loaded  # the program did build a Client
    assert [m for m in loaded if m.startswith(CLI_SIDE)] == []


def test_the_cli_login_is_one_call_away_on_the_cli_side(tmp_path):
    """`wfctl.factory.client_from_profile` builds the Client a profile names (the CLI's composition root)."""
    program = ("from wfctl.factory import client_from_profile\n"
               "c = client_from_profile('staging')\nprint(c.base_url, type(c.auth).__name__)")
    (tmp_path / "config.toml").write_text('[profiles.staging]\nbase_url = "https://staging.example.com/"\n')
    env = {"WFCTL_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path), "WFCTL_ACCESS_TOKEN": "t0ken", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    assert (out.returncode, out.stdout, out.stderr) == (0, "https://staging.example.com StaticTokenAuth\n", "")


def test_no_sdk_module_imports_the_cli_even_inside_a_function():
    """Not loading the CLI on the common path is not enough: no `wfctl.api` module names it anywhere (a lazy
    import in `Client.from_profile` and `api/session.py` did, and closed a ten-module cycle through
    wfctl.config -> wfctl.errors -> wfctl.api)."""
    from tests.layers.imports import graph

    wfctl_cli = tuple(m for m in CLI_SIDE if m.startswith("wfctl."))
    found = {module: sorted(t for t in targets if t.startswith(wfctl_cli))
             for module, targets in graph().items() if module == "wfctl.api" or module.startswith("wfctl.api.")}
    assert {m: t for m, t in found.items() if t} == {}


STAR = f"""
import json, sys
from wfctl.api import *
import wfctl.api
names = sorted(k for k in globals() if not k.startswith("_") and k not in ("json", "sys", "wfctl"))
print(json.dumps([names, sorted(wfctl.api.__all__), sorted(m for m in sys.modules if m.startswith({CLI_SIDE!r}))]))
"""


def test_star_import_gives_exactly_the_curated_names_and_nothing_of_the_cli():
    out = subprocess.run([sys.executable, "-c", STAR], capture_output=True, text=True, check=True).stdout
    names, public, loaded = json.loads(out)
    assert names == public
    assert loaded == []
    assert {"Client", "TokenSource", "TokenPair", "ApiError"} <= set(public)
    internal = ("LeanSender", "RunSupport", "Pause", "Journal", "SourceAuth", "Interrupted", "AttachedSource")
    assert [name for name in public if name in internal] == []


#: The Client's public methods: the service's records and the session. What only wfctl's bulk runs need (the
#: lean writer, a run's outage and interrupt hooks, the look-up of a create a stopped run may have applied)
#: is `client._runs` (wfctl.api.runsupport).
CLIENT_METHODS = [
    "access_token", "close", "create_branch", "create_client", "create_outcome", "create_record", "create_site",
    "delete_branch", "delete_client", "delete_record", "delete_site", "find_by_name",
    "from_environment", "get_agency", "get_branch", "get_client", "get_record", "get_site", "iter_branches",
    "iter_clients", "iter_records", "iter_sites", "list_branches", "list_clients", "list_records", "list_sites",
    "login", "logout", "pages", "request", "send", "update_agency", "update_branch",
    "update_client", "update_record", "update_site",
]


def test_the_client_shows_the_sdk_and_no_run_internals():
    from wfctl.api import Client

    assert sorted(name for name in dir(Client) if not name.startswith("_")) == CLIENT_METHODS


def test_naming_the_token_source_protocol_loads_no_http_stack():
    """A script's type hints (`def source() -> TokenSource`) cost no httpx import."""
    program = "import sys\nfrom wfctl.api import TokenSource, CallableSource\nprint('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"
