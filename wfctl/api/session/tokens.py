"""Where a Client's access token comes from: the `TokenSource` protocol, asked on every request.

A script supplies tokens from anywhere (a vault, a file another program rotates, an environment variable,
a command) by giving the Client a token source, or just a function returning the token:

    Client(base_url, auth=lambda: vault.read("wams/token"))     # asked before every request
    Client(base_url, auth=MySource())                           # access_token / refresh / location

wfctl's own sources are implementations: `wfctl.api.session.auth.TokenAuth` (a login's pair in a token store, the
keyring or a 0600 file, refreshed at the service under the login's cross-process lock) and
`wfctl.api.session.auth.StaticTokenAuth` (one token used as is: `WFCTL_ACCESS_TOKEN`). The Client turns any other
source into its `httpx.Auth` flow (wfctl.api.session.auth.SourceAuth): the token on every request, and on a 401 one
`refresh` and one replay.

Nothing here imports httpx: a script may name the protocol without paying for the HTTP stack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TokenSource(Protocol):
    """Where a Client's access token comes from. The Client asks `access_token()` before every request.

    A source that knows when its token expires renews it there, before it is sent. `refresh(rejected)`
    is asked once when the service answered 401 to a request sent with `rejected`: return another token
    (the request is sent again once with it) or None (the 401 stands: `NotLoggedIn`). `location()` says
    where the token (pair) is kept, in a person's words, or None when it is kept nowhere.

    A source may raise any `wfctl.api.ApiError` (`NotLoggedIn` when it has no token). It is asked from
    every thread that shares the Client, so it guards its own state."""

    def access_token(self) -> str: ...

    def refresh(self, rejected: str) -> str | None: ...

    def location(self) -> str | None: ...


@runtime_checkable
class AttachedSource(TokenSource, Protocol):
    """A token source that refreshes at the service itself (a login's stored pair, wfctl.api.session.auth.TokenAuth):
    the Client gives it, once, the function that sends one request through the Client's own session (its
    TLS, retries, origin rules), for the refresh it makes outside a request's flow."""

    def attach(self, send: Callable[[Any], Any]) -> None: ...


class CallableSource:
    """A token source from a function returning the current access token, asked on every request and once
    more after a 401 (a new token is sent again once; the same token means the 401 stands)."""

    def __init__(self, get: Callable[[], str], *, where: str | None = None) -> None:
        self._get = get
        self._where = where

    def access_token(self) -> str:
        return checked_token(self._get())

    def refresh(self, rejected: str) -> str | None:
        token = self.access_token()
        return token if token != rejected else None

    def location(self) -> str | None:
        return self._where


def as_source(auth: object) -> TokenSource | None:
    """`auth` as a TokenSource: a source as it is, a function as a CallableSource; None for anything else
    (an `httpx.Auth` of another kind, or no auth)."""
    if isinstance(auth, TokenSource):
        return auth
    if callable(auth) and not hasattr(auth, "sync_auth_flow"):
        return CallableSource(auth)
    return None


def checked_token(token: object) -> str:
    """A source's token, stripped and remembered as a secret (never in a log); NotLoggedIn for none or for one
    that cannot go in a header."""
    from wfctl.api.errors import NotLoggedIn
    from wfctl.api.net.redact import register_secret
    from wfctl.api.session.tokenvalues import sendable_token

    if not isinstance(token, str) or not token.strip():
        raise NotLoggedIn("the token source gave no access token")
    token = token.strip()
    if not sendable_token(token):
        raise NotLoggedIn("the token source gave a token that cannot be sent (a control character, or a "
                          "character outside ASCII)")
    register_secret(token)
    return token
