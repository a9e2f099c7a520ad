"""Issue 47: the file store on Windows gets an explicit owner-only ACL, and `auth status` says how each
store is protected.

Windows cannot run here: its ACL API (advapi32's SetNamedSecurityInfoW / GetNamedSecurityInfoW, called by
wfctl.api.session.winacl.WindowsApi through ctypes) is EMULATED by `EmulatedAcls`, which keeps each path's DACL as the
SDDL text Windows would read back (a file never given one shows the ACL inherited from a profile folder).
What runs for real is wfctl's code path behind `sys.platform == "win32"` (wfctl.api.session.winacl.ON_WINDOWS): which
paths get which ACL, in which order, what a refusal does, and what `auth status` reports.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.sandbox import ADMIN

INHERITED = "D:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;FA;;;S-1-5-21-1-2-3-1001)"


class EmulatedAcls:
    def __init__(self, refuse: bool = False) -> None:
        self.dacls: dict[str, str] = {}
        self.calls: list[tuple[str, str]] = []
        self.refuse = refuse

    def set_dacl(self, path: str, sddl: str) -> None:
        self.calls.append((path, sddl))
        if self.refuse:
            raise OSError(5, "Access is denied")
        self.dacls[path] = sddl

    def get_dacl(self, path: str) -> str:
        return self.dacls.get(path, INHERITED)


@pytest.fixture
def windows(monkeypatch):
    from wfctl.api.session import winacl

    acls = EmulatedAcls()
    monkeypatch.setattr(winacl, "ON_WINDOWS", True)
    monkeypatch.setattr(winacl, "_API", acls)
    return acls


def test_the_token_file_and_its_folder_get_an_owner_only_acl(cli, sandbox, windows):
    r = cli.login_as(sandbox.url, *ADMIN)
    assert r.exit_code == 0, r
    folder = cli.config_dir / "credentials"
    token_file = folder / "default.json"
    assert windows.calls[0] == (str(folder), "D:P(A;OICI;FA;;;OW)")  # the folder first: the file inherits it
    assert (str(token_file), "D:P(A;;FA;;;OW)") in windows.calls
    status = json.loads(cli("auth", "status", "-o", "json").stdout)
    assert status["credentialStore"] == "file"
    assert status["credentialStoreProtection"] == "owner-only ACL"
    r = cli("auth", "status")
    assert "Protected by" in r.stdout and "owner-only ACL" in r.stdout


def test_a_file_without_it_is_reported(cli, sandbox, windows):
    assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
    windows.dacls.clear()  # e.g. the file was copied in from elsewhere
    status = json.loads(cli("auth", "status", "-o", "json").stdout)
    assert status["credentialStoreProtection"] == f"ACL {INHERITED}: not owner-only"


def test_a_folder_whose_acl_cannot_be_set_keeps_no_tokens(cli, sandbox, windows):
    windows.refuse = True
    r = cli.login_as(sandbox.url, *ADMIN)
    assert r.exit_code == 3, r
    assert r.stderr.count("\n") == 1 and "readable by you only (Access is denied)" in r.stderr
    assert not (cli.config_dir / "credentials" / "default.json").exists()


def test_status_says_how_each_store_protects_the_tokens(cli, sandbox, tmp_path):
    """Off Windows: the file's real mode; a keyring: as its platform protects it."""
    assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
    assert json.loads(cli("auth", "status", "-o", "json").stdout)["credentialStoreProtection"] == "file mode 0600"
    keyring = {"PYTHON_KEYRING_BACKEND": "tests.auth.keyrings.FileKeyring",
               "WFCTL_TEST_KEYRING_FILE": str(tmp_path / "keyring.json")}
    r = cli("login", "--base-url", sandbox.url, "-u", ADMIN[0], "--password-stdin", "--credential-store",
            "keyring", input=ADMIN[1], env=keyring)
    assert r.exit_code == 0, r
    status = json.loads(cli("auth", "status", "-o", "json", env=keyring).stdout)
    assert status["credentialStoreProtection"] == "as the keyring backend keeps its secrets"  # a plugin's
    # the desktops' own: the real Secret Service in tests/auth/test_big_tokens.py
