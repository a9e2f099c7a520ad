"""The tour takes --port, removes its temporary folder (which holds a token file) when it ends, and with
--keep says how to stop the sandbox (issue 15 §3)."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tour(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
    env.update(TMPDIR=str(tmp_path), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, str(REPO / "examples" / "tour.py"), *args], env=env, text=True,
                          capture_output=True, timeout=600, cwd=tmp_path)


def test_tour_on_a_port_leaves_nothing_behind(tmp_path: Path) -> None:
    port = _port()
    done = _tour(tmp_path, "--port", str(port))
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"running at http://127.0.0.1:{port} " in done.stdout
    assert done.stdout.endswith("The sandbox is stopped and the tour's folder (config, token file, data) removed.\n")
    assert list(tmp_path.glob("wfctl-tour-*")) == []


def test_tour_keep_says_how_to_stop_the_sandbox(tmp_path: Path) -> None:
    port = _port()
    done = _tour(tmp_path, "--port", str(port), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    stop = re.search(r"^Stop it, and remove the folder \(it holds a token file\), with:\n  (kill (\d+) && rm -rf (.+))$",
                     done.stdout, re.M)
    assert stop, done.stdout[-2000:]
    folder = Path(shlex.split(stop.group(3))[0])
    assert folder.parent == tmp_path and folder.is_dir()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=5):
        pass
    subprocess.run(["sh", "-c", stop.group(1)], check=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(int(stop.group(2)), 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    assert not folder.exists()
