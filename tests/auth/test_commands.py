"""End-to-end: login, logout, auth status/token, config, agency and `wfctl api` against a real sandbox,
for a terminal and for a pipe."""

from __future__ import annotations

import json
import os
import stat

ADMIN = ("admin@northwind.test", "sandbox-admin")


def test_login_writes_profile_and_private_token_file(cli, sandbox):
    r = cli.login_as(sandbox.url, *ADMIN)
    assert r.exit_code == 0, r
    assert r.stdout == ""
    assert r.stderr == ""  # a pipe: no notes
    config = cli.config_path.read_text()
    assert f'base_url = "{sandbox.url}"' in config
    assert 'credential_store = "file"' in config
    assert stat.S_IMODE(os.stat(cli.config_path).st_mode) == 0o600
    token_file = cli.config_dir / "credentials" / "default.json"
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    assert "sandbox-admin" not in config and "sandbox-admin" not in token_file.read_text()


def test_login_on_a_terminal_says_where_the_tokens_are(cli, sandbox):
    r = cli.login_as(sandbox.url, *ADMIN) if False else cli(
        "login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin", "--credential-store", "file",
        input=ADMIN[1] + "\n", tty=True)
    assert r.exit_code == 0, r
    assert r.stdout == ""
    assert f"Logged in to {sandbox.url} as {ADMIN[0]} (profile 'default'); tokens kept in file " in r.stderr


def test_login_wrong_password_exit_3(cli, sandbox):
    r = cli.login_as(sandbox.url, ADMIN[0], "wrong")
    assert r.exit_code == 3, r
    assert r.stderr == f"error: wrong user name or password for {ADMIN[0]} at {sandbox.url} (HTTP 401)\n"  # issue 15
    assert not (cli.config_dir / "credentials" / "default.json").exists()


def test_login_without_password_in_a_pipe_is_usage_error(cli, sandbox):
    r = cli("login", "--base-url", sandbox.url, "-u", ADMIN[0])
    assert r.exit_code == 2
    assert "--password-stdin" in r.stderr


def test_login_has_no_password_option(cli, sandbox):
    r = cli("login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password", "x")
    assert r.exit_code == 2


def test_auth_status_pipe_and_json(logged_in, sandbox):
    r = logged_in("auth", "status", "-o", "json")
    assert r.exit_code == 0, r
    info = json.loads(r.stdout)
    assert info["profile"] == "default"
    assert info["user"] == ADMIN[0]
    assert info["agency"] == "Northwind Staffing"
    assert info["credentialStore"] == "file"
    assert info["credentialStoreReason"] == "set in the profile (credential_store)"
    assert info["baseUrl"] == sandbox.url
    assert info["accessTokenExpires"].endswith("Z")
    r = logged_in("auth", "status")
    assert r.exit_code == 0, r
    assert "Northwind Staffing" in r.stdout and "file" in r.stdout
    t = logged_in("auth", "status", tty=True)
    assert t.exit_code == 0 and "Northwind Staffing" in t.stdout


