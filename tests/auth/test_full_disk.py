"""Config and token writes on a full disk (a real file-size limit, as a full disk refuses a write): one line
naming the file and the cause, exit 11, and the old file kept whole (issue 14 §4)."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fixtures.cli import REPO_ROOT


def _limit(size: int) -> Any:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return apply


def _run(cli: Any, *args: str, size: int, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "wfctl", *args], env=env, input=stdin, capture_output=True,
                          text=True, timeout=60, preexec_fn=_limit(size), cwd=str(cli.tmp_path))


def test_config_write_keeps_the_old_file(cli: Any) -> None:
    assert cli("config", "set", "base_url", "https://wams.example.com").exit_code == 0
    path = Path(cli.env["WFCTL_CONFIG"])
    before = path.read_bytes()
    r = _run(cli, "config", "set", "output", "json", size=16)
    assert (r.returncode, r.stdout) == (11, ""), r
    assert r.stderr == f"error: cannot write {path}: file too large; it is unchanged\n"
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # no temporary file left behind


def test_token_write_keeps_the_stored_login(cli: Any, sandbox: Any) -> None:
    assert cli.login_as(sandbox.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    tokens = [p for p in cli.config_dir.rglob("*.json") if p.parent.name == "credentials"]
    assert len(tokens) == 1, list(cli.config_dir.rglob("*"))
    before = tokens[0].read_bytes()
    r = _run(cli, "login", "--base-url", sandbox.url, "--username", "admin@northwind.test", "--password-stdin",
             "--credential-store", "file", size=64, stdin="sandbox-admin\n")
    assert r.returncode == 11, r
    assert r.stderr.startswith(f"error: cannot write {tokens[0]}: file too large; it is unchanged"), r
    assert tokens[0].read_bytes() == before
    assert cli("auth", "status").exit_code == 0  # the old login still works
