"""`wfctl sandbox serve`: a real process on a real port, the seeded logins on stderr, a clean Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from wfctl.cmdline.main import main


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_prints_the_logins_answers_and_stops_cleanly(tmp_path: Path, stop: signal.Signals) -> None:
    port = _free_port()
    db = tmp_path / "serve.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", str(port), "--db", str(db),
         "--access-ttl", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                response = httpx.post(f"{url}/identity/login", timeout=2,
                                      json={"username": "staff@northwind.test", "password": "sandbox-staff"})
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the sandbox did not start"
                time.sleep(0.1)
        assert response.status_code == 200 and response.json()["expiresIn"] == 60
        proc.send_signal(stop)
        stdout, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
    assert proc.returncode == 0
    assert stdout == ""
    assert url in stderr
    for login in ("admin@northwind.test", "sandbox-admin", "manager@northwind.test", "sandbox-manager",
                  "staff@northwind.test", "sandbox-staff", "admin@southgate.test"):
        assert login in stderr
    assert db.exists()
    assert stderr.rstrip().endswith("sandbox stopped")


def test_serve_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)  # importlib.util.find_spec("fastapi") is now None
    assert main(["sandbox", "serve"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'wfctl[sandbox]'" in err
    assert len(err.strip().splitlines()) == 1


def test_the_cli_side_never_imports_fastapi_or_uvicorn() -> None:
    code = ("import sys; import wfctl.cmdline.app, wfctl.commands.sandbox; "
            "loaded = [m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules]; "
            "print(loaded); sys.exit(1 if loaded else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_serve_help_names_every_option() -> None:
    result = subprocess.run([sys.executable, "-m", "wfctl", "sandbox", "serve", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0
    for option in ("--host", "--port", "--db", "--seed", "--no-seed", "--access-ttl", "--rate-limit", "--latency",
                   "--max-body", "--quirk"):
        assert option in result.stdout
