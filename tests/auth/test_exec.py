"""Issue 47: `wfctl exec -- CMD`, a program run with the service URL and a token renewed while it runs.

Real wfctl processes (signals, pipes, `ps`) against a sandbox on a real socket."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN


def _exec(cli, *args: str, **popen: object) -> subprocess.Popen[str]:
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT))
    return subprocess.Popen([sys.executable, "-m", "wfctl", "exec", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(cli.tmp_path), **popen)


def _logged_in(cli, server) -> None:
    assert cli.login_as(server.url, *ADMIN).exit_code == 0


#: A long script: wfctl and an SDK script, one after another, for `seconds`; each failure counted.
LONG_SCRIPT = """
import os, subprocess, sys, time
from wfctl.api import Client
failures = calls = 0
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    r = subprocess.run([sys.executable, "-m", "wfctl", "agency", "show", "-o", "json"], capture_output=True)
    calls += 1
    failures += r.returncode != 0
    if r.returncode:
        print(r.stderr.decode(), file=sys.stderr)
    with Client.from_environment() as client:
        for _ in range(5):
            client.get_agency()
            calls += 1
            time.sleep(0.4)
print(f"calls={calls} failures={failures}")
"""


def test_a_long_script_gets_no_authentication_failure(cli, sandbox_factory, tmp_path):
    """Access tokens last 2 s; the script runs 8 s (4 lifetimes), calling wfctl and the SDK: 0 failures,
    0 reuses."""
    server = sandbox_factory(access_ttl=2)
    _logged_in(cli, server)
    script = tmp_path / "long.py"
    script.write_text(LONG_SCRIPT)
    proc = _exec(cli, "--", sys.executable, str(script), "8")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    calls, failures = (int(part.split("=")[1]) for part in out.split())
    assert failures == 0 and calls >= 12, (out, err)
    assert server.reuse_detections() == 0


def test_the_service_clock_moved_past_the_token_is_a_refresh_not_a_failure(cli, sandbox_factory, tmp_path):
    """Two hours of the service's time pass while the program runs: each call after a jump gets a 401, the
    helper refreshes, the call is sent again."""
    server = sandbox_factory()
    _logged_in(cli, server)
    marker = tmp_path / "go"
    script = tmp_path / "jumps.py"
    script.write_text(f"""
import os, subprocess, sys, time
from pathlib import Path
from wfctl.api import Client
marker = Path({str(marker)!r})
for n in range(1, 9):
    while not marker.exists() or marker.read_text() != str(n):
        time.sleep(0.05)
    with Client.from_environment() as client:
        client.get_agency()
    r = subprocess.run([sys.executable, "-m", "wfctl", "agency", "show"], capture_output=True)
    assert r.returncode == 0, r.stderr
    print("ok", n, flush=True)
