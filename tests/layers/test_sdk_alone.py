"""The SDK stands on its own (issue 22 §2): importing `wfctl.api` and building a Client loads nothing of the
CLI, so a script using the SDK pays for none of it and cannot be broken by it."""

from __future__ import annotations

import json
import subprocess
import sys

CLI_SIDE = ("wfctl.config", "wfctl.errors", "wfctl.context", "wfctl.output", "wfctl.factory", "wfctl.commands",
            "wfctl.bulk", "typer", "click", "rich")

PROGRAM = """
import json, sys
from wfctl.api import Client
from wfctl.api.auth import StaticTokenAuth
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
