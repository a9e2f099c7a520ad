"""`wfctl ... | head -1`: a reader that leaves early is not a failure (issue 14, section 3). Real shell
pipelines running the installed console script, with output well past the pipe buffer (64 KiB)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, auth_headers

SITES = 300  # about 600 bytes each in every format: some 180 KB, well past a pipe's 64 KiB


@pytest.fixture(scope="module")
def big_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.fixtures.sandbox import SandboxServer

    server = SandboxServer(str(tmp_path_factory.mktemp("pipe") / "sandbox.db"))
    headers = auth_headers(server, *ADMIN)
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        branch = http.get("/api/branches").json()["data"][0]["id"]
        client = http.post("/api/clients", json={"name": "Pipe client", "branchId": branch}).json()["id"]
        for i in range(SITES):
            answer = http.post(f"/api/clients/{client}/sites",
                               json={"name": f"Site {i:04d}", "address": f"{i} " + "Long Road " * 40})
            assert answer.status_code == 201, answer.text
    try:
        yield server, client
    finally:
        server.stop()


def _wfctl() -> str:
    script = Path(sys.executable).parent / "wfctl"  # the console script installed beside this Python
    return str(script) if script.exists() else (shutil.which("wfctl") or pytest.skip("wfctl is not installed"))


@pytest.mark.parametrize("command", [
    "sites list --client {client} --all --page-size 20 -o jsonl",
    "sites list --client {client} --all --page-size 20 -o csv",
    "sites list --client {client} --all --page-size 20 -o json",
    "sites list --client {client} --all --page-size 20",
    "sites export --client {client}",
])
def test_head_leaving_early_is_exit_0_and_silent(cli: Any, big_client: Any, command: str) -> None:
    server, client = big_client
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    line = f"'{_wfctl()}' {command.format(client=client)}"
    full = subprocess.run(["bash", "-c", f"{line} | wc -c; echo ${{PIPESTATUS[0]}}"], capture_output=True,
                          text=True, env=cli.env, timeout=120)
    size, status = full.stdout.split()
    assert (status, full.stderr) == ("0", "") and int(size) > 128 * 1024, full  # it does outgrow the pipe
    r = subprocess.run(["bash", "-c", f"{line} | head -1 > /dev/null; echo ${{PIPESTATUS[0]}}"],
                       capture_output=True, text=True, env=cli.env, timeout=120)
    assert (r.stdout, r.stderr) == ("0\n", "")  # was: exit 1
