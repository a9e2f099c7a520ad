"""Shared test set-up. Fixtures live in tests/fixtures/*.py, one module per area:

- tests/fixtures/sandbox.py: real sandbox servers on real sockets (`sandbox`, `sandbox_factory`)
- tests/fixtures/cli.py:     running wfctl in-process and as a subprocess, isolated config (`cli`, `logged_in`)
"""

from __future__ import annotations

import os
import shutil

import pytest

pytest_plugins = ["tests.fixtures.sandbox", "tests.fixtures.cli"]

#: Test sandboxes hash passwords at scrypt n=2^10 instead of 2^14 (about 4 ms instead of 50 ms a hash; each
#: seed hashes every login, each login verifies one): wfctl/sandbox/auth.py. Kept in the isolated
#: environments of tests/fixtures/cli.py and tests/newcomer/helpers.py, so servers started by `wfctl sandbox
#: serve` in a test use it too. tests/sandbox/test_password_cost.py checks the production cost.
TEST_SCRYPT_N = ("WFCTL_SANDBOX_TEST_SCRYPT_N", "1024")
os.environ.setdefault(*TEST_SCRYPT_N)


def require_component(name: str, available: bool | None = None) -> None:
    """Skip a test whose real system component (gnome-keyring, zsh, fish, ...) is missing.

    CI sets WFCTL_REQUIRE_REAL_COMPONENTS=1 and installs them, so there a missing one fails the test
    instead of skipping it: a green CI has really exercised them."""
    if available is None:
        available = shutil.which(name) is not None
    if available:
        return
    if os.environ.get("WFCTL_REQUIRE_REAL_COMPONENTS") == "1":
        pytest.fail(f"{name} is required (WFCTL_REQUIRE_REAL_COMPONENTS=1) but not installed")
    pytest.skip(f"{name} is not installed")
