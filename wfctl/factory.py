"""The CLI's composition root: from a profile's settings to a ready `wfctl.api.Client` (which token store,
which auth, where verbose lines go), as gh's `factory` hands its `api` package an http client.

The SDK (`wfctl.api`) knows nothing of profiles or config files; this module reads them and builds the
Client. Used by `AppContext.client`, the auth commands, doctor, and by `wfctl.profiles`, the public way a
script gets a profile's Client (`wfctl.profiles.client("staging")`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import CredentialStoreError, NotLoggedIn

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.api.session.keyringstore import KeyringStore
    from wfctl.api.session.store import FileStore, TokenPair
    from wfctl.api.session.tokens import TokenSource
    from wfctl.config import Settings

ACCESS_TOKEN_ENV = "WFCTL_ACCESS_TOKEN"
HELPER_ENV = "WFCTL_TOKEN_HELPER"  # wfctl.api.session.tokenhelper.HELPER_ENV, without importing the SDK here
log = logging.getLogger("wfctl.http")


def client_from_profile(profile: str | None = None, **options: Any) -> Client:
    """A Client using the CLI's config and stored login for `profile` (the default profile if None).

    Raises `wfctl.config.ConfigError` for a config that cannot be read, `wfctl.api.NotLoggedIn` without
    a service URL. `options` are the Client's (`timeout`, `retry`, `log`, ...)."""
    from wfctl.config import load_settings

    return client_for_settings(load_settings(profile=profile), **options)


def client_for_settings(settings: Settings, verbose: bool = False, **options: Any) -> Client:
    """An authenticated Client for the profile in `settings`, its writes told to the write history
    (wfctl.history; `write_observer=None` for none). No I/O until the first request.

    `WFCTL_ACCESS_TOKEN` set: that token is used as is, nothing is stored, nothing is refreshed."""
    from wfctl.api.client import Client

    base_url = require_base_url(settings)
    if "write_observer" not in options:  # every write this Client makes leaves a line in the write history
        from wfctl.history import HistoryWriter

        options["write_observer"] = HistoryWriter(settings.profile)
    return Client(base_url, auth=token_source(settings), timeout=settings.timeout, ca_bundle=settings.ca_bundle,
                  allow_insecure_http=settings.allow_insecure_http, put_clears=settings.put_clears,
                  log=verbose_logger() if verbose else None, **options)


def token_source(settings: Settings) -> TokenSource:
    """Where the profile's access token comes from (a `wfctl.api.TokenSource`): the token helper of a
    `wfctl exec` (WFCTL_TOKEN_HELPER) when set, `WFCTL_ACCESS_TOKEN` when set (used as is), the profile's
    `credential_process` when it names one, else the profile's login in its token store (refreshed under the login's lock)."""
    from wfctl.api.session.auth import StaticTokenAuth, TokenAuth

    base_url = require_base_url(settings)
    if os.environ.get(HELPER_ENV, "").strip():  # under `wfctl exec`: its token helper, renewed as it runs
        from wfctl.api.session.tokenhelper import environment_source

        return environment_source(base_url)
    token = os.environ.get(ACCESS_TOKEN_ENV)
    if token:
        return StaticTokenAuth(token.strip(), base_url, where=f"environment variable {ACCESS_TOKEN_ENV}")
    if settings.credential_process:  # the profile names a command that prints the token (a vault's)
        from wfctl.api.session.credprocess import CredentialProcessSource

        return CredentialProcessSource(settings.credential_process)
    return TokenAuth(store_for_settings(settings), base_url, profile=settings.profile)


def token_pair(client: Client) -> TokenPair:
    """The pair behind a CLI-built client's token (its expiry, a refresh in doubt), renewed first if it is
    about to expire: `wfctl auth token` and `auth status`."""
    from wfctl.api.session.auth import KeepsPair

    if not isinstance(client.tokens, KeepsPair):
        raise NotLoggedIn("this client has no stored login")
    return client.tokens.pair()


