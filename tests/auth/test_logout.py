"""`wfctl logout` revokes the login on the service (G22), then removes the local pair (issue 45): a copy of
the credentials file taken before the logout no longer works. A deployment without the extension, or one that
cannot be reached, is said in one warning line; the local pair goes either way."""

from __future__ import annotations

import shutil
import socket

from tests.fixtures.sandbox import ADMIN


def _token_file(cli):
    return cli.config_dir / "credentials" / "default.json"


def test_logout_revokes_the_login_so_a_copied_credentials_file_stops_working(logged_in, tmp_path):
    copy = tmp_path / "stolen.json"
    shutil.copy(_token_file(logged_in), copy)
    r = logged_in("logout", tty=True)
    assert r.exit_code == 0, r
    assert r.stderr == (f"Logged out of profile 'default'; the service revoked its tokens and they are removed from "
                        f"file {_token_file(logged_in)} (mode 0600).\n")
    assert not _token_file(logged_in).exists()
    shutil.copy(copy, _token_file(logged_in))  # the copy, put back: its access token and its refresh are refused
    r = logged_in("agency", "show")
    assert r.exit_code == 3, r
    assert r.stderr.startswith("error: ") and "log in again" in r.stderr and r.stderr.count("\n") == 1


def test_logout_in_a_pipe_says_nothing(logged_in):
    r = logged_in("logout")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")
    assert not _token_file(logged_in).exists()


def test_a_deployment_without_logout_is_said_and_the_pair_removed(cli, sandbox_factory, tmp_path):
    server = sandbox_factory(quirks=["no-logout"])
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    copy = tmp_path / "copy.json"
    shutil.copy(_token_file(cli), copy)
    r = cli("logout")
    assert r.exit_code == 0, r
    assert r.stderr == (f"warning: {server.url} does not offer logout (HTTP 404): the tokens stay valid on the "
                        "service until they expire\n")
    assert not _token_file(cli).exists()
    shutil.copy(copy, _token_file(cli))
    assert cli("agency", "show", "-o", "json").exit_code == 0  # as the warning said


def test_a_service_that_cannot_be_reached_is_said_and_the_pair_removed(cli, sandbox_factory):
    server = sandbox_factory()
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    server.stop()
    with socket.socket() as probe:  # the port is closed now: a refused connection, at once
        assert probe.connect_ex(("127.0.0.1", int(server.url.rsplit(":", 1)[1]))) != 0
    r = cli("logout", env={"WFCTL_OUTAGE_SECONDS": "1"})
    assert r.exit_code == 0, r
    assert r.stderr.startswith("warning: the service did not revoke the login (")
    assert r.stderr.endswith("): the tokens stay valid on the service until they expire\n")
    assert r.stderr.count("\n") == 1
    assert not _token_file(cli).exists()
