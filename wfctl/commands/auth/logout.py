"""wfctl logout: revoke the login on the service (G22), then forget the stored login of the profile."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from wfctl.commands.options import app_context

if TYPE_CHECKING:
    from wfctl.api.session.store import TokenPair
    from wfctl.context import AppContext


def logout(ctx: typer.Context) -> None:
    """Sign out: revoke the login on the service, then remove the stored tokens of the profile.

    Asks the service to revoke every token of the login (POST /identity/logout), so a copy of the
    tokens stops working too, then removes the token pair from the profile's credential store
    (keyring or file). A service that does not offer logout, or cannot be reached, is said in a
    warning: the tokens are removed here and stay valid on the service until they expire. The
    profile's settings (service URL, user name) stay, so `wfctl login` asks only for the password.

    Examples:
      $ wfctl logout
      $ wfctl --profile staging logout
    """
    from wfctl.api.errors import NotLoggedIn
    from wfctl.errors import unknown_profile_message
    from wfctl.factory import store_for_settings

    app = app_context(ctx)
    settings = app.settings
    missing = unknown_profile_message(app.options.profile) if app.options.profile else None
    if missing:  # a mistyped -p: said as every command says it (exit 3), not "was not logged in"
        raise NotLoggedIn(missing)
    store = store_for_settings(settings)
    where = store.describe()  # before: a file removed would be "not written yet"
    with store.lock():  # no refresh of another wfctl rotates the pair between the revoke and the removal
        pair = _stored_pair(store)
        revoked = pair is not None and _revoke(app, pair)
        removed = store.delete()
    if removed:
        done = "the service revoked its tokens and they are removed" if revoked else "tokens removed"
        app.io.note(f"Logged out of profile {settings.profile!r}; {done} from {where}.")
    else:
        app.io.note(f"Profile {settings.profile!r} was not logged in.")


def _stored_pair(store: Any) -> TokenPair | None:
    from wfctl.api.errors import CredentialStoreError, NotLoggedIn

    try:
        pair: TokenPair | None = store.load()
    except (CredentialStoreError, NotLoggedIn):  # unreadable, or a host with no keyring: nothing to revoke,
        return None                               # and the removal still goes ahead (it says what is true)
    return pair


def _revoke(app: AppContext, pair: TokenPair) -> bool:
    """G22: the service revokes the pair's login. False, after a warning, when it did not: the tokens
    then stay valid on the service until they expire."""
    from wfctl.api.client import NotSupported
    from wfctl.api.errors import ApiError
    from wfctl.api.net.origin import origin_of
    from wfctl.factory import anonymous_client

    base_url = pair.base_url or app.settings.base_url
    if not pair.refresh_token or not base_url:
        return False
    stays = "the tokens stay valid on the service until they expire"
    try:
        with anonymous_client(app.settings, base_url, verbose=app.options.verbose) as client:
            client.logout(pair.refresh_token)
    except NotSupported as exc:
        app.io.warn(f"{origin_of(base_url)} does not offer logout (HTTP {exc.status}): {stays}")
        return False
    except ApiError as exc:
        app.io.warn(f"the service did not revoke the login ({exc}): {stays}")
        return False
    return True
