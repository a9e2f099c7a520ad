"""Keyring backends for tests, selected with PYTHON_KEYRING_BACKEND=tests.auth.keyrings.<Name>."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from keyring.backend import KeyringBackend


class FileKeyring(KeyringBackend):
    """A keyring kept in the JSON file named by WFCTL_TEST_KEYRING_FILE (shared by processes).

    Each write replaces the file atomically, so a process reading while another writes sees the old
    or the new document, never half of one (as with a real keyring). Writes are not merged: two
    processes writing at once keep one of the two, which is what wfctl's lock must prevent."""

    priority = 1  # type: ignore[assignment]

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


class HangingKeyring(KeyringBackend):
    """A locked keyring whose unlock prompt nobody answers."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        time.sleep(3600)
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        time.sleep(3600)

    def delete_password(self, service: str, username: str) -> None:
        time.sleep(3600)
