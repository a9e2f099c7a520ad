"""`wfctl sandbox serve --log-requests`: one line per request, method, path, status and ms (issue 15 §3)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def test_log_requests_prints_one_line_a_request(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", "0", "--log-requests"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        url = ""
        for line in proc.stderr:
            match = re.match(r"wfctl sandbox on (http://\S+)", line)
            if match:
                url = match.group(1)
            if line.startswith("stop with: kill"):
                break
        assert url
        httpx.get(f"{url}/api/branches?page=2", timeout=10)
        httpx.post(f"{url}/identity/login", json={"username": "admin@northwind.test", "password": "nope"},
                   timeout=10)
        lines = [proc.stderr.readline().rstrip("\n") for _ in range(2)]
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert re.fullmatch(r"GET /api/branches\?page=2 401 \d+ ms", lines[0]), lines
    assert re.fullmatch(r"POST /identity/login 401 \d+ ms login failed: admin@northwind\.test", lines[1]), lines


def test_a_line_shows_control_characters_escaped(tmp_path: Path) -> None:
    from wfctl.sandbox.server import RequestLog

    seen: list[str] = []

    async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        await send({"type": "http.response.start", "status": 204, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b""})  # type: ignore[operator]

    async def send(message: dict) -> None:  # type: ignore[type-arg]
        pass

    import asyncio

    asyncio.run(RequestLog(app, seen.append)({"type": "http", "method": "DELETE", "path": "/api/x\x1b",
                                               "query_string": b""}, None, send))
    assert len(seen) == 1 and re.fullmatch(r"DELETE /api/x\\x1b 204 \d+ ms", seen[0]), seen
