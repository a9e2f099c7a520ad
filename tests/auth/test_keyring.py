"""The keyring credential store: default choice, bounded wait, null/fail backends, and a real Secret Service."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.auth.keyrings import secret_service_run
from tests.fixtures.cli import REPO_ROOT

ADMIN = ("admin@northwind.test", "sandbox-admin")


def _keyring_env(tmp_path: Path, backend: str = "tests.auth.keyrings.FileKeyring") -> dict[str, str]:
    return {"PYTHON_KEYRING_BACKEND": backend, "WFCTL_TEST_KEYRING_FILE": str(tmp_path / "keyring.json"),
            "PYTHONPATH": str(REPO_ROOT)}


def _login(cli, url: str, env: dict[str, str], *extra: str):
    return cli("login", "--base-url", url, "-u", ADMIN[0], "--password-stdin", *extra, input=ADMIN[1], env=env)


def test_keyring_is_the_default_store(cli, sandbox, tmp_path):
    env = _keyring_env(tmp_path)
    r = _login(cli, sandbox.url, env)
    assert r.exit_code == 0, r
    stored = json.loads((tmp_path / "keyring.json").read_text())
    pair = json.loads(stored[f"wfctl/default@{sandbox.url}"])  # entry: profile @ service origin
    assert pair["access_token"] and pair["refresh_token"] and pair["username"] == ADMIN[0]
    assert not (cli.config_dir / "credentials").exists()
    assert "credential_store" not in cli.config_path.read_text()  # the default is not written
    status = json.loads(cli("auth", "status", "-o", "json", env=env).stdout)
    assert status["credentialStore"] == "keyring"
    assert status["credentialStoreReason"] == "the default"
    assert cli("agency", "show", env=env).exit_code == 0
    r = cli("logout", env=env)
    assert r.exit_code == 0
    assert json.loads((tmp_path / "keyring.json").read_text()) == {}


@pytest.mark.parametrize("backend", ["keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"])
def test_no_usable_keyring_names_both_ways_out(cli, sandbox, tmp_path, backend):
    r = _login(cli, sandbox.url, _keyring_env(tmp_path, backend))
    assert r.exit_code == 3, r
    assert r.stderr.count("\n") == 1
    assert "no usable keyring" in r.stderr
    assert "--credential-store file" in r.stderr and "gnome-keyring" in r.stderr
    # issue 36: the command it suggests can be run as it is, the password still from stdin
    assert f"`wfctl login --base-url {sandbox.url} -u {ADMIN[0]} --password-stdin --credential-store file`" \
        in r.stderr, r.stderr
    if "null" in backend:
        assert "silently drops writes" in r.stderr
    # The explicit way out works.
    r = _login(cli, sandbox.url, _keyring_env(tmp_path, backend), "--credential-store", "file")
    assert r.exit_code == 0, r
    status = json.loads(cli("auth", "status", "-o", "json").stdout)
    assert status["credentialStore"] == "file"
    assert "credentials" in status["credentialStoreLocation"]


def test_keyring_dropping_writes_is_detected(tmp_path, monkeypatch):
    from wfctl.api.errors import CredentialStoreError
    from wfctl.api.session.keyringstore import KeyringStore
    from wfctl.api.session.store import TokenPair

    class Forgetful:
        def set_password(self, *a: str) -> None:
            pass

        def get_password(self, *a: str) -> None:
            return None

    monkeypatch.setattr("wfctl.api.session.keyringstore._keyring", lambda: Forgetful())
    store = KeyringStore("default", tmp_path / "l.lock")
    with pytest.raises(CredentialStoreError, match="did not keep them"):
        store.save(TokenPair("a" * 10, "r" * 10, 0, 0))


def test_locked_keyring_does_not_hang(cli, sandbox, tmp_path):
    env = dict(_keyring_env(tmp_path, "tests.auth.keyrings.HangingKeyring"), WFCTL_KEYRING_TIMEOUT="0.5")
    started = time.monotonic()
    r = _login(cli, sandbox.url, env)
    assert r.exit_code == 3, r
    assert "did not answer within 0.5 s" in r.stderr and "--credential-store file" in r.stderr
    r = cli("--base-url", sandbox.url, "agency", "show", env=env)
    assert r.exit_code == 3 and "did not answer" in r.stderr
    assert time.monotonic() - started < 5


@pytest.mark.real_component
def test_real_secret_service_login_and_logout(cli, sandbox, tmp_path):
    """Log in and out through gnome-keyring under a private D-Bus session; the token is in the
    Secret Service and nowhere on disk in clear."""
    py = sys.executable
    script = f"""
{py} -m wfctl login --base-url {sandbox.url} -u {ADMIN[0]} --password-stdin
echo "STATUS $({py} -m wfctl auth status -o json)"
echo "TOKEN $({py} -m wfctl auth token)"
echo "SECRET $(secret-tool lookup service wfctl username default@{sandbox.url})"
{py} -m wfctl logout
echo "AFTER $(secret-tool lookup service wfctl username default@{sandbox.url} || true)"
"""
    lines = secret_service_run(script, env=dict(cli.env, PYTHONPATH=str(REPO_ROOT)), stdin=ADMIN[1], cwd=tmp_path)
    status = json.loads(lines["STATUS"])
    assert status["credentialStore"] == "keyring" and "SecretService" in status["credentialStoreLocation"]
    token = lines["TOKEN"]
    assert len(token) > 10
    assert json.loads(lines["SECRET"])["access_token"] == token
    assert lines["AFTER"] == ""
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
            assert ADMIN[1].encode() not in path.read_bytes() or path.name.endswith(".db"), path
    assert shutil.which("gnome-keyring-daemon")


@pytest.mark.parametrize(("backend", "said"), [
    ("keyring.backends.SecretService.Keyring", "the Secret Service keyring (GNOME Keyring, KWallet)"),
    ("keyring.backends.macOS.Keyring", "the macOS Keychain"),
    ("keyring.backends.Windows.WinVaultKeyring", "Windows Credential Manager"),
    ("keyrings.alt.file.PlaintextKeyring", "the keyring keyrings.alt.file.PlaintextKeyring"),
])
def test_the_login_line_names_the_keyring_as_a_person_knows_it(monkeypatch, tmp_path, backend, said):
    """Issue 49: the login line and `auth status` name the desktop's store, not a backend's class path."""
    from wfctl.api.session import keyringstore as store

    monkeypatch.setattr(store, "_backend_name_quick", lambda: backend)
    entry = "default@http://127.0.0.1:8765"
    assert store.KeyringStore(entry, tmp_path / "lock").describe() == f"{said}, entry {entry!r} of service 'wfctl'"
