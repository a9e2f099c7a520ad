"""Many wfctl processes sharing one login with a short access TTL: refreshes never reuse a refresh token."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.fixtures.cli import REPO_ROOT

CALLS = 25


@pytest.mark.slow
def test_eight_processes_25_calls_2s_ttl(cli, sandbox_factory):
    """8 `wfctl api ... --paginate` processes, each walking 25 one-record pages (25 authenticated calls)
    over more than one 2-second access TTL (pages are read 8 at a time, so each answer is slow)."""
    fast = sandbox_factory(access_ttl=2)  # the branches are made here, without latency
    assert cli.login_as(fast.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    from wfctl.factory import client_from_profile

    with client_from_profile() as client:
        existing = sum(1 for _ in client.iter_branches())
        for n in range(CALLS - existing):
            client.create_branch({"name": f"parallel-{n}"})
    server = sandbox_factory(access_ttl=2, latency_ms=700, db_path=fast.db_path)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    elapsed = cli.paginate_in_parallel(8, CALLS)
    assert server.reuse_detections() == 0
    assert elapsed > 2, elapsed  # the TTL really ran out along the way, so refreshes raced


def test_cli_processes_refresh_in_parallel(cli, sandbox_factory):
    """The same with the real CLI (fewer calls: each process pays the start-up)."""
    server = sandbox_factory(access_ttl=2)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    time.sleep(2.1)  # the stored access token has expired: every process wants to refresh at once
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    procs = [subprocess.Popen([sys.executable, "-m", "wfctl", "agency", "show", "-o", "json"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=str(cli.tmp_path)) for _ in range(6)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [e for _, e in outs]
    assert server.reuse_detections() == 0
    assert os.path.exists(cli.config_dir / "locks" / "default.lock")
