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
