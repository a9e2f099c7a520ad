"""wfctl doctor against the sandbox: one line per check, exit 0 when nothing failed, JSON on request."""

from __future__ import annotations

import json
import time
from email.utils import formatdate

from wfctl.commands.doctor import FAIL, PASS, WARN, Check, _check_clock, render


def test_doctor_passes_when_logged_in_to_the_sandbox(logged_in, sandbox) -> None:
    result = logged_in("doctor", "-o", "json")
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert result.exit_code == 0, result
    assert set(checks) >= {"config file", "profile", "base URL", "proxy", "TLS", "keyring", "token",
                           "service", "clock"}
    for name in ("config file", "profile", "base URL", "token", "service", "clock"):
        assert checks[name]["status"] == PASS, checks[name]
    assert "file" in checks["keyring"]["detail"]  # the fixture logs in with --credential-store file
    assert sandbox.url in checks["service"]["detail"]


def test_doctor_table_output_says_what_to_do(cli, sandbox) -> None:
    result = cli("--base-url", sandbox.url, "doctor")
    assert result.exit_code == 1, result  # not logged in
    lines = result.stdout.splitlines()
    assert any(line.startswith("[pass] service") for line in lines), result.stdout
    assert any(line.startswith("[fail] token") for line in lines), result.stdout
    assert any("-> " in line and "wfctl login" in line for line in lines), result.stdout
    assert "failed" in lines[-1]


def test_doctor_without_a_base_url_fails_with_the_way_out(cli) -> None:
    result = cli("doctor", "-o", "json")
    assert result.exit_code == 1
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert checks["base URL"]["status"] == FAIL
    assert "--base-url" in checks["base URL"]["fix"]


def test_doctor_reports_an_unreachable_service(cli) -> None:
    result = cli("--base-url", "http://127.0.0.1:9", "doctor", "--timeout", "2", "-o", "json")
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert result.exit_code == 1
    assert checks["service"]["status"] == FAIL and checks["service"]["fix"]


def test_doctor_with_an_access_token_does_not_need_a_login(cli, sandbox) -> None:
    result = cli("--base-url", sandbox.url, "doctor", "-o", "json", env={"WFCTL_ACCESS_TOKEN": "x"})
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert checks["token"]["status"] == PASS and "WFCTL_ACCESS_TOKEN" in checks["token"]["detail"]


def test_clock_skew_thresholds() -> None:
    now = time.time()
    assert _check_clock(formatdate(now, usegmt=True), now, 0.0).status == PASS
    assert _check_clock(formatdate(now - 120, usegmt=True), now, 0.0).status == WARN
    skewed = _check_clock(formatdate(now + 900, usegmt=True), now, 0.0)
    assert skewed.status == FAIL and "behind" in skewed.detail and skewed.fix
    assert _check_clock(None, now, 0.0).status == WARN


def test_render_shows_fixes_only_for_problems() -> None:
    text = render([Check("a", PASS, "fine", "never shown"), Check("b", FAIL, "broken", "do this")])
    assert "never shown" not in text and "-> do this" in text
    assert text.rstrip().endswith("1 failed, 0 warnings")
