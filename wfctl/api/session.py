"""From settings to a ready Client: which token store, which auth, where verbose lines go.

Used by the CLI (`AppContext.client`) and by `Client.from_profile` for Python users.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wfctl.api.errors import CredentialStoreError, NotLoggedIn

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.api.store import FileStore, KeyringStore, TokenPair
    from wfctl.config import Settings

ACCESS_TOKEN_ENV = "WFCTL_ACCESS_TOKEN"
log = logging.getLogger("wfctl.http")


def client_for_settings(settings: Settings, verbose: bool = False, **options: object) -> Client:
    """An authenticated Client for the profile in `settings`. No I/O until the first request.

    `WFCTL_ACCESS_TOKEN` set: that token is used as is, nothing is stored, nothing is refreshed."""
    from wfctl.api.auth import StaticTokenAuth, TokenAuth
    from wfctl.api.client import Client

    base_url = require_base_url(settings)
    token = os.environ.get(ACCESS_TOKEN_ENV)
    auth: StaticTokenAuth | TokenAuth
    if token:
        auth = StaticTokenAuth(token.strip(), base_url)
    else:
        auth = TokenAuth(store_for_settings(settings), base_url, profile=settings.profile)
    return Client(base_url, auth=auth, timeout=settings.timeout,
                  allow_insecure_http=settings.allow_insecure_http,
                  log=verbose_logger() if verbose else None, **options)


def anonymous_client(settings: Settings, base_url: str, verbose: bool = False) -> Client:
    """A Client without auth (for `login`)."""
    from wfctl.api.client import Client

    return Client(base_url, timeout=settings.timeout, allow_insecure_http=settings.allow_insecure_http,
                  log=verbose_logger() if verbose else None)


def require_base_url(settings: Settings) -> str:
    if not settings.base_url:
        raise NotLoggedIn(f"no service URL for profile {settings.profile!r}; run `wfctl login --base-url <url>`"
                          " or set WFCTL_BASE_URL")
    return settings.base_url


def store_for_settings(settings: Settings, kind: str | None = None) -> FileStore | KeyringStore:
    from wfctl.api.store import FileStore, KeyringStore

    kind = kind or settings.credential_store
    lock = lock_path(settings)
    if kind == "file":
        return FileStore(token_file_path(settings), lock)
    if kind == "keyring":
        return KeyringStore(settings.profile, lock)
    raise CredentialStoreError(f"unknown credential store {kind!r} (use keyring or file)")


def token_file_path(settings: Settings) -> Path:
    return settings.config_dir / "credentials" / f"{_safe(settings.profile)}.json"


def lock_path(settings: Settings) -> Path:
    return settings.config_dir / "locks" / f"{_safe(settings.profile)}.lock"


def save_login(settings: Settings, pair: TokenPair, kind: str) -> FileStore | KeyringStore:
    """Store a fresh pair under the profile's lock, and remove a pair left in the other store."""
    store = store_for_settings(settings, kind)
    with store.lock():
        store.save(pair)
    other = "file" if kind == "keyring" else "keyring"
    with contextlib.suppress(CredentialStoreError):
        if other == "file":
            store_for_settings(settings, other).delete()
    return store


def verbose_logger() -> Callable[[str], None]:
    """Write each (already redacted) verbose line to stderr and to the `wfctl.http` logger."""

    def write(line: str) -> None:
        log.debug(line)
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    return write


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "default"
