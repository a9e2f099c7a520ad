"""wfctl logout: forget the stored login of a profile."""

from __future__ import annotations

import typer

from wfctl.commands.options import app_context


def logout(ctx: typer.Context) -> None:
    """Sign out: remove the stored tokens of the profile.

    Removes the token pair from the profile's credential store (keyring or file). The profile's
    settings (service URL, user name) stay, so `wfctl login` asks only for the password.

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
    with store.lock():
        removed = store.delete()
    if removed:
        app.io.note(f"Logged out of profile {settings.profile!r}; tokens removed from {where}.")
    else:
        app.io.note(f"Profile {settings.profile!r} was not logged in.")
