"""Issue 47: the SDK takes every source the CLI knows (keyring, file, environment, credential process, a
callable) through the one TokenSource interface, each against a sandbox on a real socket."""

from __future__ import annotations

import json
import sys

import pytest

from tests.fixtures.sandbox import ADMIN, login_token


def _agency(auth, url: str) -> str:
    from wfctl.api import Client, TokenSource

    assert isinstance(auth, TokenSource) or callable(auth)
    with Client(url, auth=auth) as client:
        return str(client.get_agency()["name"])


@pytest.mark.parametrize("store", ["keyring", "file"])
def test_a_profile_login_as_a_source(cli, sandbox, tmp_path, store):
    env = {"PYTHON_KEYRING_BACKEND": "tests.auth.keyrings.DesktopKeyring",
           "WFCTL_TEST_KEYRING_FILE": str(tmp_path / "keyring.json")}
    r = cli("login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin", "--credential-store", store,
            input=ADMIN[1], env=env)
    assert r.exit_code == 0, r
    import wfctl.profiles

    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        source = wfctl.profiles.token_source()
        assert _agency(source, sandbox.url) == "Northwind Staffing"
        assert (store == "keyring") == ("keyring" in (source.location() or ""))


def test_a_credential_process_as_a_source(sandbox, tmp_path):
    from wfctl.api.session.credprocess import CredentialProcessSource

    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"accessToken": login_token(sandbox, *ADMIN)["accessToken"], "expiresIn": 600}))
    source = CredentialProcessSource([sys.executable, "-c", f"print(open({str(answer)!r}).read())"])
    assert _agency(source, sandbox.url) == "Northwind Staffing"
    assert source.location() == f"the credential process {sys.executable!r} (credential_process)"


def test_the_environment_and_a_callable(sandbox, monkeypatch):
    from wfctl.api import Client

    token = login_token(sandbox, *ADMIN)["accessToken"]
    assert _agency(lambda: token, sandbox.url) == "Northwind Staffing"
    monkeypatch.setenv("WFCTL_BASE_URL", sandbox.url)
    monkeypatch.setenv("WFCTL_ACCESS_TOKEN", token)
    with Client.from_environment() as client:
        assert client.get_agency()["name"] == "Northwind Staffing"
        assert client.tokens is not None and client.tokens.location() == "environment variable WFCTL_ACCESS_TOKEN"
