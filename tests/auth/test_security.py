"""Canary secrets (access token, refresh token, password) never leave through stdout, stderr, --verbose
logs, exception text, argv or files outside the chosen store."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.cli import Cli

PASSWORD = "sandbox-admin"


def _tokens(cli: Cli) -> set[str]:
    pair = json.loads((cli.config_dir / "credentials" / "default.json").read_text())
    return {pair["access_token"], pair["refresh_token"]}


def _assert_clean(texts: list[str], secrets: set[str]) -> None:
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"secret leaked in: {text[:300]!r}"


def _files_outside_store(cli: Cli) -> list[Path]:
    store = cli.config_dir / "credentials" / "default.json"
    return [p for p in cli.tmp_path.rglob("*") if p.is_file() and p != store]


def test_canaries_never_leak(cli, sandbox_factory):
    server = sandbox_factory(access_ttl=2)
    argv = ["--verbose", "login", "--base-url", server.url, "-u", "admin@northwind.test", "--password-stdin",
            "--credential-store", "file"]
    assert PASSWORD not in " ".join(argv)
    login = cli(*argv, input=PASSWORD)
    assert login.exit_code == 0, login
    assert "> POST " in login.stderr and '"password": "***"' in login.stderr
    secrets = _tokens(cli) | {PASSWORD}
    outputs = [login.stdout, login.stderr]
    time.sleep(2.2)  # expire the access token: the next command refreshes, in the verbose log
    for args in (["-v", "agency", "show"], ["-v", "auth", "status", "-o", "json"],
                 ["-v", "api", "GET", "/api/branches", "--paginate"],
                 ["-v", "api", "GET", "/api/branches/missing-id"],
                 ["-v", "agency", "update", "--work-week-start", "Monday", "-o", "json"],
                 ["-v", "config", "list"], ["-v", "branches", "list", "-o", "json"]):
        r = cli(*args)
        outputs += [r.stdout, r.stderr]
    verbose = "\n".join(outputs)
    assert "> POST " + server.url + "/identity/refresh" in verbose
    assert "> Authorization: ***" in verbose
    assert '"refreshToken": "***"' in verbose
    secrets |= _tokens(cli)  # the rotated pair too
    _assert_clean(outputs, secrets)
    sub = cli.subprocess("-v", "agency", "show")
    assert sub.exit_code == 0
    _assert_clean([sub.stdout, sub.stderr], secrets | _tokens(cli))
    for path in _files_outside_store(cli):
        _assert_clean([path.read_text(errors="replace")], secrets | _tokens(cli))


def test_login_help_has_no_password_option(cli):
    r = cli("login", "--help")
    assert "--password-stdin" in r.stdout
    assert "--password " not in r.stdout and "--password=" not in r.stdout


def test_token_echoed_by_the_service_is_redacted_in_errors(tmp_path):
    from wfctl.api.client import Client
    from wfctl.api.session.auth import StaticTokenAuth
    from wfctl.errors import envelope_for, message_for

    canary = "CANARY-access-token-0123456789"
    body = {"title": "Bad token", "status": 400, "detail": f"token {canary} is malformed",
            "errors": {"accessToken": [canary]}}
    c = Client("https://wams.example.com", auth=StaticTokenAuth(canary, "https://wams.example.com"),
               transport=httpx.MockTransport(lambda r: httpx.Response(400, json=body)))
    with pytest.raises(Exception) as info:
        c.get_agency()
    assert canary not in str(info.value)
    assert canary not in message_for(info.value)
    assert canary not in json.dumps(envelope_for(info.value))
    assert canary not in repr(info.value.args)


def test_verbose_log_redacts_headers_and_bodies():
    from wfctl.api.client import Client
    from wfctl.api.session.auth import StaticTokenAuth

    lines: list[str] = []
    secret = "CANARY-verbose-abcdefghijkl"
    answer = {"accessToken": "CANARY-issued-mnopqrstuvwx", "refreshToken": "CANARY-issued-refresh-yz",
              "name": "visible"}
    c = Client("https://wams.example.com", auth=StaticTokenAuth(secret, "https://wams.example.com"),
               transport=httpx.MockTransport(lambda r: httpx.Response(200, json=answer,
                                                                      headers={"Set-Cookie": "s=CANARY-cookie"})),
               log=lines.append)
    c.request("POST", "/anything", json={"password": "CANARY-pw-123", "user": "visible-user"})
    text = "\n".join(lines)
    assert "visible" in text and "visible-user" in text
    for leaked in (secret, "CANARY-issued-mnopqrstuvwx", "CANARY-issued-refresh-yz", "CANARY-pw-123",
                   "CANARY-cookie"):
        assert leaked not in text


def test_token_pair_repr_hides_tokens():
    from wfctl.api.session.store import TokenPair

    pair = TokenPair("CANARY-a-123456", "CANARY-r-123456", 0, 0, "u", "https://x")
    assert "CANARY" not in repr(pair)


def test_stored_login_is_not_sent_to_another_base_url(cli, sandbox, sandbox_factory):
    other = sandbox_factory()
    assert cli.login_as(sandbox.url, "admin@northwind.test", PASSWORD).exit_code == 0
    r = cli("--base-url", other.url, "agency", "show")
    assert r.exit_code == 3
    assert "stored login of profile 'default' is for" in r.stderr


def test_plain_http_to_a_remote_host_is_refused_before_sending(cli):
    # 192.0.2.1 (TEST-NET-1) would hang if anything were sent; the refusal is immediate.
    started = time.monotonic()
    r = cli("login", "--base-url", "http://192.0.2.1:8080", "-u", "u", "--password-stdin",
            "--credential-store", "file", input="pw")
    assert r.exit_code == 2, r
    assert "plain http://" in r.stderr
    assert time.monotonic() - started < 3
    r = cli("--base-url", "http://192.0.2.1:8080", "agency", "show", env={"WFCTL_ACCESS_TOKEN": "tok-123456"})
    assert r.exit_code == 2 and "plain http://" in r.stderr
