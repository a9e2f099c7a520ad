"""Bearer authentication as an `httpx.Auth` flow, with refresh that is safe across processes.

`TokenAuth` attaches the stored access token, refreshes it ahead of expiry and once on a 401, then
replays the request. The token store is I/O (keyring, file, lock), so the flow overrides
`sync_auth_flow` instead of doing that I/O inside `auth_flow` (httpx's documented pattern).

A refresh runs under the store's cross-process lock, after re-reading the store: when another
process has already rotated the pair, its pair is used and no refresh is sent, so a spent refresh
token is never presented again (G3). The new pair is stored before the lock is released.

Tokens go only to the login's origin: a request to any other origin gets no Authorization header
and raises ForeignOrigin before anything is sent.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import TYPE_CHECKING

import httpx

from wfctl.api.errors import ForeignOrigin, NotLoggedIn
from wfctl.api.origin import origin_of, same_origin

if TYPE_CHECKING:
    from wfctl.api.store import TokenPair, TokenStore

REFRESH_PATH = "/identity/refresh"


class TokenAuth(httpx.Auth):
    """Authenticates requests with the pair in `store`; refreshes it as needed."""

    def __init__(self, store: TokenStore, base_url: str, *, profile: str = "default") -> None:
        self.store = store
        self.base_url = base_url.rstrip("/")
        self.profile = profile
        self._pair: TokenPair | None = None
        self._lock = threading.RLock()

    # -- public --------------------------------------------------------------------
    def current_pair(self) -> TokenPair:
        """The pair in memory, loaded from the store on first use."""
        with self._lock:
            if self._pair is None:
                pair = self.store.load()
                if pair is None:
                    raise NotLoggedIn(f"not logged in (profile {self.profile!r})")
                self._check_pair_origin(pair)
                self._pair = pair
            return self._pair

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self._check_request_origin(request)
        pair = self.current_pair()
        if pair.needs_refresh():
            pair = yield from self._refresh_flow(pair)
        request.headers["Authorization"] = f"Bearer {pair.access_token}"
        response = yield request
        if response.status_code != 401:
            return
        response.read()
        pair = yield from self._refresh_flow(pair, after_401=True)
        request.headers["Authorization"] = f"Bearer {pair.access_token}"
        yield request  # a second 401 is returned to the Client, which reports NotLoggedIn

    def valid_pair(self) -> Generator[httpx.Request, httpx.Response, TokenPair]:
        """A flow that ends with a pair good for at least a little while (for `wfctl auth token`)."""
        pair = self.current_pair()
        if pair.needs_refresh():
            pair = yield from self._refresh_flow(pair)
        return pair

    # -- refresh -------------------------------------------------------------------
    def _refresh_flow(self, stale: TokenPair, *, after_401: bool = False
                      ) -> Generator[httpx.Request, httpx.Response, TokenPair]:
        from wfctl.api.store import TokenPair

        with self._lock, self.store.lock():
            current = self.store.load()
            if current is None:
                raise NotLoggedIn(f"not logged in (profile {self.profile!r})")
            self._check_pair_origin(current)
            rotated_elsewhere = current.refresh_token != stale.refresh_token or \
                current.access_token != stale.access_token
            if rotated_elsewhere and (after_401 or not current.needs_refresh()):
                self._pair = current  # another process (or thread) already refreshed: use its pair
                return current
            if not current.refresh_token:
                raise NotLoggedIn("the login has expired and cannot be refreshed; log in again")
            refresh = httpx.Request(
                "POST", self.base_url + REFRESH_PATH,
                json={"accessToken": current.access_token, "refreshToken": current.refresh_token},
                headers={"Accept": "application/json"},
            )
            response = yield refresh
            response.read()
            if response.status_code in (400, 401, 403):
                raise NotLoggedIn("the login has expired or was revoked; log in again",
                                  status=response.status_code)
            if not 200 <= response.status_code < 300:
                from wfctl.api.client import error_from_response

                raise error_from_response(response)
            try:
                body = response.json()
            except ValueError:
                body = None
            if not isinstance(body, dict):
                raise NotLoggedIn("the service's refresh answer was not a token pair; log in again",
                                  status=response.status_code)
            new = TokenPair.from_response(body, username=current.username, base_url=current.base_url)
            if not new.refresh_token:
                new.refresh_token = current.refresh_token
            self.store.save(new)  # before the lock is released: other processes see the new pair
            self._pair = new
            return new

    # -- origin guards -------------------------------------------------------------
    def _check_request_origin(self, request: httpx.Request) -> None:
        if not same_origin(request.url, self.base_url):
            raise ForeignOrigin(
                f"refused to send the login's token to {origin_of(request.url)}, "
                f"which is not the service origin {origin_of(self.base_url)}")

    def _check_pair_origin(self, pair: TokenPair) -> None:
        if pair.base_url and not same_origin(pair.base_url, self.base_url):
            raise NotLoggedIn(
                f"the stored login of profile {self.profile!r} is for {origin_of(pair.base_url)}, "
                f"not {origin_of(self.base_url)}")


class StaticTokenAuth(httpx.Auth):
    """`WFCTL_ACCESS_TOKEN`: one token used as is, for one run; nothing stored, no refresh."""

    def __init__(self, token: str, base_url: str) -> None:
        from wfctl.api.redact import register_secret

        register_secret(token)
        self.token = token
        self.base_url = base_url

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if not same_origin(request.url, self.base_url):
            raise ForeignOrigin(f"refused to send the token to {origin_of(request.url)}")
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request
