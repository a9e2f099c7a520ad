"""Issue 47: a login's pair of 4 KB JWT-shaped tokens in every keyring, split where an entry is too small.

The keyring backends (tests/auth/keyrings.py) emulate platforms that cannot run here: Windows Credential
Manager (an entry holds at most 2,560 bytes of UTF-16, a longer one is refused with CredWrite's words) and
the macOS Keychain / Secret Service (bytes, no limit a pair comes near). The real Secret Service
(gnome-keyring under dbus-run-session) is the last test. The sandbox issues JWT-shaped tokens of 4,096
characters (`--token-form jwt --token-size 4096`); the service's clock is moved past each access token's
15 minutes, so each command's first request gets a 401 and refreshes the pair.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.auth.keyrings import secret_service_run
from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN

SIZE = 4096
WINDOWS = "tests.auth.keyrings.WindowsLimitKeyring"
DESKTOP = "tests.auth.keyrings.DesktopKeyring"
ACCESS_LIFETIME = 15 * 60


def _env(tmp_path: Path, backend: str, **extra: str) -> dict[str, str]:
    return {"PYTHON_KEYRING_BACKEND": backend, "WFCTL_TEST_KEYRING_FILE": str(tmp_path / "keyring.json"),
            "PYTHONPATH": str(REPO_ROOT), **extra}


def _login(cli, url: str, env: dict[str, str]):
    return cli("login", "--base-url", url, "-u", ADMIN[0], "--password-stdin", input=ADMIN[1], env=env)


def _entries(tmp_path: Path, backend: str) -> dict[str, str]:
    """The keyring's entries as the backend keeps them (DesktopKeyring: hex of the UTF-8 bytes)."""
    path = tmp_path / "keyring.json"
    stored = json.loads(path.read_text()) if path.exists() else {}
    if backend == DESKTOP:
        return {k: bytes.fromhex(v).decode() for k, v in stored.items()}
    return stored  # type: ignore[no-any-return]


