"""Keyring backends for tests, selected with PYTHON_KEYRING_BACKEND=tests.auth.keyrings.<Name>.

Only when selected: keyring offers every imported KeyringBackend subclass whose `priority` does not raise to
its auto-detection (and to its chainer), once per process. With a plain `priority = 1`, every later run in
the test process that auto-detects its keyring (e.g. `doctor` with no D-Bus session) chained through
HangingKeyring and waited out wfctl's keyring timeout."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.compat import properties


class _OnlyWhenSelected(KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:
        if os.environ.get("PYTHON_KEYRING_BACKEND") != f"{cls.__module__}.{cls.__name__}":
            raise RuntimeError(f"{cls.__name__} is a test keyring: used only when PYTHON_KEYRING_BACKEND names it")
        return 1


class FileKeyring(_OnlyWhenSelected):
    """A keyring kept in the JSON file named by WFCTL_TEST_KEYRING_FILE (shared by processes).

    Each write replaces the file atomically, so a process reading while another writes sees the old
    or the new document, never half of one (as with a real keyring). Writes are not merged: two
    processes writing at once keep one of the two, which is what wfctl's lock must prevent."""

    def _path(self) -> Path:
        return Path(os.environ["WFCTL_TEST_KEYRING_FILE"])

    def _load(self) -> dict[str, str]:
        try:
            return json.loads(self._path().read_text())  # type: ignore[no-any-return]
        except FileNotFoundError:
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def _save(self, data: dict[str, str]) -> None:
        path = self._path()
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        import keyring.errors

        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self._save(data)


class HangingKeyring(_OnlyWhenSelected):
    """A locked keyring whose unlock prompt nobody answers."""

    def get_password(self, service: str, username: str) -> str | None:
        time.sleep(3600)
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        time.sleep(3600)

    def delete_password(self, service: str, username: str) -> None:
        time.sleep(3600)


class CredWriteError(Exception):
    """What pywintypes.error says when CredWrite refuses a blob over CRED_MAX_CREDENTIAL_BLOB_SIZE."""


class WindowsLimitKeyring(FileKeyring):
    """Emulates Windows Credential Manager, which cannot run here: an entry's blob holds at most 2,560 bytes
    of UTF-16 (CRED_MAX_CREDENTIAL_BLOB_SIZE), and a longer one is refused with CredWrite's own words
    (error 1783, "The stub received bad data."), which wfctl must never show.

    WFCTL_TEST_KEYRING_DIE_AT_WRITE=<n>: the process dies (os._exit) at its n-th write, before it is made:
    a crash between two entries of a split value."""

    LIMIT_BYTES = 2560

    def set_password(self, service: str, username: str, password: str) -> None:
        if len(password.encode("utf-16-le")) > self.LIMIT_BYTES:
            raise CredWriteError(1783, "CredWrite", "The stub received bad data.")
        _count_write_and_maybe_die()
        super().set_password(service, username, password)


class DesktopKeyring(FileKeyring):
    """Emulates the macOS Keychain and the Secret Service (gnome-keyring, KWallet) as a value's size meets
    them, for the platforms that cannot run here (macOS) or as a second check beside the real one: an item
    is bytes (the value's UTF-8), replaced whole by a write, with no per-item limit a token pair comes near
    (a Keychain item or a Secret Service secret holds megabytes); a missing item is None to read and an
    error to delete. WFCTL_TEST_KEYRING_DIE_AT_WRITE as for WindowsLimitKeyring."""

    def get_password(self, service: str, username: str) -> str | None:
        stored = super().get_password(service, username)
        return None if stored is None else bytes.fromhex(stored).decode("utf-8")

    def set_password(self, service: str, username: str, password: str) -> None:
        _count_write_and_maybe_die()
        super().set_password(service, username, password.encode("utf-8").hex())


class TinyKeyring(FileKeyring):
    """A backend wfctl knows no limit of that refuses any entry over 200 characters, with words of its own."""

    def set_password(self, service: str, username: str, password: str) -> None:
        if len(password) > 200:
            raise RuntimeError("backend-secret-words: item too large")
        super().set_password(service, username, password)


def secret_service_run(script: str, *, env: dict[str, str], stdin: str, cwd: Path) -> dict[str, str]:
    """Run `script` (sh) in a private D-Bus session with gnome-keyring unlocked; its stdout's lines
    `KEY value` as a dict. Skips (or fails under WFCTL_REQUIRE_REAL_COMPONENTS=1) without the components."""
    import subprocess

    from tests.conftest import require_component

    for component in ("gnome-keyring-daemon", "dbus-run-session", "secret-tool"):
        require_component(component)
    unlock = "set -e\necho -n keyring-pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null\n"
    proc = subprocess.run(["dbus-run-session", "--", "sh", "-c", unlock + script], input=stdin, text=True,
                          capture_output=True, env=env, timeout=120, cwd=str(cwd))
    assert proc.returncode == 0, proc.stderr
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] if " " in line else ""
            for line in proc.stdout.splitlines()}


_writes = 0


def _count_write_and_maybe_die() -> None:
    global _writes
    _writes += 1
    if str(_writes) == os.environ.get("WFCTL_TEST_KEYRING_DIE_AT_WRITE"):
        os._exit(137)
