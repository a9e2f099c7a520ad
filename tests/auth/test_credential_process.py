"""Issue 47: a profile's `credential_process`, a command that prints the access token, asked when needed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fixtures.sandbox import ADMIN, login_token

VAULT = """
import json, sys
from pathlib import Path
here = Path(sys.argv[1])
(here / "calls").write_text(str(int((here / "calls").read_text() or 0) + 1) if (here / "calls").exists() else "1")
print((here / "answer").read_text())
"""


def _vault(tmp_path: Path, answer: str) -> Path:
    """A stand-in for a vault's CLI: prints what the test put in `answer`, counts its calls."""
    home = tmp_path / "vault"
    home.mkdir(exist_ok=True)
    (home / "vault.py").write_text(VAULT)
    (home / "answer").write_text(answer)
    return home


def _configure(cli, url: str, home: Path) -> None:
    r = cli("config", "set", "base_url", url)
    assert r.exit_code == 0, r
    r = cli("config", "set", "credential_process", f"{sys.executable} {home / 'vault.py'} {home}")
    assert r.exit_code == 0, r


def test_the_token_comes_from_the_command_and_is_asked_again_after_it_expires(cli, sandbox_factory, tmp_path):
    server = sandbox_factory()
    token = login_token(server, *ADMIN)["accessToken"]
    home = _vault(tmp_path, json.dumps({"accessToken": token, "expiresIn": 900}))
    _configure(cli, server.url, home)
    assert 'credential_process = [' in cli.config_path.read_text()  # kept as a list of words
    r = cli("agency", "show", "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["name"] == "Northwind Staffing"
    assert cli("auth", "token").stdout.strip() == token
    status = json.loads(cli("auth", "status", "-o", "json").stdout)
    assert status["credentialStore"] == "credential process"
    assert status["credentialStoreLocation"] == sys.executable

    server.clock.advance(15 * 60 + 1)  # the token has expired at the service: a 401, the command asked again
    calls = int((home / "calls").read_text())
    r = cli("agency", "show")
    assert int((home / "calls").read_text()) == calls + 2  # the first try, then once after the 401
    assert r.exit_code == 3, r
    assert r.stderr == (f"error: the service refused the token credential_process '{sys.executable}' printed, "
                        "and it printed the same one again (HTTP 401)\n")
    fresh = login_token(server, *ADMIN)
    (home / "answer").write_text(json.dumps(fresh))  # a login's answer as the service gives it, pair and all
    r = cli("agency", "show", "-o", "json")
    assert r.exit_code == 0, r
    assert int((home / "calls").read_text()) == calls + 3
    assert not (cli.config_dir / "credentials").exists()  # nothing stored


@pytest.mark.parametrize(("answer", "said"), [
    ("s3cret-output, not json", "printed something that is not JSON"),
    ('["s3cret-output"]', "printed JSON that is not an object"),
    ('{"token": "s3cret-output"}', "has no accessToken"),
    ('{"accessToken": "s3cret-output", "expiresAt": "2001-01-01T00:00:00Z"}', "a token that has already expired"),
    ('{"accessToken": "s3cret-output", "expiresAt": "soon"}', "an expiresAt that is not a time"),
    ('{"accessToken": "s3cret\\u0007output"}', "a token (accessToken) that cannot be sent back"),
])
def test_bad_output_is_one_line_that_never_shows_it(cli, sandbox, tmp_path, answer, said):
    _configure(cli, sandbox.url, _vault(tmp_path, answer))
    r = cli("agency", "show")
    assert r.exit_code == 3, r
    assert r.stderr.count("\n") == 1 and said in r.stderr, r.stderr
    assert "s3cret" not in r.stderr and r.stdout == ""
    assert r.stderr.startswith(f"error: credential_process '{sys.executable}'")


def test_a_command_that_fails_or_is_missing(cli, sandbox, tmp_path):
    home = _vault(tmp_path, "")
    (home / "vault.py").write_text("import sys\nprint('s3cret-output')\nsys.exit(5)\n")
    _configure(cli, sandbox.url, home)
    r = cli("agency", "show")
    assert r.exit_code == 3 and "failed (exit status 5)" in r.stderr and "s3cret" not in r.stderr, r
    assert cli("config", "set", "credential_process", "no-such-vault read x").exit_code == 0
    r = cli("agency", "show")
    assert r.exit_code == 3
    assert r.stderr == "error: credential_process: cannot run 'no-such-vault': no such program\n"
