"""The container recipe of docs/sandbox.md ("In a container"): built with Docker where Docker runs; where it does
not, its command line is run as the container would run it, and its `pip install` names an extra wfctl has."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from tests.fixtures.cli import REPO_ROOT


def dockerfile() -> str:
    text = (REPO_ROOT / "docs/sandbox.md").read_text()
    return re.search(r"```dockerfile\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]


def test_the_recipe_installs_an_extra_wfctl_has() -> None:
    [install] = re.findall(r"^RUN pip install --no-cache-dir '(wfctl\[(\w+)\])'$", dockerfile(), re.M)
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert install[1] in extras and "fastapi" in " ".join(extras[install[1]])


def test_the_recipes_command_line_serves_the_control_plane(tmp_path: Path) -> None:
    [cmd] = re.findall(r"^CMD (\[.*\])$", dockerfile(), re.M)
    argv = json.loads(cmd)
    assert argv[:3] == ["wfctl", "sandbox", "serve"]
    token_file = tmp_path / "control-token"
    argv = [sys.executable, "-m", "wfctl", *argv[1:]]
    argv[argv.index("--port") + 1] = "0"                       # the container's port, free on this machine
    argv[argv.index("--control-token-file") + 1] = str(token_file)
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1",
                                 "WFCTL_SANDBOX_TEST_SCRYPT_N": "1024"})
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        url = first.split()[3]
        deadline = time.monotonic() + 20
        while not token_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        answer = httpx.get(f"{url}/_control/behaviour",
                           headers={"Authorization": f"Bearer {token_file.read_text().strip()}"})
        assert answer.status_code == 200 and answer.json()["quirks"] == []
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_docker_builds_the_recipe(tmp_path: Path) -> None:
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "info"], capture_output=True).returncode != 0:
        pytest.skip("no Docker here: the command line is tested above")
    (tmp_path / "Dockerfile").write_text(dockerfile())
    build = subprocess.run([docker, "build", "-q", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stderr
