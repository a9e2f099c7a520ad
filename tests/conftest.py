"""Shared test set-up. Fixtures live in tests/fixtures/*.py, one module per area:

- tests/fixtures/sandbox.py: real sandbox servers on real sockets (`sandbox`, `sandbox_factory`)
- tests/fixtures/cli.py:     running wfctl in-process and as a subprocess, isolated config (`cli`, `logged_in`)

`python3 dev.py test` runs the suite in two passes: every test not marked `serial` on two workers a core
(pytest-xdist, `--dist loadfile`: each file's tests in one worker, so a module's or package's sandbox starts
once or twice, not once per test; most tests wait on subprocesses, terminals and servers, so one worker a
core would leave the cores half idle), then the `serial` ones alone. Mark `serial` (here in
SERIAL, or `@pytest.mark.serial` on the test) what another process's load can break: a timing bound, a
screen redrawn on a clock, a rate-limit burst or a throttle window, a token TTL of seconds, a benchmark;
mark the test, not its whole file, when the file's other tests are not timed. Session fixtures exist once
per worker: servers bind port 0, temporary directories are the worker's own, every CLI run has its own
config, HOME and keyring (tests/fixtures/cli.py). The workers take the slowest files first (SLOW_FIRST):
add a file there when it takes more than about 20 s.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter

import pytest

pytest_plugins = ["tests.fixtures.sandbox", "tests.fixtures.cli"]

#: Test sandboxes hash passwords at scrypt n=2^10 instead of 2^14 (about 4 ms instead of 50 ms a hash; each
#: seed hashes every login, each login verifies one): wfctl/sandbox/auth.py. Kept in the isolated
#: environments of tests/fixtures/cli.py and tests/newcomer/helpers.py, so servers started by `wfctl sandbox
#: serve` in a test use it too. tests/sandbox/test_password_cost.py checks the production cost.
TEST_SCRYPT_N = ("WFCTL_SANDBOX_TEST_SCRYPT_N", "1024")
os.environ.setdefault(*TEST_SCRYPT_N)


#: The tests that run in the serial pass (see the module's docstring): a file, a directory, or one test (all of
#: its parameters). Only what another process's load can break belongs here; a pexpect run that waits for a
#: text (a prompt, the end) with a generous timeout is not timing-sensitive (tests/newcomer/test_examples.py
#: runs hundreds of them in the parallel pass), a progress line redrawn on a clock is.
SERIAL = (
    "tests/newcomer/test_startup_bench.py",     # a benchmark
    "tests/newcomer/test_completion.py::test_completion_answers_quickly",  # a Tab press within 2 s
    "tests/messages/test_progress.py",          # progress redrawn on a clock, read in a pty
    "tests/sandbox/test_throttle.py::test_the_lock_ends_when_the_failures_leave_the_window",  # 25-30 s left
    "tests/pages/test_reader.py::test_pages_after_the_first_go_several_at_a_time",  # within 1.2 s
    "tests/pages/test_reader.py::test_a_rate_limit_during_parallel_reads_pauses_them_all",  # 10 a second
    "tests/pages/test_reader.py::test_import_plan_reads_many_parents_at_once",  # within 2.5 s
    "tests/bulk/test_faults.py::test_sigkill_three_times_then_resume",  # kills timed
    "tests/bulk/test_faults.py::test_rate_limited_service_every_row_created",  # 40 a second
    "tests/bulk/test_runs_faults.py::test_killed_on_existing_fail_run_resumes",  # a kill while rows are sent
    "tests/bulk/test_runs_faults.py::test_ctrl_c_says_how_far_writes_the_report_and_resumes",  # a Ctrl-C timed
    "tests/bulk/test_runs_faults.py::test_unreachable_service_stops_with_the_count_done",  # stops within 20 s
    "tests/bulk/test_runs_faults.py::test_second_run_of_the_same_import_is_refused",  # while a 3 s run runs
    "tests/bulk/test_runs_faults.py::test_ctrl_c_while_the_last_rows_are_in_flight",  # a Ctrl-C timed
    "tests/bulk/test_csvformat.py::test_rates_no_rule_accepts_fail_at_once",  # within 50 ms
    "tests/bulk/test_csvformat.py::test_write_model_refuses_absurd_rates_at_once",  # within 50 ms
    "tests/bulk/test_csvformat.py::test_hostile_rate_in_a_file_and_on_the_command_line",  # within 5 s
    "tests/auth/test_parallel_refresh.py",      # 2 s token TTL across 8 processes
    "tests/auth/test_expiry.py",                # token TTLs of seconds
    "tests/auth/test_security.py::test_canaries_never_leak",  # a 2 s token TTL
    "tests/auth/test_security.py::test_plain_http_to_a_remote_host_is_refused_before_sending",  # within 3 s
    "tests/auth/test_keyring.py::test_locked_keyring_does_not_hang",  # a keyring timeout of 0.5 s, within 5 s
    "tests/auth/test_keyring.py::test_real_secret_service_login_and_logout",  # a D-Bus session and keyring daemon
    "tests/resources/test_completion_cache.py::test_fetch_is_time_boxed",  # within 1 s
    "tests/bulk/test_ride_out.py",              # outages of seconds, a note drawn on a clock in a pty
    "tests/auth/test_refresh_outage.py",        # outages of seconds, a 2 s budget
)

#: The files of the parallel pass that take longest (their seconds, measured with 2 and 4 workers on a busy
#: 2-core machine), started first: with `--dist loadfile` a file is one unit of work, and a 100-second file
#: handed out last would run alone at the end (xdist's own order, most tests first, hands these few-test files
#: out last). Their order here is the order the workers take them in; every other file follows, the most tests
#: first. A worker whose file has two tests or fewer left takes the next file at once, queued behind them: a
#: one-test file of minutes (quickstart, lowest deps) is followed by a file that can wait. What mostly waits
#: (a certification, a paced import) runs at once within its file, so no file sleeps for minutes.
SLOW_FIRST = (
    "tests/newcomer/test_quickstart.py",        # a fresh clone, its venv, the README's two commands (90-205)
    "tests/newcomer/test_examples.py",          # every example of the docs, each in a pty (140-185)
    "tests/certify/test_certify_clients.py",    # the SDK's and the CLI's certifications, at once (120; 60 wfctl runs)
    "tests/newcomer/test_lowest_deps.py",       # a venv of the lowest allowed versions, a pytest in it (45-100)
    "tests/newcomer/test_completion.py",        # 76 completions in real shells (50-55), behind the quickstart
    "tests/rates/test_kill.py",                 # 2,000 sites imported, changed, killed, resumed, undone (40-95)
    "tests/certify/test_certify_rules.py",      # 10 broken rules, 15 scenarios each, at once (80 at a load of 15)
    "tests/certify/test_certify_rules_more.py", # 10 more, at once (80)
    "tests/hostile/test_odd_heads.py",          # three imports paced for a minute, at once (72)
    "tests/certify/test_certify_reports.py",    # 8 certifications at once, reports twice (60-90)
    "tests/sandbox/test_staging.py",            # PostgreSQL, worker processes (35-40)
    "tests/sandbox/test_quirks.py",             # (28-30)
    "tests/helptext/test_tour.py",              # the tour, twice (16-30)
    "tests/spreadsheet/test_round_trip.py",     # LibreOffice (14-21)
    "tests/sandbox/test_schema.py",             # schemathesis on both backends (19-20)
)


def _in(nodeid: str, prefixes: tuple[str, ...]) -> bool:
    """Whether the test `nodeid` is one of `prefixes`: a directory ("tests/terminal/"), a file, or a test."""
    for prefix in prefixes:
        if prefix.endswith("/"):
            found = nodeid.startswith(prefix)
        else:
            found = nodeid == prefix or nodeid.startswith((prefix + "::", prefix + "["))
        if found:
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    # Keep the order pytest_collection_modifyitems gives (SLOW_FIRST) when xdist hands out whole files.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _in(item.nodeid, SERIAL):
            item.add_marker(pytest.mark.serial)
    _name_serial_files(items)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker of the parallel pass: the slow files first
        count = Counter(_file(item) for item in items)
        rank = {name: i for i, name in enumerate(SLOW_FIRST)}
        items.sort(key=lambda item: (rank.get(_file(item), len(SLOW_FIRST)), -count[_file(item)], _file(item)))


def _name_serial_files(items: list[pytest.Item]) -> None:
    """Write the files that hold a `serial` test to WFCTL_SERIAL_FILES, one a line (from one process: the
    first worker, or pytest alone), for dev.py's serial pass to collect those files only."""
    path = os.environ.get("WFCTL_SERIAL_FILES")
    if not path or os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0":
        return
    files = sorted({_file(item) for item in items if item.get_closest_marker("serial")})
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".part", "w", encoding="utf-8") as out:
        out.write("".join(f"{name}\n" for name in files))
    os.replace(path + ".part", path)


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


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
