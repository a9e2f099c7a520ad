"""Shared test set-up. Fixtures live in tests/fixtures/*.py, one module per area:

- tests/fixtures/sandbox.py: real sandbox servers on real sockets (`sandbox`, `sandbox_factory`)
- tests/fixtures/cli.py:     running wfctl in-process and as a subprocess, isolated config (`cli`, `logged_in`)

`python3 dev.py test` runs the suite in two passes: every test not marked `serial` on all cores at once
(pytest-xdist, `-n auto --dist loadfile`: each file's tests in one worker, so a module's or package's
sandbox starts once or twice, not once per test), then the `serial` ones alone. Mark `serial` (here in
SERIAL, or `@pytest.mark.serial` on the test) what another process's load can break: a timing bound, a
pseudo-terminal read with pexpect, a rate-limit burst or a throttle window, a token TTL of seconds, a
benchmark. Session fixtures exist once per worker: servers bind port 0, temporary directories are the
worker's own, every CLI run has its own config, HOME and keyring (tests/fixtures/cli.py).
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


#: Node-id prefixes of the tests that run in the serial pass (see the module's docstring).
SERIAL = (
    "tests/newcomer/test_startup_bench.py",     # a benchmark
    "tests/newcomer/test_completion.py",        # a Tab press timed, pexpect
    "tests/newcomer/test_first_minute.py",      # pexpect
    "tests/terminal/",                          # pexpect
    "tests/messages/test_progress.py",          # pexpect, progress redrawn on a clock
    "tests/messages/test_prompts.py",           # pexpect
    "tests/auth/test_prompt.py",                # pexpect
    "tests/hostile/test_plain_text.py",         # pexpect
    "tests/sandbox/test_accounts.py",           # pexpect
    "tests/sandbox/test_limits.py",             # rate-limit bursts within a second
    "tests/sandbox/test_throttle.py",           # throttle windows
    "tests/pages/test_reader.py",               # parallel reads timed, a rate limit
    "tests/bulk/test_faults.py",                # a rate-limited service, kills timed
    "tests/bulk/test_runs_faults.py",           # how long a stop takes
    "tests/bulk/test_csvformat.py",             # "fails at once": 50 ms bounds
    "tests/auth/test_parallel_refresh.py",      # 2 s token TTL across 8 processes
    "tests/auth/test_expiry.py",                # token TTLs of seconds
    "tests/auth/test_security.py",              # a refusal within 3 s
    "tests/auth/test_keyring.py",               # a keyring timeout of 0.5 s, within 5 s
    "tests/resources/test_completion_cache.py", # within 1 s
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SERIAL):
            item.add_marker(pytest.mark.serial)


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
