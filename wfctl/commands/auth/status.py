"""wfctl auth status."""

from __future__ import annotations

import time
from typing import Any

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.errors import keep_profile

# What a table (a person) sees instead of the JSON keys, which scripts keep.
LABELS = {
    "profile": "Profile",
    "baseUrl": "Base URL",
    "user": "User",
    "credentialStore": "Credential store",
    "credentialStoreLocation": "Stored in",
    "credentialStoreReason": "Store chosen",
    "credentialStoreProtection": "Protected by",
    "agency": "Agency",
    "accessTokenExpires": "Access token expires",
    "accessTokenExpiresIn": "Expires in",
    "warnings": "Warnings",
}

_WHY = {
    "flag": "chosen with --credential-store",
    "env": "set by WFCTL_CREDENTIAL_STORE",
    "profile": "set in the profile (credential_store)",
    "default": "the default",
}


@verb("status")
@takes_output()
def status(ctx: typer.Context, output: OutputOptions = AS_CONFIGURED) -> None:
    """Show who you are logged in as, and where the tokens are kept.

    Shows the profile, service URL, user, agency, when the access token expires, and which
    credential store holds the tokens and why (a token file's real mode: a warning when it is
    not 0600). Asks the service for the agency (refreshing the token if needed). Exits with 3
    when the profile is not logged in, or its login has to be made again.

    Examples:
      $ wfctl auth status
      $ wfctl --profile staging auth status -o json
    """
    import os

    from wfctl.api.errors import NetworkError, NotLoggedIn
    from wfctl.api.session.store import FileStore
    from wfctl.factory import (
        ACCESS_TOKEN_ENV,
        HELPER_ENV,
        client_for_settings,
        store_for_settings,
        token_pair,
    )

    app_ctx = app_context(ctx)
    out = output.writer(app_ctx)
    settings = app_ctx.settings
    info: dict[str, Any] = {"profile": settings.profile, "baseUrl": settings.base_url}
    warnings: list[str] = []
    where = ""  # the store's location as a person reads it
    if os.environ.get(HELPER_ENV):
        info.update(user=None, credentialStore="wfctl exec",
                    credentialStoreReason=f"{HELPER_ENV} is set: the token of the `wfctl exec` that started this "
                                          "program, renewed by it")
        pair = None
    elif os.environ.get(ACCESS_TOKEN_ENV):
        info.update(user=None, credentialStore="environment",
                    credentialStoreReason=f"{ACCESS_TOKEN_ENV} is set: used as is, nothing stored")
        pair = None
    elif settings.credential_process:
        info.update(user=None, credentialStore="credential process",
                    credentialStoreLocation=settings.credential_process[0],
                    credentialStoreReason="the profile's credential_process: asked for each token, nothing stored")
        pair, store, where = None, None, settings.credential_process[0]
    else:
        store = store_for_settings(settings)
        pair = store.load()
        if pair is None:
            raise NotLoggedIn(f"not logged in (profile {settings.profile!r}, {store.describe()})")
        info.update(user=pair.username, credentialStore=settings.credential_store,
                    credentialStoreLocation=store.location(),
                    credentialStoreReason=_WHY[settings.source("credential_store")],
                    credentialStoreProtection=store.protection())
        if isinstance(store, FileStore):
            from wfctl.fsutil import file_mode

            mode = file_mode(store.path)
            info["credentialStoreMode"] = f"{mode:04o}" if mode is not None else None
        # what a person reads: the path and its mode (the store's name is a row of its own), or the keyring
        where = store.describe().partition(" ")[2] if isinstance(store, FileStore) else store.describe()
        problem = store.mode_problem() if isinstance(store, FileStore) else None
        if problem and isinstance(store, FileStore):
            warnings.append(f"token file {store.path} has {problem}; run `chmod 600 {store.path}` "
                            "(others may have read the tokens: also `wfctl logout` and `wfctl login`)")
    client = client_for_settings(settings, verbose=app_ctx.options.verbose)
    with client:
        try:
            agency = client.get_agency()
            info["agency"] = agency.get("name")
        except NetworkError as exc:
            app_ctx.io.warn(f"agency unknown: {exc.one_line()}")
            info["agency"] = None
        if pair is not None:
            pair = token_pair(client) if client.tokens is not None else pair
            info["accessTokenExpires"] = _iso(pair.expires_at)
            info["accessTokenExpiresIn"] = max(0, int(pair.seconds_left()))  # seconds, a number
            if pair.refresh_in_doubt and _still_in_doubt(store):
                warnings.append("the last token refresh got no answer, so the login cannot be refreshed: "
                                f"run `wfctl login` before the access token expires (in {_left(pair)})")
    warnings = [keep_profile(warning) for warning in warnings]  # `wfctl login` for this run's profile
    for warning in warnings:
        app_ctx.io.warn(warning)
    if warnings and out.structured:
        info["warnings"] = warnings  # a table has them on stderr only
    if out.tabular:
        if "accessTokenExpiresIn" in info:
            info["accessTokenExpiresIn"] = f"{info['accessTokenExpiresIn']} s"
        if "credentialStoreLocation" in info:
            info["credentialStoreLocation"] = where
        info.pop("credentialStoreMode", None)  # in the location's words
        info = {LABELS.get(key, key): value for key, value in info.items()}
    out.record(info, kind="login")


def _still_in_doubt(store: Any) -> bool:
    """Whether the pair is still marked once no refresh is under way (another process's refresh
    marks the pair until its answer is in)."""
    with store.lock(timeout=10):
        current = store.load()
    return bool(current is not None and current.refresh_in_doubt)


def _left(pair: Any) -> str:
    return f"{max(0, int(pair.seconds_left()))} s"


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