""")
    proc = _exec(cli, "--no-masking", "--", sys.executable, str(script))
    assert proc.stdout is not None
    for n in range(1, 9):  # 8 x 15 min: two hours
        server.clock.advance(15 * 60 + 1)
        marker.write_text(str(n))
        assert proc.stdout.readline() == f"ok {n}\n", proc.stderr.read() if proc.poll() is not None else ""
    assert proc.wait(timeout=60) == 0
    assert server.reuse_detections() == 0


def test_the_environment_the_exit_status_and_masking(cli, sandbox, tmp_path):
    _logged_in(cli, sandbox)
    show = ('echo "url=$WFCTL_BASE_URL"; echo "token=$WFCTL_ACCESS_TOKEN"; echo "until=$WFCTL_ACCESS_TOKEN_EXPIRES_AT";'
            ' echo "err $WFCTL_ACCESS_TOKEN" >&2; exit 7')
    proc = _exec(cli, "-p", "default", "--", "sh", "-c", show)  # the profile named after exec
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 7
    lines = out.splitlines()
    assert lines[0] == f"url={sandbox.url}"
    assert lines[1] == "token=<concealed by wfctl>"
    assert lines[2].startswith("until=20") and lines[2].endswith("Z")
    assert err == "err <concealed by wfctl>\n"

    proc = _exec(cli, "--no-masking", "--", "sh", "-c", 'printf %s "$WFCTL_ACCESS_TOKEN"')
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.startswith("wsa_")
    token = cli("auth", "token").stdout.strip()
    assert out == token  # the stored login's token, still valid


def test_a_token_the_child_asks_for_later_is_masked_too(cli, sandbox_factory, tmp_path):
    server = sandbox_factory(access_ttl=2)
    _logged_in(cli, server)
    proc = _exec(cli, "--", "sh", "-c", f"sleep 2.2; wfctl_token=$({sys.executable} -m wfctl auth token); "
                 'echo "new=$wfctl_token"; test "$wfctl_token" != "$WFCTL_ACCESS_TOKEN" && echo renewed')
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == "new=<concealed by wfctl>\nrenewed\n"


def test_a_token_split_across_writes_is_still_masked(cli, sandbox):
    _logged_in(cli, sandbox)
    slow = ('t="$WFCTL_ACCESS_TOKEN"; printf "a %s" "$(echo "$t" | cut -c1-10)"; sleep 0.05; '
            'printf "%s b\\n" "$(echo "$t" | cut -c11-)"')
    proc = _exec(cli, "--", "sh", "-c", slow)
    out, _ = proc.communicate(timeout=60)
    assert out == "a <concealed by wfctl> b\n"


def test_sigterm_is_passed_on_and_the_token_is_in_no_command_line(cli, sandbox):
    _logged_in(cli, sandbox)
    child = ("import signal, sys, time\n"
             "signal.signal(signal.SIGTERM, lambda *a: (print('got TERM', flush=True), sys.exit(42)))\n"
             "print('ready', flush=True)\n"
             "time.sleep(60)\n")
    proc = _exec(cli, "--", sys.executable, "-c", child)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    token = cli("auth", "token").stdout.strip()
    listing = subprocess.run(["ps", "-eo", "pid,args", "ww"], capture_output=True, text=True).stdout
    assert "wfctl" in listing and token not in listing
    for pid in [proc.pid, *_children(proc.pid)]:
        assert token.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
    os.kill(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert out == "got TERM\n"
    assert proc.returncode == 42


def test_a_child_killed_by_a_signal_exits_128_plus_it(cli, sandbox):
    _logged_in(cli, sandbox)
    proc = _exec(cli, "--", "sh", "-c", "kill -9 $$")
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + 9


@pytest.mark.parametrize(("program", "said"), [
    ("no-such-program-here", "error: cannot run 'no-such-program-here': no such program\n"),
])
def test_a_program_that_cannot_run_is_one_line(cli, sandbox, program, said):
    _logged_in(cli, sandbox)
    r = cli.subprocess("exec", "--", program)
    assert (r.exit_code, r.stderr, r.stdout) == (2, said, "")


def test_exec_without_a_login_says_so(cli, sandbox):
    r = cli.subprocess("--base-url", sandbox.url, "exec", "--", "true")
    assert r.exit_code == 3
    assert r.stderr.count("\n") == 1 and "not logged in" in r.stderr


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_the_sdk_reads_the_helper(cli, sandbox, tmp_path):
    """Client.from_environment() under exec: a source of the helper, said where it is kept."""
    _logged_in(cli, sandbox)
    script = ("from wfctl.api import Client\n"
              "with Client.from_environment() as c:\n"
              "    print(c.get_agency()['name'])\n"
              "    print(c.tokens.location())\n")
    proc = _exec(cli, "--", sys.executable, "-c", script)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.splitlines() == ["Northwind Staffing",
                                "the token helper of the `wfctl exec` that started this program "
                                "(WFCTL_TOKEN_HELPER)"]
    assert json.loads(cli("auth", "status", "-o", "json").stdout)["credentialStore"] == "file"
    proc = _exec(cli, "--", sys.executable, "-m", "wfctl", "auth", "status", "-o", "json")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    status = json.loads(out)
    assert status["credentialStore"] == "wfctl exec" and status["agency"] == "Northwind Staffing"