def anonymous_client(settings: Settings, base_url: str, verbose: bool = False) -> Client:
    """A Client without auth (for `login`)."""
    from wfctl.api.client import Client

    return Client(base_url, timeout=settings.timeout, allow_insecure_http=settings.allow_insecure_http,
                  ca_bundle=settings.ca_bundle, log=verbose_logger() if verbose else None)


def require_base_url(settings: Settings) -> str:
    if not settings.base_url:
        raise NotLoggedIn(f"no service URL for profile {settings.profile!r}; run `wfctl login --base-url <url>`"
                          " or set WFCTL_BASE_URL")
    return settings.base_url


def store_for_settings(settings: Settings, kind: str | None = None) -> FileStore | KeyringStore:
    """The token store of the profile's login, with its one lock (see wfctl.api.session.store).

    keyring: the entry `<profile>@<service origin>` and its lock in the state directory, so every
    config naming this profile and service shares one login and one lock. file: a file and a lock
    in the config directory."""
    from wfctl.api.session.keyringstore import KeyringStore, keyring_entry
    from wfctl.api.session.store import FileStore

    kind = kind or settings.credential_store
    if kind == "file":
        return FileStore(token_file_path(settings), lock_path(settings),
                         legacy_path=legacy_token_file(settings))
    if kind == "keyring":
        origin = login_origin(settings)
        if origin is None:  # no service URL: only a login stored under the profile name can be found
            return KeyringStore(settings.profile, keyring_lock_path(settings.profile, None), profile=settings.profile)
        return KeyringStore(keyring_entry(settings.profile, origin), keyring_lock_path(settings.profile, origin),
                            legacy_entry=settings.profile, origin=origin, profile=settings.profile)
    raise CredentialStoreError(f"unknown credential store {kind!r} (use keyring or file)")


def login_origin(settings: Settings) -> str | None:
    """The origin (scheme://host[:port]) of the profile's service, or None without a base URL."""
    if not settings.base_url:
        return None
    from wfctl.api.net.origin import origin_of
    from wfctl.config import ConfigError

    try:
        return origin_of(settings.base_url)
    except Exception:  # httpx.InvalidURL and friends: the URL cannot name a service
        raise ConfigError(f"base URL {settings.base_url!r} is not a valid URL") from None


def token_file_path(settings: Settings) -> Path:
    from wfctl.fsutil import file_name_for

    return settings.config_dir / "credentials" / f"{file_name_for(settings.profile)}.json"


def legacy_token_file(settings: Settings) -> Path | None:
    """Where earlier wfctl versions kept this profile's token file, when that is another file and reading it
    cannot pick up another profile's login: only for a name that was kept as it was (letters, digits,
    `-`, `_`, `.`); `prod/eu` was written as `prod_eu.json`, which may be profile `prod_eu`'s. On a
    case-insensitive file system `Prod.json` is also `prod.json`, profile `prod`'s: not read then."""
    name = settings.profile
    if _legacy_file_name(name) != name:
        return None
    new = token_file_path(settings)
    old = new.with_name(f"{name}.json")
    if old == new:
        return None
    with contextlib.suppress(OSError):
        if os.path.samefile(old, new.with_name(f"{name.lower()}.json")):
            return None
    return old


def lock_path(settings: Settings) -> Path:
    """The lock of a file-store login: beside its config, named like its token file."""
    from wfctl.fsutil import file_name_for

    return settings.config_dir / "locks" / f"{file_name_for(settings.profile)}.lock"


def keyring_lock_path(profile: str, origin: str | None) -> Path:
    """The lock of a keyring login: named by the same profile and origin as its keyring entry, in the
    state directory (the same for every config of this user)."""
    from wfctl.dirs import state_dir
    from wfctl.fsutil import file_name_for

    name = file_name_for(profile) + ("@" + file_name_for(origin) if origin else "")
    return state_dir() / "locks" / f"{name}.lock"


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


def _legacy_file_name(name: str) -> str:
    """The file name earlier wfctl versions gave a profile (many names to one: `prod/eu` and `prod_eu`)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "default"
