"""The sandbox's banner says how to stop it where it runs, and what harder service it plays (issue 49)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from tests.fixtures.cli import REPO_ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="job control is a POSIX shell's")


def _bash(tmp_path: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
    env.update(PYTHONPATH=str(REPO_ROOT), PS1="$ ", TERM="xterm", HOME=str(tmp_path))
    shell = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], env=env, cwd=str(tmp_path), encoding="utf-8",
                          dimensions=(40, 120), timeout=30)
    shell.expect_exact("$ ")
    return shell


def test_in_the_foreground_ctrl_c_stops_it(tmp_path: Path) -> None:
    shell = _bash(tmp_path)
    try:
        shell.sendline(f"{sys.executable} -m wfctl sandbox serve --port 0 --latency 20 --rate-limit 50 "
                       "--access-ttl 60")
        shell.expect(r"data: in memory \(lost at exit; --db FILE keeps it\)\r\n")
        shell.expect_exact("plays a harder service: 20 ms latency on every answer, 429 past 50 requests a second, "
                           "access tokens last 60 s\r\n")
        shell.expect_exact("press Ctrl-C to stop\r\n")
        shell.sendintr()
        shell.expect_exact("sandbox stopped")
        shell.expect_exact("$ ")
    finally:
        shell.close(force=True)


def test_in_the_background_it_names_its_pid(tmp_path: Path) -> None:
    shell = _bash(tmp_path)
    try:
        shell.sendline(f"{sys.executable} -m wfctl sandbox serve --port 0 &")
        shell.expect(r"stop with: kill (\d+)\r\n")
        pid = int(shell.match.group(1))
        assert "plays a harder service" not in shell.before
        shell.sendline(f"kill {pid}; wait")
        shell.expect_exact("sandbox stopped")
        with pytest.raises(ProcessLookupError):
            for _ in range(100):
                os.kill(pid, 0)
                shell.expect(pexpect.TIMEOUT, timeout=0.1)
    finally:
        shell.close(force=True)


def test_a_pipe_is_not_a_terminal_either(tmp_path: Path) -> None:
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", "0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        last = ""
        for line in proc.stderr:
            last = line.rstrip("\n")
            if last.startswith("stop with:"):
                break
        assert re.fullmatch(rf"stop with: kill {proc.pid}", last), last
    finally:
        proc.terminate()
        proc.wait(timeout=15)