def _subprocess(cli, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wfctl", *args], env=dict(cli.env, **env), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(cli.tmp_path))


def test_the_sandbox_issues_jwt_shaped_tokens_of_the_size_asked(sandbox_factory):
    from wfctl.api.session.tokenpair import jwt_claims

    server = sandbox_factory(token_form="jwt", token_size=SIZE)
    pair = httpx.post(f"{server.url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]}).json()
    for name in ("accessToken", "refreshToken"):
        token = pair[name]
        assert len(token) == SIZE and token.count(".") == 2
        claims = jwt_claims(token)
        assert claims["sub"] and claims["exp"] > claims["iat"]
    assert jwt_claims(pair["accessToken"])["exp"] - jwt_claims(pair["accessToken"])["iat"] == pair["expiresIn"]
    headers = {"Authorization": f"Bearer {pair['accessToken']}"}
    assert httpx.get(f"{server.url}/api/agency/", headers=headers).status_code == 200
    again = httpx.post(f"{server.url}/identity/refresh",
                       json={"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]}).json()
    assert len(again["accessToken"]) == SIZE and again["accessToken"] != pair["accessToken"]
    assert httpx.get(f"{server.url}/api/agency/", headers=headers).status_code == 200  # not revoked by a refresh


def test_sandbox_serve_refuses_a_token_size_it_cannot_make(cli):
    r = cli("sandbox", "serve", "--port", "0", "--token-form", "jwt", "--token-size", "10")
    assert r.exit_code == 2, r
    assert r.stderr == ("error: --token-form/--token-size: a JWT-shaped token's size must be 256 to 65536 "
                        "characters\n")


@pytest.mark.parametrize("backend", [WINDOWS, DESKTOP])
def test_login_20_refreshes_two_processes_status_and_logout(cli, sandbox_factory, tmp_path, backend):
    server = sandbox_factory(token_form="jwt", token_size=SIZE)
    env = _env(tmp_path, backend)
    r = _login(cli, server.url, env)
    assert r.exit_code == 0, r
    entries = _entries(tmp_path, backend)
    entry = f"wfctl/default@{server.url}"
    if backend == WINDOWS:  # the pair (8 KB) is split over entries that each fit
        assert len(entries) > 6
        assert all(len(v.encode("utf-16-le")) <= 2560 for v in entries.values())
        assert json.loads(entries[entry])["kind"] == "wfctl-split"
    else:  # one entry, the pair as earlier versions kept it
        assert list(entries) == [entry]
        assert len(json.loads(entries[entry])["access_token"]) == SIZE
    first = cli("auth", "token", env=env).stdout.strip()
    assert len(first) == SIZE

    tokens = {first}
    for _ in range(20):  # each: the stored access token has expired at the service, a 401, one refresh
        server.clock.advance(ACCESS_LIFETIME + 1)
        r = cli("agency", "show", "-o", "json", env=env)
        assert r.exit_code == 0, r
        assert json.loads(r.stdout)["name"] == "Northwind Staffing"
        tokens.add(cli("auth", "token", env=env).stdout.strip())
    assert len(tokens) == 21  # every refresh was kept, and read back whole
    assert len(_entries(tmp_path, backend)) == len(entries)  # no part of an earlier pair is left behind

    server.clock.advance(ACCESS_LIFETIME + 1)  # two processes meet the expired token and refresh at once
    procs = [_subprocess(cli, env, "agency", "show", "-o", "json") for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    assert server.reuse_detections() == 0

    status = json.loads(cli("auth", "status", "-o", "json", env=env).stdout)
    assert status["credentialStore"] == "keyring" and status["user"] == ADMIN[0]
    assert entry.removeprefix("wfctl/") in status["credentialStoreLocation"]
    r = cli("logout", env=env)
    assert r.exit_code == 0, r
    assert _entries(tmp_path, backend) == {}  # the manifest and every part
    assert httpx.get(f"{server.url}/api/agency/", headers={"Authorization": f"Bearer {first}"}).status_code == 401


@pytest.mark.parametrize("backend", [WINDOWS, DESKTOP])
def test_a_crash_between_entries_is_never_read_as_a_token(cli, sandbox_factory, tmp_path, backend):
    """A refresh writes the pair twice (marked as on its way, then the new pair); the process dies before
    each of those writes in turn. What is read afterwards is a whole pair (the one before, marked or not),
    the next command works (a refresh in doubt is sent again within its window, G3), and no spent refresh
    token is ever presented."""
    server = sandbox_factory(token_form="jwt", token_size=SIZE)
    env = _env(tmp_path, backend)
    assert _login(cli, server.url, env).exit_code == 0
    entries = len(_entries(tmp_path, backend)) if backend == WINDOWS else 1  # the writes of one save
    # Before the first and the second part, the manifest, then the same in the second save (each point
    # a process of its own: a few of them, not every part).
    for die_at in sorted(n for n in {1, 2, entries, entries + 1, entries + 2, 2 * entries} if n <= 2 * entries):
        server.clock.advance(ACCESS_LIFETIME + 1)
        proc = _subprocess(cli, dict(env, WFCTL_TEST_KEYRING_DIE_AT_WRITE=str(die_at)), "agency", "show")
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 137, err
        status = cli("auth", "status", "-o", "json", env=env)
        assert status.exit_code == 0, (die_at, status)
        token = cli("auth", "token", env=env)
        assert token.exit_code == 0 and len(token.stdout.strip()) == SIZE, (die_at, token)
        assert cli("agency", "show", env=env).exit_code == 0
    assert server.reuse_detections() == 0
    assert cli("logout", env=env).exit_code == 0
    assert _entries(tmp_path, backend) == {}


def test_a_write_the_keyring_refuses_names_the_limit_not_the_backend_words(cli, sandbox_factory, tmp_path):
    server = sandbox_factory(token_form="jwt", token_size=SIZE)
    r = _login(cli, server.url, _env(tmp_path, "tests.auth.keyrings.TinyKeyring"))
    assert r.exit_code == 3, r
    assert r.stderr.count("\n") == 1 and "backend-secret-words" not in r.stderr
    assert "refused an entry of 1,280 characters" in r.stderr
    assert "entries of 1,280 characters, Windows Credential Manager's limit" in r.stderr
    assert "`wfctl login --credential-store file`" in r.stderr


def test_the_windows_limit_is_known_before_a_write_is_refused():
    """On Windows itself the pair is split before the first write (keyring's WinVaultKeyring, by its module)."""
    from wfctl.api.session import keyringsplit

    windows = type("WinVaultKeyring", (), {"__module__": "keyring.backends.Windows"})()
    assert keyringsplit.entry_limit(windows) == 1280
    other = type("Keyring", (), {"__module__": "keyring.backends.SecretService"})()
    assert keyringsplit.entry_limit(other) is None


@pytest.mark.real_component
def test_real_secret_service_keeps_4kb_tokens(cli, sandbox_factory, tmp_path):
    """4 KB JWT-shaped tokens through gnome-keyring under a private D-Bus session: login, a refresh, status,
    logout; the keyring holds the pair and, after logout, nothing of wfctl's."""
    server = sandbox_factory(token_form="jwt", token_size=SIZE, access_ttl=2)
    py = sys.executable
    script = f"""
{py} -m wfctl login --base-url {server.url} -u {ADMIN[0]} --password-stdin
echo "FIRST $({py} -m wfctl auth token)"
sleep 2.2
{py} -m wfctl agency show -o json >/dev/null
echo "STATUS $({py} -m wfctl auth status -o json)"
echo "TOKEN $({py} -m wfctl auth token)"
echo "SECRET $(secret-tool lookup service wfctl username default@{server.url})"
{py} -m wfctl logout
echo "AFTER $(secret-tool search --all service wfctl 2>&1 | wc -l)"
"""
    lines = secret_service_run(script, env=dict(cli.env, PYTHONPATH=str(REPO_ROOT)), stdin=ADMIN[1], cwd=tmp_path)
    status = json.loads(lines["STATUS"])
    assert status["credentialStore"] == "keyring" and "SecretService" in status["credentialStoreLocation"]
    assert status["credentialStoreProtection"] == ("encrypted in a Secret Service collection, unlocked by your "
                                                   "desktop login")
    assert len(lines["TOKEN"]) == SIZE and lines["TOKEN"] != lines["FIRST"]
    assert json.loads(lines["SECRET"])["access_token"] == lines["TOKEN"]  # no limit there: one entry
    assert lines["AFTER"].strip() == "0"
    assert server.reuse_detections() == 0
