"""A wfctl profile for a script: the service, settings and login that `wfctl login` keeps, as an SDK Client.

    import wfctl.profiles

    with wfctl.profiles.client("staging") as client:    # a wfctl.api.Client (None: the default profile)
        for site in client.iter_sites(client_id):
            ...

    tokens = wfctl.profiles.token_source("staging")     # a wfctl.api.TokenSource: the profile's login
    client = Client(url, auth=tokens, timeout=10)       # for a Client built your own way

The SDK (`wfctl.api`) knows nothing of profiles or config files (docs/architecture.md); this module is the one
public way from a profile to it. It reads the config as the CLI does (flag > environment > profile > default:
`WFCTL_BASE_URL`, `WFCTL_ACCESS_TOKEN`, ... win over the profile) and loads no typer, click or rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.api.session.tokens import TokenSource

__all__ = ["client", "token_source"]


def client(name: str | None = None, **options: Any) -> Client:
    """A Client for the profile `name` (the default profile if None): its service URL, timeout, CA bundle and
    PUT rule, and its login (refreshed as the CLI refreshes it, under the same cross-process lock), or
    `WFCTL_ACCESS_TOKEN` when set. `options` are the Client's (`retry`, `log`, `warn`, ...).

    Raises `wfctl.config.ConfigError` for a config that cannot be read (its message says which), and
    `wfctl.api.NotLoggedIn` for a profile without a service URL."""
    from wfctl.factory import client_from_profile

    return client_from_profile(name, **options)


def token_source(name: str | None = None) -> TokenSource:
    """The access token of the profile `name` as a `wfctl.api.TokenSource` (its stored login, or
    `WFCTL_ACCESS_TOKEN` when set), for a Client built your own way."""
    from wfctl.config import load_settings
    from wfctl.factory import token_source as source_for_settings

    return source_for_settings(load_settings(profile=name))
