"""Where a login's token pair is kept: the OS keyring (default) or a 0600 file (chosen explicitly).

Both stores keep one JSON document per login: the two tokens plus non-secret metadata (user,
service origin, expiry, and whether a refresh is in doubt). Each login has exactly one
cross-process lock file, keyed by the same thing as the login itself, taken around a refresh so
that a rotated refresh token is never presented twice (see wfctl.api.session.auth):

- keyring: the entry is `<profile>@<service origin>` under the service `wfctl` (a pair too long for one
  entry of the platform is split over several, written and read as one: wfctl.api.session.keyringsplit), so every config
  that names this profile and this service shares the login; its lock is
  `$XDG_STATE_HOME/wfctl/locks/<profile>@<origin>.lock`, shared the same way. An entry kept under
  the profile name alone (earlier wfctl versions) is still read, and moved to the new entry when the
  pair is next written.
- file: `<config dir>/credentials/<profile>.json` belongs to one config directory; its lock is
  `<config dir>/locks/<profile>.lock`. Profile names map to file names one-to-one
  (wfctl.fsutil.file_name_for).

This module holds what every store is (`TokenStore`), the login's lock and the file store; the keyring's
store is wfctl.api.session.keyringstore. Keyring calls run in a worker thread with a bounded wait: a
locked keyring that would pop up an unlock prompt, or a D-Bus service that never answers, ends in
CredentialStoreError instead of a hang.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from wfctl.api.errors import CredentialStoreError
from wfctl.api.session.tokenpair import (  # noqa: F401 - the pair's home is wfctl.api.session.tokenpair; imported from here too
    DEFAULT_ACCESS_TTL,
    REFRESH_GRACE,
    REFRESH_RESEND_WINDOW,
    TokenPair,
    jwt_claims,
)


class TokenStore(Protocol):
    """Where a login's pair is kept: `describe` in a person's words, `location` as a script reads it,
    `protection` how it is kept from other users (a file's mode or ACL, the keyring's encryption)."""

    kind: str  # "keyring" | "file"

    def load(self) -> TokenPair | None: ...

    def save(self, pair: TokenPair) -> None: ...

    def delete(self) -> bool: ...

    def describe(self) -> str: ...

    def location(self) -> str: ...

    def protection(self) -> str: ...

    def lock(self, timeout: float = 60.0) -> contextlib.AbstractContextManager[None]: ...


class _Locking:
    lock_path: Path

    @contextlib.contextmanager
    def lock(self, timeout: float = 60.0) -> Iterator[None]:
        """The cross-process lock of this login (one lock file per login, 0600 in a 0700 directory)."""
        from filelock import Timeout

        from wfctl.fsutil import private_file_lock

        try:
            with private_file_lock(self.lock_path, timeout=timeout):
                yield
        except Timeout:
            raise CredentialStoreError(
                f"another wfctl process has held the login lock {self.lock_path} for {timeout:.0f} s"
            ) from None


class FileStore(_Locking):
    """Tokens in `<config dir>/credentials/<profile>.json`, mode 0600, written atomically.

    `legacy_path`: where earlier wfctl versions kept this profile's file, when that differs and is safe to
    read (see `legacy_token_file`); read when `path` does not exist, removed when `path` is written."""

    kind = "file"

    def __init__(self, path: Path, lock_path: Path, *, legacy_path: Path | None = None) -> None:
        self.path = path
        self.lock_path = lock_path
        self.legacy_path = legacy_path

    def load(self) -> TokenPair | None:
        pair = self._read(self.path)
        if pair is None and self.legacy_path is not None:
            pair = self._read(self.legacy_path)
        return pair

    def _read(self, path: Path) -> TokenPair | None:
        try:
            text = path.read_text("utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CredentialStoreError(f"cannot read token file {path}: {exc.strerror}") from None
        try:
            return TokenPair.from_json(text)
        except (ValueError, TypeError):
            raise CredentialStoreError(f"token file {path} is damaged; run `wfctl login`") from None

    def save(self, pair: TokenPair) -> None:
        from wfctl.api.session import winacl
        from wfctl.fsutil import private_dir, write_private_file

        private_dir(self.path.parent)
        if sys.platform != "win32":
            with contextlib.suppress(OSError):
                os.chmod(self.path.parent, 0o700)  # wfctl's own directory, whoever made it
        try:  # Windows: an explicit owner-only ACL on the folder (its files inherit it) and the file
            winacl.restrict(str(self.path.parent), folder=True)
        except OSError as exc:
            raise CredentialStoreError(f"cannot make {self.path.parent} readable by you only ({exc.strerror or exc});"
                                       " the tokens were not written") from None
        write_private_file(self.path, pair.to_json().encode("utf-8"))
        with contextlib.suppress(OSError):
            winacl.restrict(str(self.path))  # the folder's ACL already covers it: this makes it explicit
        if self.legacy_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.legacy_path.unlink()

    def delete(self) -> bool:
        removed = False
        for path in (self.path, self.legacy_path):
            if path is None:
                continue
            try:
                path.unlink()
                removed = True
            except FileNotFoundError:
                pass
        return removed

    def mode_problem(self) -> str | None:
        """Why the token file's mode is unsafe ("mode 0644: readable by others, not 0600"), or None."""
        from wfctl.fsutil import mode_problem

        for path in (self.path, self.legacy_path):
            if path is not None and path.exists():
                return mode_problem(path)
        return None

    def protection(self) -> str:
        """How the file is kept from other users: its mode, or on Windows its ACL (wfctl.api.session.winacl)."""
        from wfctl.api.session import winacl
        from wfctl.fsutil import file_mode

        path = Path(self.location())
        acl = winacl.protection(str(path))
        if acl is not None:
            return acl
        mode = file_mode(path)
        return f"file mode {mode:04o}" if mode is not None else "the folder's permissions"

    def location(self) -> str:
        """Where the tokens are kept, as a script reads it: the file's path."""
        path = self.path
        if not path.exists() and self.legacy_path is not None and self.legacy_path.exists():
            path = self.legacy_path
        return str(path)

    def describe(self) -> str:
        """Where the tokens are, with the file's real mode (stat'ed, not assumed)."""
        from wfctl.fsutil import file_mode

        path = self.path
        if not path.exists() and self.legacy_path is not None and self.legacy_path.exists():
            path = self.legacy_path
        if not path.exists():
            return f"file {path} (not written yet)"
        mode = file_mode(path)
        if mode is None:
            return f"file {path}"
        problem = self.mode_problem()
        return f"file {path} ({problem})" if problem else f"file {path} (mode {mode:04o})"
