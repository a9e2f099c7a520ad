"""The pytest plugin for integrators' tests (issue 48 §4): a sandbox per session, a tenant per test, run by pytest
in a subprocess as a team's CI would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fixtures.cli import REPO_ROOT

TESTS = '''
import httpx

pytest_plugins = ["wfctl.sandbox.pytest_plugin"]


def _branches(tenant):
    token = httpx.post(f"{tenant.url}/identity/login",
                       json={"username": tenant.username, "password": tenant.password}).json()["accessToken"]
    headers = {"Authorization": f"Bearer {token}"}
    return headers, [b["name"] for b in httpx.get(f"{tenant.url}/api/branches", headers=headers).json()["data"]]


def test_one(wfctl_tenant):
    headers, names = _branches(wfctl_tenant)
    assert names == ["North", "South"]
    assert httpx.post(f"{wfctl_tenant.url}/api/branches", json={"name": "Only Mine"}, headers=headers).status_code == 201


def test_two(wfctl_tenant, wfctl_sandbox):
    headers, names = _branches(wfctl_tenant)
    assert names == ["North", "South"]          # test_one's branch is another tenant's
    assert [r["path"] for r in wfctl_tenant.journal()] == ["/api/branches"]
    wfctl_sandbox.control.change(faults={"unavailable": True})
    try:
        assert httpx.get(f"{wfctl_tenant.url}/api/branches", headers=headers).status_code == 503
    finally:
        wfctl_sandbox.control.restore()


def test_three(wfctl_tenant, wfctl_sandbox):
    headers, _ = _branches(wfctl_tenant)
    other, _ = _branches(wfctl_sandbox.tenant())
    wfctl_tenant.play(quirks=["errors=text"], faults={"unavailable": True})
    down = httpx.get(f"{wfctl_tenant.url}/api/branches", headers=headers)
    assert down.status_code == 503 and down.headers["content-type"].startswith("text/plain")
    assert httpx.get(f"{wfctl_tenant.url}/api/branches", headers=other).status_code == 200   # another tenant
    wfctl_tenant.play()
    wfctl_tenant.advance(16 * 60)
    assert httpx.get(f"{wfctl_tenant.url}/api/branches", headers=headers).status_code == 401  # its clock alone
    assert httpx.get(f"{wfctl_tenant.url}/api/branches", headers=other).status_code == 200
'''


def test_a_tenant_per_test_on_one_sandbox(tmp_path: Path) -> None:
    (tmp_path / "test_integration.py").write_text(TESTS)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                             str(tmp_path / "test_integration.py")], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT),
                                              "WFCTL_SANDBOX_TEST_SCRYPT_N": "1024"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout
