"""wfctl doctor against the sandbox: one line per check, exit 0 when nothing failed, JSON on request."""

from __future__ import annotations

import json
import os
import time
from email.utils import formatdate

import pytest

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


# -- what the audit found (issue 12) ------------------------------------------------------------------


def test_doctor_fails_a_token_file_others_can_read_and_status_says_its_real_mode(logged_in) -> None:
    token_file = logged_in.config_dir / "credentials" / "default.json"
    status = json.loads(logged_in("auth", "status", "-o", "json").stdout)
    # issue 36: the location is the path (it read `file <path> (mode 0600)`); the mode a field of its own
    assert (status["credentialStoreLocation"], status["credentialStoreMode"]) == (str(token_file), "0600")
    assert isinstance(status["accessTokenExpiresIn"], int) and 0 < status["accessTokenExpiresIn"] <= 900
    assert "warnings" not in status
    os.chmod(token_file, 0o644)
    result = logged_in("doctor", "-o", "json")
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert result.exit_code == 1
    assert checks["token"]["status"] == FAIL and "0644" in checks["token"]["detail"]
    assert f"chmod 600 {token_file}" in checks["token"]["fix"]
    status_run = logged_in("auth", "status", "-o", "json")
    assert status_run.exit_code == 0, status_run
    status = json.loads(status_run.stdout)
    assert (status["credentialStoreLocation"], status["credentialStoreMode"]) == (str(token_file), "0644")
    assert status["warnings"] and "warning: token file" in status_run.stderr
    table = logged_in("auth", "status")
    assert f"Stored in:            {token_file} (mode 0644: readable by others, not 0600)\n" in table.stdout
    assert "chmod 600" in table.stderr


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy"])
@pytest.mark.parametrize("value", ["user:s3cret-pw@proxy.example:3128", "http://user:s3cret-pw@proxy.example:3128",
                                   "socks5://s3cret-pw@proxy.example:1080", "http://us:s3cret-pw/x@proxy.example:8",
                                   "s3cret-pw@proxy.example"])
def test_doctor_masks_proxy_credentials_in_every_form(cli, variable, value) -> None:
    env = {variable: value, "NO_PROXY": "127.0.0.1,localhost"}
    for args in (("doctor", "--timeout", "1"), ("doctor", "--timeout", "1", "-o", "json")):
        result = cli("--base-url", "http://127.0.0.1:9", *args, env=env)
        assert "s3cret" not in result.stdout + result.stderr, result
        assert "proxy.example" in result.stdout, result
        assert "***@proxy.example" in result.stdout


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("LOCALHOST", True), ("127.0.0.1", True), ("127.8.9.10", True), ("[::1]", True),
    ("wams.localhost", False), ("localhost.evil.example", False), ("evil.example", False), ("10.0.0.1", False),
])
def test_doctor_and_the_http_guard_agree_on_loopback(tmp_path, host, loopback) -> None:
    """G19: only `localhost` and literal loopback addresses get a token over plain http."""
    from wfctl.api.client import Client
    from wfctl.commands.doctor import _check_base_url
    from wfctl.config import Settings

    url = f"http://{host}:8765"
    guard_allows = not Client(url)._insecure
    doctor = _check_base_url(Settings(profile="default", config_path=tmp_path / "c.toml", base_url=url))
    assert guard_allows is loopback
    assert (doctor.status == PASS) is loopback, doctor


def test_doctor_json_is_compact_in_a_pipe_and_jsonl_is_a_line_a_check(logged_in) -> None:
    """Issue 36: `doctor -o json` was indented in a pipe, unlike every other command's JSON."""
    text = logged_in("doctor", "-o", "json").stdout
    assert text.count("\n") == 1 and text.startswith('[{"check":"config file","status":"pass"'), text
    lines = logged_in("doctor", "-o", "jsonl").stdout.splitlines()
    assert [json.loads(line)["check"] for line in lines] == [c["check"] for c in json.loads(text)]
