"""`wfctl login` on a real terminal (a pty): asks for what is missing, the password without echo."""

from __future__ import annotations

import sys

import pytest

from tests.fixtures.cli import REPO_ROOT

pexpect = pytest.importorskip("pexpect")


def test_login_prompts_with_hidden_password(cli, sandbox):
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    child = pexpect.spawn(sys.executable, ["-m", "wfctl", "login", "--credential-store", "file"], env=env,
                          encoding="utf-8", timeout=30, cwd=str(cli.tmp_path))
    child.expect("Service URL: ")
    child.sendline(sandbox.url)
    child.expect("Username: ")
    child.sendline("admin@northwind.test")
    child.expect_exact(f"Password for admin@northwind.test at {sandbox.url}: ")  # as ssh names them (issue 15)
    child.sendline("sandbox-admin")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "sandbox-admin" not in (child.before or "")  # not echoed
    assert "Logged in to" in (child.before or "")
    assert cli("agency", "show", "-o", "json").exit_code == 0