def test_auth_token_prints_a_working_token(logged_in, sandbox):
    import httpx

    r = logged_in("auth", "token")
    assert r.exit_code == 0, r
    token = r.stdout.strip()
    assert r.stdout == token + "\n"
    answer = httpx.get(f"{sandbox.url}/api/agency/", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    j = logged_in("auth", "token", "-o", "json")
    assert json.loads(j.stdout)["accessToken"]


def test_logout_then_commands_say_login(logged_in):
    r = logged_in("logout", tty=True)
    assert r.exit_code == 0, r
    token_file = logged_in.config_dir / "credentials" / "default.json"
    assert r.stderr == (f"Logged out of profile 'default'; the service revoked its tokens and they are removed from "
                        f"file {token_file} (mode 0600).\n")
    assert not token_file.exists()  # issue 36: it said "(not written yet)" of the file it had just removed
    r = logged_in("agency", "show")
    assert r.exit_code == 3
    assert r.stderr == "error: not logged in (profile 'default'); run `wfctl login`\n"
    r = logged_in("agency", "show", "-o", "json")
    assert r.exit_code == 3
    assert json.loads(r.stderr)["error"]["detail"].endswith("run `wfctl login`")
    r = logged_in("auth", "status")
    assert r.exit_code == 3


def test_access_token_env_used_as_is(cli, sandbox):
    from tests.fixtures.sandbox import login_token

    token = login_token(sandbox, *ADMIN)["accessToken"]
    r = cli("--base-url", sandbox.url, "agency", "show", "-o", "json", env={"WFCTL_ACCESS_TOKEN": token})
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["name"] == "Northwind Staffing"
    assert not cli.config_dir.exists() or not (cli.config_dir / "credentials").exists()
    bad = cli("--base-url", sandbox.url, "agency", "show", env={"WFCTL_ACCESS_TOKEN": "nope"})
    assert bad.exit_code == 3


def test_agency_show_terminal_and_pipe(logged_in):
    pipe = logged_in("agency", "show")
    assert pipe.exit_code == 0, pipe
    assert "Northwind Staffing" in pipe.stdout and "\x1b[" not in pipe.stdout
    tty = logged_in("agency", "show", tty=True)
    assert tty.exit_code == 0 and "Northwind Staffing" in tty.stdout
    js = logged_in("agency", "show", "-o", "json")
    assert json.loads(js.stdout)["workWeekStart"] in ("Monday", "Sunday")


def test_agency_update_admin_and_dry_run(logged_in, sandbox):
    dry = logged_in("agency", "update", "--holiday-cap-hours", "200", "--dry-run", "-o", "json")
    assert dry.exit_code == 0, dry
    assert json.loads(dry.stdout) == {"dryRun": True, "method": "PUT", "path": "/api/agency/",
                                      "body": {"holidayCapHours": 200.0}}
    r = logged_in("agency", "update", "--phone", "+44 161 496 0001", "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["phone"] == "+44 161 496 0001"
    bad = logged_in("agency", "update", "--work-week-start", "Funday")
    assert bad.exit_code == 2
    assert "weekday" in bad.stderr
    none = logged_in("agency", "update")
    assert none.exit_code == 2


def test_agency_update_names_the_option_of_a_bad_value(logged_in, tmp_path):
    """The one wording of a field problem (as `sites update`): the option given, or the file's field."""
    r = logged_in("agency", "update", "--work-week-start", "Funday")
    assert (r.exit_code, r.stderr) == (2, "error: --work-week-start: 'Funday' is not a weekday (Monday ... "
                                          "Sunday)\n"), r
    (tmp_path / "agency.json").write_text('{"holidayCapHours": -1}', encoding="utf-8")
    r = logged_in("agency", "update", "--from-file", str(tmp_path / "agency.json"))
    assert r.exit_code == 2 and r.stderr.startswith("error: --from-file: holidayCapHours: "), r


def test_agency_update_forbidden_for_manager(cli, sandbox):
    assert cli.login_as(sandbox.url, "manager@northwind.test", "sandbox-manager").exit_code == 0
    r = cli("agency", "update", "--phone", "1")
    assert r.exit_code == 8, r
    assert r.stderr.startswith("error: not allowed for your role")
    assert "HTTP 403" in r.stderr


def test_config_set_get_list_unset(cli):
    assert cli("config", "set", "output", "json").exit_code == 0
    assert cli("config", "set", "base_url", "https://wams.example.com/").exit_code == 0
    r = cli("config", "get", "base_url")
    assert r.stdout == "https://wams.example.com\n"
    env = cli("config", "get", "base_url", env={"WFCTL_BASE_URL": "https://env.example.com"})
    assert env.stdout == "https://env.example.com\n"
    flag = cli("--base-url", "https://flag.example.com", "config", "get", "base_url",
               env={"WFCTL_BASE_URL": "https://env.example.com"})
    assert flag.stdout == "https://flag.example.com\n"
    rows = json.loads(cli("config", "list").stdout)  # output = json from the profile
    by_key = {row["key"]: row for row in rows}
    assert by_key["output"] == {"key": "output", "value": "json", "source": "profile"}
    assert by_key["credential_store"]["source"] == "default"
    env_list = cli("config", "list", env={"WFCTL_BASE_URL": "https://env.example.com", "WFCTL_OUTPUT": "jsonl"})
    from_env = {row["key"]: row for row in map(json.loads, env_list.stdout.splitlines())}  # WFCTL_*: "env"
    assert from_env["base_url"] == {"key": "base_url", "value": "https://env.example.com", "source": "env"}
    assert from_env["output"] == {"key": "output", "value": "jsonl", "source": "env"}
    from_flag = {row["key"]: row for row in json.loads(cli("--base-url", "https://flag.example.com", "-o", "json",
                                                           "config", "list", env={"WFCTL_BASE_URL": "https://e.example.com",
                                                                                  "WFCTL_OUTPUT": "jsonl"}).stdout)}
    assert from_flag["base_url"]["source"] == from_flag["output"]["source"] == "flag"
    table = cli("config", "list", "-o", "table")
    assert "base_url" in table.stdout and "https://wams.example.com" in table.stdout
    assert cli("config", "unset", "output").exit_code == 0
    assert cli("config", "get", "output").stdout == "\n"
    bad = cli("config", "set", "credential_store", "vault")
    assert bad.exit_code == 2 and "keyring, file" in bad.stderr
    unknown = cli("config", "get", "colour")
    assert unknown.exit_code == 2
    assert stat.S_IMODE(os.stat(cli.config_path).st_mode) == 0o600


def test_profiles_are_separate(cli, sandbox):
    assert cli("--profile", "staging", "config", "set", "base_url", "https://staging.example.com").exit_code == 0
    assert cli("config", "get", "base_url").stdout == "\n"
    assert cli("-p", "staging", "config", "get", "base_url").stdout == "https://staging.example.com\n"
    assert cli("config", "get", "base_url", env={"WFCTL_PROFILE": "staging"}).stdout == \
        "https://staging.example.com\n"


def test_broken_config_is_reported_and_never_overwritten(cli, sandbox):
    cli.config_dir.mkdir(parents=True)
    broken = '[profiles.default]\nbase_url = "http://x"\noutput = json\n'
    cli.config_path.write_text(broken)
    r = cli("config", "set", "output", "csv")
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1
    assert str(cli.config_path) in r.stderr and "line 3" in r.stderr
    r = cli.login_as(sandbox.url, *ADMIN)
    assert r.exit_code == 2 and "line 3" in r.stderr
    assert cli.config_path.read_text() == broken


def test_api_get_terminal_and_pipe(logged_in):
    pipe = logged_in("api", "GET", "/api/agency/")
    assert pipe.exit_code == 0, pipe
    assert pipe.stdout.count("\n") == 1  # compact in a pipe
    assert json.loads(pipe.stdout)["name"] == "Northwind Staffing"
    tty = logged_in("api", "GET", "/api/agency/", tty=True)
    assert tty.exit_code == 0 and tty.stdout.count("\n") > 3  # pretty on a terminal
    assert json.loads(tty.stdout) == json.loads(pipe.stdout)


def test_api_paginate_and_fields(logged_in):
    r = logged_in("api", "GET", "/api/branches", "-f", "pageSize=1", "--paginate", "-o", "json")
    assert r.exit_code == 0, r
    rows = json.loads(r.stdout)
    one = json.loads(logged_in("api", "GET", "/api/branches", "-f", "pageSize=100").stdout)
    assert [row["id"] for row in rows] == [row["id"] for row in one["data"]]
    jl = logged_in("api", "GET", "/api/branches", "-f", "pageSize=2", "--paginate", "-o", "jsonl")
    assert len(jl.stdout.splitlines()) == len(rows)


def test_api_post_put_delete_and_errors(logged_in, tmp_path):
    import uuid

    name = f"api-{uuid.uuid4().hex[:8]}"
    r = logged_in("api", "POST", "/api/branches", "-f", f"name={name}", "-f", "phone=0161 496 0000")
    assert r.exit_code == 0, r
    created = json.loads(r.stdout)
    assert created["phone"] == "0161 496 0000"
    body = tmp_path / "b.json"
    body.write_text(json.dumps({"email": "a@b.test"}))
    r = logged_in("api", "PUT", f"/api/branches/{created['id']}", "--input", str(body))
    assert r.exit_code == 0 and json.loads(r.stdout)["email"] == "a@b.test"
    dup = logged_in("api", "POST", "/api/branches", "-f", f"name={name}")
    assert dup.exit_code == 5 and "HTTP 409" in dup.stderr
    bad = logged_in("api", "POST", "/api/branches", "-f", "name=", "-o", "json")
    assert bad.exit_code == 6
    envelope = json.loads(bad.stderr)["error"]
    assert envelope["status"] == 400 and envelope["errors"]
    r = logged_in("api", "DELETE", f"/api/branches/{created['id']}")
    assert r.exit_code == 0 and json.loads(r.stdout)["status"] == "success"
    gone = logged_in("api", "GET", f"/api/branches/{created['id']}")
    assert gone.exit_code == 4 and "HTTP 404" in gone.stderr


def test_api_refuses_foreign_absolute_url(logged_in):
    r = logged_in("api", "GET", "http://127.0.0.2:1/api/agency/")
    assert r.exit_code == 2  # bad usage, refused before anything is sent (since 1cc5712)
    assert "origin" in r.stderr and "127.0.0.2" in r.stderr


def test_subprocess_login_and_show(cli, sandbox):
    r = cli.subprocess("login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin",
                       "--credential-store", "file", input=ADMIN[1])
    assert r.exit_code == 0, r
    r = cli.subprocess("agency", "show", "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["name"] == "Northwind Staffing"


def test_auth_token_header_feeds_curl_without_the_token_in_argv(logged_in, sandbox):
    """The help's curl form works with a real curl (>= 7.55 reads headers from `-H @-`) and keeps the
    token out of every command line."""
    import shutil
    import subprocess
    import sys

    from tests.conftest import require_component
    from tests.fixtures.cli import REPO_ROOT

    require_component("curl")
    for args in (("auth", "--help"), ("auth", "token", "--help")):
        text = logged_in(*args).stdout
        assert "wfctl auth token --header | curl -H @-" in text
        assert "$(wfctl auth token)" not in text
    header = logged_in("auth", "token", "--header")
    assert header.exit_code == 0 and header.stdout.startswith("Authorization: Bearer ")
    assert header.stdout.count("\n") == 1
    env = dict(logged_in.env, PYTHONPATH=str(REPO_ROOT))
    script = f'"$1" -m wfctl auth token --header | {shutil.which("curl")} -sS --fail -H @- "$2/api/agency/"'
    proc = subprocess.run(["sh", "-c", script, "sh", sys.executable, sandbox.url], capture_output=True,
                          text=True, env=env, timeout=60, cwd=str(logged_in.tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["name"] == "Northwind Staffing"
