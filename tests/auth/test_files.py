"""What wfctl writes on disk: every directory it creates is 0700 and every file 0600, whatever the
umask; profile names map to token files one-to-one."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.cli import REPO_ROOT
from wfctl.fsutil import file_name_for, open_private, private_dir, private_file_lock, write_private_file

ADMIN = ("admin@northwind.test", "sandbox-admin")
MANAGER = ("manager@northwind.test", "sandbox-manager")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _run(cli, umask: int, *args: str, input: str = "", env: dict[str, str] | None = None) -> None:
    full = dict(cli.env, PYTHONPATH=str(REPO_ROOT), **(env or {}))
    proc = subprocess.run(["sh", "-c", f'umask {umask:03o}; exec "$@"', "sh", sys.executable, "-m", "wfctl", *args],
                          input=input, capture_output=True, text=True, env=full, cwd=str(cli.tmp_path), timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_everything_wfctl_creates_is_private_whatever_the_umask(cli, sandbox, umask):
    keyring = {"PYTHON_KEYRING_BACKEND": "tests.auth.keyrings.FileKeyring",
               "WFCTL_TEST_KEYRING_FILE": str(cli.tmp_path / "keyring.json")}
    _run(cli, umask, "login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin",
         "--credential-store", "file", input=ADMIN[1])
    _run(cli, umask, "config", "set", "output", "json")
    _run(cli, umask, "agency", "show")
    _run(cli, umask, "-p", "kr", "login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin",
         input=ADMIN[1], env=keyring)
    _run(cli, umask, "-p", "kr", "agency", "show", env=keyring)
    created = [p for root in ("config", "state") for p in [cli.tmp_path / root, *(cli.tmp_path / root).rglob("*")]]
    assert any(p.name.endswith(".lock") for p in created)  # lock files of both kinds of store
    assert any(p.parent.name == "credentials" for p in created)
    assert (cli.tmp_path / "state" / "wfctl" / "locks").is_dir()
    wrong = {str(p.relative_to(cli.tmp_path)): f"{_mode(p):04o}" for p in created
             if _mode(p) != (0o700 if p.is_dir() else 0o600)}
    assert wrong == {}


def test_private_dir_makes_missing_parents_0700_and_leaves_existing_ones(tmp_path):
    old = os.umask(0)
    try:
        (tmp_path / "mine").mkdir(mode=0o755)
        os.chmod(tmp_path / "mine", 0o755)
        target = private_dir(tmp_path / "mine" / "a" / "b")
    finally:
        os.umask(old)
    assert target.is_dir()
    assert _mode(tmp_path / "mine") == 0o755  # not created by wfctl: not changed
    assert _mode(tmp_path / "mine" / "a") == 0o700 and _mode(target) == 0o700
    assert private_dir(target) == target  # existing: nothing to do


def test_private_files_and_locks(tmp_path):
    old = os.umask(0)
    try:
        fd = open_private(tmp_path / "new" / "journal")
        os.close(fd)
        loose = tmp_path / "loose.lock"
        loose.write_text("")
        os.chmod(loose, 0o666)  # a lock file left by an earlier version
        with private_file_lock(loose, timeout=1):
            pass
        with private_file_lock(tmp_path / "locks" / "fresh.lock", timeout=1):
            pass
        write_private_file(tmp_path / "cfg" / "config.toml", b"x = 1\n")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new") == 0o700 and _mode(tmp_path / "new" / "journal") == 0o600
    assert _mode(loose) == 0o600
    assert _mode(tmp_path / "locks") == 0o700 and _mode(tmp_path / "locks" / "fresh.lock") == 0o600
    assert _mode(tmp_path / "cfg" / "config.toml") == 0o600


# -- profile names -> token files ----------------------------------------------------------------------


def test_file_names_are_one_to_one():
    names = ["default", "prod_eu", "prod/eu", "prod eu", "prod%2Feu", "Prod", "prod", "PROD", "%", "",
             "ça", "c\u0327a", "a" * 300, "a" * 301, "..", "prod\\eu", "prod:eu"]
    files = [file_name_for(n) for n in names]
    assert len({f.lower() for f in files}) == len(names)  # distinct even on a case-insensitive disk
    assert file_name_for("default") == "default" and file_name_for("prod_eu") == "prod_eu"
    assert file_name_for("prod/eu") == "prod%2Feu"
    for f in files:
        assert "/" not in f and "\\" not in f and ":" not in f and 0 < len(f) <= 120


def test_profiles_whose_old_file_names_collided_are_separate_logins(cli, sandbox):
    for profile, who in (("prod/eu", ADMIN), ("prod_eu", MANAGER)):
        r = cli("-p", profile, "login", "--base-url", sandbox.url, "-u", who[0], "--password-stdin",
                "--credential-store", "file", input=who[1])
        assert r.exit_code == 0, r
    users = {p: json.loads(cli("-p", p, "auth", "status", "-o", "json").stdout)["user"] for p in ("prod/eu", "prod_eu")}
    assert users == {"prod/eu": ADMIN[0], "prod_eu": MANAGER[0]}
    files = sorted(p.name for p in (cli.config_dir / "credentials").iterdir())
    assert files == ["prod%2Feu.json", "prod_eu.json"]
    assert cli("-p", "prod/eu", "logout").exit_code == 0
    assert cli("-p", "prod_eu", "agency", "show").exit_code == 0  # the other login is untouched


def test_a_token_file_written_by_an_earlier_version_is_still_read(cli, sandbox):
    """`Staging` used to be kept in `Staging.json`; now in `%53taging.json`. The old file is read
    until the pair is next written, then removed."""
    assert cli("-p", "Staging", "login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1]).exit_code == 0
    credentials = cli.config_dir / "credentials"
    (credentials / "%53taging.json").rename(credentials / "Staging.json")
    assert cli("-p", "Staging", "agency", "show").exit_code == 0
    assert "Staging.json" in json.loads(cli("-p", "Staging", "auth", "status", "-o", "json").stdout)[
        "credentialStoreLocation"]
    assert cli("-p", "Staging", "login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1]).exit_code == 0
    assert sorted(p.name for p in credentials.iterdir()) == ["%53taging.json"]
    assert cli("-p", "Staging", "logout").exit_code == 0
    assert list(credentials.iterdir()) == []
