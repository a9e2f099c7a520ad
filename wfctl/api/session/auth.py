"""Bearer authentication as an `httpx.Auth` flow, with refresh that is safe across processes.

`TokenAuth` attaches the stored access token, refreshes it ahead of expiry and once on a 401, then
replays the request. The token store is I/O (keyring, file, lock), so the flow overrides
`sync_auth_flow` instead of doing that I/O inside `auth_flow` (httpx's documented pattern).

A refresh runs under the store's cross-process lock, after re-reading the store: when another
process has already rotated the pair, its pair is used and no refresh is sent, so a spent refresh
token is never presented again (G3). The new pair is stored before the lock is released.

A refresh is sent again after a 5xx or a lost answer (with backoff, by the retry transport), within
its grace window: the service answers a refresh token presented again within 15 minutes of the refresh
that spent it, with the same access token and while the new pair is unused, with that pair (G3), and one
it did not commit is safe to send again anyway. A command sends it again while it rides out an outage
(60 s, wfctl.api.net.retry); the next command does, 14 minutes after the first try at most (a margin for
the time a request takes). A login ends only when the service rejects the refresh token (400, 401, 403).
Only a 429 on every try proves that nothing rotated: a 503 may follow a rotation the service committed
(its database connection broke at the COMMIT), so it leaves the pair in doubt like a lost answer.

The stored pair says when a refresh of it was first sent, written before it is sent and removed only
by an answer: a run killed or cut off while waiting leaves it, and the next run sends the refresh again
while the window lasts. After the window such a pair's refresh token is never sent again (the service
may have spent it, and a spent token presented again revokes the login): the user is told to log in
(exit 3).

Tokens go only to the login's origin: a request to any other origin gets no Authorization header
and raises ForeignOrigin before anything is sent.

Every class here is a `wfctl.api.session.tokens.TokenSource` (the token, a refresh after a 401, where it is kept):
`TokenAuth` (a stored pair) and `StaticTokenAuth` (one token) are also their own `httpx.Auth` flows, and
`SourceAuth` is the flow of any other source (a script's). `TokenAuth` refreshes through the Client's own
session (its TLS, retries and origin rules), which the Client attaches when it is given the source.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import httpx

from wfctl.api.errors import ApiError, ForeignOrigin, NotLoggedIn
from wfctl.api.net.origin import origin_of, same_origin

if TYPE_CHECKING:
    from wfctl.api.session.store import TokenPair, TokenStore
    from wfctl.api.session.tokens import TokenSource

#: how a source that refreshes at the service sends a request: through the Client's own session
Send = Callable[[httpx.Request], httpx.Response]

REFRESH_PATH = "/identity/refresh"


@runtime_checkable
class KeepsPair(Protocol):
    """A token source that knows the whole pair (its expiry, whether a refresh is in doubt): what
    `wfctl auth token` and `auth status` show."""

    def pair(self) -> TokenPair: ...


class TokenAuth(httpx.Auth):
    """Authenticates requests with the pair in `store`; refreshes it as needed. A TokenSource."""

    def __init__(self, store: TokenStore, base_url: str, *, profile: str = "default") -> None:
        self.store = store
        self.base_url = base_url.rstrip("/")
        self.profile = profile
        self._pair: TokenPair | None = None
        self._lock = threading.RLock()
        self._send: Send | None = None

    # -- the token source ----------------------------------------------------------
    def attach(self, send: Send) -> None:
        """How this source sends its refresh outside a request's flow: the Client's session (the Client
        calls it when it is given this source)."""
        self._send = send

    def access_token(self) -> str:
        """The access token to send now, refreshed first (under the login's lock) when about to expire."""
        return self.pair().access_token

    def pair(self) -> TokenPair:
        """A currently valid pair, refreshed first if it is about to expire."""
        pair = self._pair  # asked before every request: the pair in memory, while it lasts, without a flow
        if pair is not None and not pair.needs_refresh():
            return pair
        return self._drive(self.valid_pair())

    def refresh(self, rejected: str) -> str | None:
        """After a 401 to `rejected`: the pair another process stored meanwhile, or a refreshed one."""
        pair = self.current_pair()
        stale = pair if pair.access_token == rejected else replace(pair, access_token=rejected)
        new = self._drive(self._refresh_flow(stale, after_401=True)).access_token
        return new if new != rejected else None

    def location(self) -> str | None:
        return self.store.describe()

    # -- the httpx flow ------------------------------------------------------------
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

    def _drive(self, flow: Generator[httpx.Request, httpx.Response, TokenPair]) -> TokenPair:
        """Run a flow of this source through the attached session, to its pair."""
        if self._send is None:
            raise NotLoggedIn("this login's token source is not attached to a Client")
        try:
            request = next(flow)
            while True:
                response = self._send(request)
                try:
                    request = flow.send(response)
                finally:
                    response.close()
        except StopIteration as stop:
            pair: TokenPair = stop.value
            return pair
        except ApiError:
            flow.close()  # let the auth flow release its refresh lock and mark a lost answer now
            raise
        except Exception as exc:
            flow.close()  # first: the flow reads the transport's own error as what lost the answer
            if isinstance(exc, httpx.TransportError):
                from wfctl.api.net.responses import network_error

                raise network_error(self.base_url, exc) from None
            raise

    # -- refresh -------------------------------------------------------------------
    def _refresh_flow(self, stale: TokenPair, *, after_401: bool = False
                      ) -> Generator[httpx.Request, httpx.Response, TokenPair]:
        import time

        from wfctl.api.net.retry import outage_seconds
        from wfctl.api.net.transport import ATTEMPTS, RESEND_UNTIL
        from wfctl.api.session.store import REFRESH_RESEND_WINDOW

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
            if current.refresh_in_doubt:
                raise NotLoggedIn(in_doubt_message(self.profile, current))
            if not current.refresh_token:
                raise NotLoggedIn("the login has expired and cannot be refreshed; log in again")
            # A refresh sent before and not answered (another run's, killed or cut off) is sent again
            # within its window, counted from its first try: the service answers it with the same pair.
            now = time.time()
            sent_at = current.refresh_sent_at if current.refresh_pending else now
            delivery = _Delivery()
            outcomes: list[int | str] = []
            refresh = httpx.Request(
                "POST", self.base_url + REFRESH_PATH,
                json={"accessToken": current.access_token, "refreshToken": current.refresh_token},
                headers={"Accept": "application/json"},
                # Sent again within its window, and for no longer than an outage is ridden out: the next
                # command asks again if this one gives up.
                extensions={"trace": delivery, ATTEMPTS: outcomes,
                            RESEND_UNTIL: time.monotonic() + min(sent_at + REFRESH_RESEND_WINDOW - now,
                                                                 outage_seconds())},
            )
            # Write-ahead: until an answer is in, the stored pair says a refresh of it is on the way, and
            # since when. If the answer never arrives (a lost connection, a kill), the next run sends it
            # again within the window, and after it does not: the service may have spent it (G3).
            self.store.save(replace(current, refresh_sent_at=sent_at))
            try:
                response = yield refresh
            except GeneratorExit as closing:
                self._answer_lost(current, delivery.maybe_sent, closing.__context__, outcomes)
                raise
            try:
                response.read()
            except httpx.TransportError as exc:  # the status line came, the token pair did not
                self._answer_lost(current, True, exc, outcomes)
                raise
            status = response.status_code
            if 200 <= status < 300:
                new = self._new_pair(response, current)
                self.store.save(new)  # before the lock is released: other processes see the new pair
                self._pair = new
                return new
            if status in (400, 401, 403):  # the service rejects the refresh token: the login is over
                self.store.save(replace(current, refresh_sent_at=0.0))
                self._pair = current
                raise NotLoggedIn("the login has expired or was revoked; log in again", status=status)
            if not current.refresh_pending and all(o == 429 for o in outcomes):
                self.store.save(current)  # every try was refused before acting: nothing rotated
                self._pair = current
            # A 503 is not such a refusal: a service whose database connection broke while committing the
            # rotation says 503 too (the sandbox on PostgreSQL does), and the pair stays in doubt.
            elif not replace(current, refresh_sent_at=sent_at).refresh_resendable():
                # A gateway's 502/504, or a service failing after it rotated, and no time left to ask
                # again: the refresh may have been applied, so the pair stays in doubt.
                raise NotLoggedIn(lost_answer_message(f"the service answered HTTP {status}"), status=status)
            from wfctl.api.net.responses import error_from_response

            error = error_from_response(response)
            raise type(error)(error.title, status=error.status, errors=error.errors,
                              detail=(f"{error.detail}; " if error.detail else "") + retry_hint(len(outcomes)))

    def _new_pair(self, response: httpx.Response, current: TokenPair) -> TokenPair:
        """The rotated pair from a 2xx refresh answer; an unusable answer leaves the pair in doubt
        (the service says it refreshed, so the old refresh token is spent)."""
        from wfctl.api.errors import CredentialStoreError, ServerError
        from wfctl.api.net.responses import parse_json
        from wfctl.api.session.store import TokenPair

        try:
            body = parse_json(response.content)  # as every answer: bounded (wfctl.api.net.limits.decoding)
        except ServerError:
            body = None
        try:
            if not isinstance(body, dict):
                raise CredentialStoreError("not a JSON object")
            new = TokenPair.from_response(body, username=current.username, base_url=current.base_url)
        except CredentialStoreError:
            raise NotLoggedIn(lost_answer_message("the service's refresh answer was not a token pair"),
                              status=response.status_code) from None
        if not new.refresh_token:
            new.refresh_token = current.refresh_token
        return new

    def _answer_lost(self, current: TokenPair, sent: bool, cause: BaseException | None,
                     outcomes: list[int | str]) -> None:
        """The refresh was abandoned before its answer was read: the connection failed (after every
        resend the window allowed), the process is being interrupted, or the caller dropped the flow.

        Nothing of it left (the connection could not be made): the pair is stored back as it was and
        the caller's error stands. Otherwise the service may have rotated the pair: the mark stays, so
        the next run sends the refresh again while its window lasts, and no run does after it; a
        transport failure becomes "cannot reach, try again" (exit 7) while the window lasts, and "log
        in again" (exit 3) once it has passed."""
        if not sent:
            self.store.save(current)
            return
        if not isinstance(cause, httpx.TransportError):
            return
        from wfctl.api.net.limits import AnswerTooLarge

        stored = self.store.load()
        reason = f"{type(cause).__name__}: {_reason(cause)}"
        if stored is not None and stored.refresh_resendable() and not isinstance(cause, AnswerTooLarge):
            from wfctl.api.errors import NetworkError

            raise NetworkError(f"the token refresh got no answer from {origin_of(self.base_url)}",
                               detail=f"{reason}; {retry_hint(len(outcomes))}") from cause
        raise NotLoggedIn(lost_answer_message(reason)) from cause

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


def lost_answer_message(reason: str) -> str:
    """The error when the answer to a refresh that was sent is lost."""
    return (f"the token refresh got no usable answer ({reason}); the service may already have replaced "
            "the login's tokens, and sending the old refresh token again would revoke the login, so "
            "wfctl will not: log in again")


def retry_hint(tries: int) -> str:
    """What a refresh that failed without an answer of the service's leaves the user to do."""
    from wfctl.api.session.store import REFRESH_RESEND_WINDOW

    times = "once" if tries <= 1 else f"{tries} times"
    return (f"the refresh was tried {times}; the login is kept, and the next command sends the refresh again "
            f"(the service answers it again for {_duration(REFRESH_RESEND_WINDOW)})")


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 120 else f"{seconds:g} s"


def in_doubt_message(profile: str, pair: TokenPair) -> str:
    """The error when the stored pair is marked: an earlier refresh got no answer."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(pair.refresh_sent_at))
    return (f"the last token refresh of profile {profile!r} (at {when}) got no answer; the service may "
            "have replaced the login's tokens, so wfctl does not send the old refresh token again: "
            "log in again")


class _Delivery:
    """Whether a request may have reached the service, from the transport's trace events (httpcore's
    `trace` request extension): until it starts writing the request headers, the request provably
    has not (the connection could not be made). A transport that reports no events at all (a mock,
    a custom one) is taken to have sent it."""

    def __init__(self) -> None:
        self.events = 0
        self.writing = False

    def __call__(self, name: str, info: dict[str, Any]) -> None:
        self.events += 1
        if "send_request_headers" in name:
            self.writing = True

    @property
    def maybe_sent(self) -> bool:
        return self.writing or self.events == 0


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


class StaticTokenAuth(httpx.Auth):
    """`WFCTL_ACCESS_TOKEN`: one token used as is, for one run; nothing stored, no refresh. A TokenSource
    (`where`: where the token came from, e.g. "environment variable WFCTL_ACCESS_TOKEN")."""

    def __init__(self, token: str, base_url: str, *, where: str | None = None) -> None:
        from wfctl.api.net.redact import register_secret

        register_secret(token)
        self.token = token
        self.base_url = base_url
        self.where = where

    def access_token(self) -> str:
        return self.token

    def refresh(self, rejected: str) -> str | None:
        return None  # one token, nothing to renew it with: the 401 stands

    def location(self) -> str | None:
        return self.where

    def pair(self) -> TokenPair:
        from wfctl.api.session.tokenpair import TokenPair

        return TokenPair(self.token, None, 0.0, 0.0, None, self.base_url)

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if not same_origin(request.url, self.base_url):
            raise ForeignOrigin(f"refused to send the token to {origin_of(request.url)}")
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


class SourceAuth(httpx.Auth):
    """The `httpx.Auth` flow of any TokenSource: its token on every request (asked in `sync_auth_flow`, as a
    source may do I/O), and on a 401 its `refresh` and one replay; a second 401 is the Client's NotLoggedIn."""

    def __init__(self, source: TokenSource, base_url: str) -> None:
        self.source = source
        self.base_url = base_url.rstrip("/")

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if not same_origin(request.url, self.base_url):
            raise ForeignOrigin(f"refused to send the token to {origin_of(request.url)}, which is not the "
                                f"service origin {origin_of(self.base_url)}")
        from wfctl.api.session.tokens import checked_token

        token = checked_token(self.source.access_token())
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code != 401:
            return
        response.read()
        new = self.source.refresh(token)
        if not new:
            return
        request.headers["Authorization"] = f"Bearer {checked_token(new)}"
        yield request
