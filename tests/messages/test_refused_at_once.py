"""Issue 49: a refused connection on a command's first request is said at once, with the cause and
`wfctl doctor`, in a pipe too (it waited out the outage's 60 s, silent in a pipe); gh, curl and kubectl
fail at once. Once the command has been answered, a refusal is a restart, ridden out as before
(tests/bulk/test_ride_out.py, tests/bulk/test_one_retry_policy.py)."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.fixtures.sandbox import ADMIN


def _logged_in_then_stopped(cli: Any, sandbox_factory: Any) -> str:
    """A profile logged in to a sandbox that has stopped since: nothing listens at its URL now."""
    server = sandbox_factory()
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    server.stop()
    return str(server.url)


def test_a_stopped_service_is_said_at_once_with_the_way_on(cli: Any, sandbox_factory: Any) -> None:
    url = _logged_in_then_stopped(cli, sandbox_factory)
    started = time.monotonic()
    r = cli("sites", "list", "--client", "Pennine Foods Ltd")
    took = time.monotonic() - started
    assert r.exit_code == 7, r
    assert r.stdout == ""
    assert r.stderr == (f"error: cannot reach {url}: ConnectError: [Errno 111] Connection refused; is the "
                        "service running there? `wfctl doctor` checks the profile's setup\n"), r
    assert took < 2, took


def test_in_a_pipe_too_and_as_json(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    started = time.monotonic()
    assert cli.subprocess("branches", "list", "-o", "json").exit_code == 0
    baseline = time.monotonic() - started  # the same command answered, on this machine now
    server.stop()
    started = time.monotonic()
    r = cli.subprocess("branches", "list", "-o", "json")
    took = time.monotonic() - started
    assert r.exit_code == 7, r
    error = json.loads(r.stderr)["error"]
    assert error["code"] == "network" and error["title"] == f"cannot reach {server.url}"
    assert error["detail"].endswith("`wfctl doctor` checks the profile's setup"), error
    assert took < baseline + 2, (took, baseline)


def test_every_verb_fails_at_once_a_write_too(cli: Any, sandbox_factory: Any) -> None:
    url = _logged_in_then_stopped(cli, sandbox_factory)
    started = time.monotonic()
    r = cli("branches", "create", "--name", "Never Sent", "--address", "1 Road")
    assert time.monotonic() - started < 2
    assert r.exit_code == 7, r
    assert r.stderr.startswith(f"error: cannot reach {url}: ")
    assert r.stderr.endswith("`wfctl doctor` checks the profile's setup\n"), r
