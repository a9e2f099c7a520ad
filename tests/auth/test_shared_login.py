"""One login, one lock: the keyring entry and the refresh lock are keyed by the same thing, the
service origin and the profile name. Two configs (WFCTL_CONFIG A and B) that name the same profile
and service share the login and its lock, so parallel commands from both never present a spent
refresh token (G3). Logins stored by earlier versions under the profile name alone keep working."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import login_token

ADMIN = ("admin@northwind.test", "sandbox-admin")
BACKEND = "tests.auth.keyrings.FileKeyring"


def _env(cli, tmp_path: Path, config: Path | None = None) -> dict[str, str]:
    env = dict(cli.env, PYTHON_KEYRING_BACKEND=BACKEND, WFCTL_TEST_KEYRING_FILE=str(tmp_path / "keyring.json"),
               PYTHONPATH=str(REPO_ROOT))
    if config is not None:
        env["WFCTL_CONFIG"] = str(config)
    return env


def _keyring(tmp_path: Path) -> dict[str, str]:
    return json.loads((tmp_path / "keyring.json").read_text())


def _origin(url: str) -> str:
    return url  # the sandbox URL is already an origin: http://127.0.0.1:<port>


def test_two_configs_share_one_login_and_one_lock(cli, sandbox_factory, tmp_path):
    server = sandbox_factory(access_ttl=2, latency_ms=300)
    env_a = _env(cli, tmp_path)
    config_b = tmp_path / "b" / "config.toml"
    env_b = _env(cli, tmp_path, config_b)
    login = cli("login", "--base-url", server.url, "-u", ADMIN[0], "--password-stdin", input=ADMIN[1], env=env_a)
    assert login.exit_code == 0, login
    assert cli("config", "set", "base_url", server.url, env=env_b).exit_code == 0
    time.sleep(2.2)  # the access token has expired: every process below wants to refresh at once
    args = [sys.executable, "-m", "wfctl", "agency", "show", "-o", "json"]
    procs = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=str(tmp_path)) for env in (env_a, env_b) * 3]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [err for _, err in outs]
    assert server.reuse_detections() == 0
    assert list(_keyring(tmp_path)) == [f"wfctl/default@{_origin(server.url)}"]
    locks = list((tmp_path / "state" / "wfctl" / "locks").iterdir())
    assert [p.name for p in locks] == ["default@http%3A%2F%2F127.0.0.1%3A" + server.url.rsplit(":", 1)[1] + ".lock"]
    assert not (cli.config_dir / "locks").exists() and not (config_b.parent / "locks").exists()


def test_same_profile_for_two_services_is_two_logins(cli, sandbox_factory, tmp_path):
    one, two = sandbox_factory(), sandbox_factory()
    env_a = _env(cli, tmp_path)
    env_b = _env(cli, tmp_path, tmp_path / "b" / "config.toml")
    for url, env in ((one.url, env_a), (two.url, env_b)):
        r = cli("login", "--base-url", url, "-u", ADMIN[0], "--password-stdin", input=ADMIN[1], env=env)
        assert r.exit_code == 0, r
    assert sorted(_keyring(tmp_path)) == sorted([f"wfctl/default@{one.url}", f"wfctl/default@{two.url}"])
    for env in (env_a, env_b):
        assert cli("agency", "show", env=env).exit_code == 0
    status = json.loads(cli("auth", "status", "-o", "json", env=env_b).stdout)
    assert status["credentialStoreLocation"].endswith(f"entry 'default@{two.url}')")


def test_a_login_stored_under_the_profile_name_keeps_working_and_moves(cli, sandbox_factory, tmp_path):
    """A login kept by an earlier version (entry `default`) is read, and moved to the new entry
    the next time the pair is written (here: the first refresh)."""
    server = sandbox_factory(access_ttl=2)
    env = _env(cli, tmp_path)
    tokens = login_token(server, *ADMIN)
    now = time.time()
    legacy = {"access_token": tokens["accessToken"], "refresh_token": tokens["refreshToken"],
              "expires_at": now + 2, "obtained_at": now, "username": ADMIN[0], "base_url": server.url}
    (tmp_path / "keyring.json").write_text(json.dumps({"wfctl/default": json.dumps(legacy)}))
    assert cli("config", "set", "base_url", server.url, env=env).exit_code == 0
    first = cli("agency", "show", "-o", "json", env=env)
    assert first.exit_code == 0, first
    time.sleep(2.2)
    second = cli("agency", "show", "-o", "json", env=env)  # refreshes: the pair is written
    assert second.exit_code == 0, second
    assert list(_keyring(tmp_path)) == [f"wfctl/default@{server.url}"]
    assert server.reuse_detections() == 0
    assert cli("logout", env=env).exit_code == 0
    assert _keyring(tmp_path) == {}


def test_an_old_entry_for_another_service_is_left_alone(cli, sandbox, tmp_path):
    env = _env(cli, tmp_path)
    other = {"access_token": "other-access", "refresh_token": "other-refresh", "expires_at": time.time() + 600,
             "obtained_at": time.time(), "username": "someone", "base_url": "https://other.example.com"}
    (tmp_path / "keyring.json").write_text(json.dumps({"wfctl/default": json.dumps(other)}))
    r = cli("--base-url", sandbox.url, "agency", "show", env=env)
    assert r.exit_code == 3 and "not logged in" in r.stderr
    r = cli("login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin", input=ADMIN[1], env=env)
    assert r.exit_code == 0, r
    assert cli("logout", env=env).exit_code == 0
    assert list(_keyring(tmp_path)) == ["wfctl/default"]  # still the other service's login
