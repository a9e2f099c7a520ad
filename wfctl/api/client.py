"""Client: one authenticated, retrying HTTP session to the service, with a method per endpoint.

Records are plain dicts exactly as the service sends them (camelCase keys): cheap to stream, and
what `-o json` prints.

The session, its transport and the agency are here; the record methods of every kind (generic ones,
`list_records(kind, parent_id)`, `get_record`, `create_record`, `update_record`, `delete_record`, and
each kind's own, `list_sites`, `get_branch`, ...) are its base class, wfctl.api.records.recordmethods. What those
methods do beyond one request lives apart: the create and update protocols in writes.py, the G9 parent
filter in branchfilter.py, paging in pagereader.py and pagination.py, error mapping in responses.py.

    with Client.from_environment() as client:     # WFCTL_BASE_URL, WFCTL_ACCESS_TOKEN (docs/sdk.md)
        for branch in client.iter_branches():
            print(branch["id"], branch["name"])

Where the token comes from is the Client's token source, asked on every request (wfctl.api.session.tokens).
What only wfctl's own bulk runs need of a Client is apart, behind `client._runs` (wfctl.api.runsupport).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import (
    ForeignOrigin,
    InsecureTransport,
    NetworkError,
    NotFound,
    NotLoggedIn,
    ServerError,
)
from wfctl.api.net.responses import decode_body, error_from_response, network_error, user_agent
from wfctl.api.records.page import Page
from wfctl.api.records.recordmethods import RecordMethods, fetched
from wfctl.api.records.writes import record_of as _record
from wfctl.api.runsupport import RunSupport
from wfctl.api.session.tokens import AttachedSource, TokenSource, as_source

if TYPE_CHECKING:
    import ssl

    import httpx

    from wfctl.api.net.transport import RetryPolicy, RetryTransport
    from wfctl.api.records.writelog import WriteObserver

log = logging.getLogger("wfctl.http")

#: the environment variables `Client.from_environment` reads (and `wfctl exec` will set)
BASE_URL_ENV = "WFCTL_BASE_URL"
ACCESS_TOKEN_ENV = "WFCTL_ACCESS_TOKEN"
TIMEOUT_ENV = "WFCTL_TIMEOUT"
CA_BUNDLE_ENV = "WFCTL_CA_BUNDLE"

MAX_REDIRECTS = 5


class NotSupported(NotFound):
    """The deployment does not offer this endpoint (404/405 on an extension such as agency update)."""


class Client(RecordMethods):
    """Talks to one service origin.

    Construction does no I/O. `auth` is where the access token comes from, asked on every request: a
    `wfctl.api.TokenSource`, a function returning the token, the token itself (a str), another
    `httpx.Auth`, or None for the identity endpoints (see wfctl.api.session.tokens). Every method raises a
    subclass of wfctl.api.errors.ApiError on failure. Thread-safe: bulk import shares one Client between
    worker threads.

    `timeout` (seconds, default 30), `allow_insecure_http` (G19), `ca_bundle` (a PEM file: the only CAs
    trusted for https; default: the OS store and certifi, see wfctl.api.net.tls), `retry` (a RetryPolicy),
    `log` (a callable receiving each verbose log line, already redacted), `transport` (an httpx transport
    under the retry layer, e.g. httpx.MockTransport for tests), `sleep` (the function used to wait between
    retries), `user_agent`, `put_clears` (True: the deployment clears what a PUT leaves out, G13, so
    updates send the whole record; learnt when seen, see wfctl.api.records.updates), `warn` (a callable receiving
    each warning line of an update: fields another writer moved, a deployment found clearing; default:
    the `wfctl.api` logger's warnings), `write_observer` (told of each write the service answered,
    wfctl.api.records.writelog; the CLI's write history).
    """

    def __init__(
        self,
        base_url: str,
        *,
        auth: TokenSource | Callable[[], str] | str | httpx.Auth | None = None,
        timeout: float | None = 30.0,
        allow_insecure_http: bool = False,
        ca_bundle: str | None = None,
        retry: RetryPolicy | None = None,
        log: Callable[[str], None] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        user_agent: str | None = None,
        put_clears: bool = False,
        warn: Callable[[str], None] | None = None,
        write_observer: WriteObserver | None = None,
    ) -> None:
        from wfctl.api.net.origin import insecure

        self.base_url = base_url.rstrip("/")
        self.tokens, self.auth = _token_source(auth, self.base_url)
        self.allow_insecure_http = bool(allow_insecure_http)
        self.timeout = float(timeout or 30.0)
        self.ca_bundle = ca_bundle
        self._log = log
        self._retry = retry
        self._inner_transport = transport
        self._sleep = sleep
        self._user_agent = user_agent
        self.put_clears = bool(put_clears)
        self.warn: Callable[[str], None] = warn or logging.getLogger("wfctl.api").warning
        self.write_observer = write_observer
        self._insecure = insecure(self.base_url, self.allow_insecure_http)
        self._http: httpx.Client | None = None
        self._ssl: ssl.SSLContext | None = None
        self._http_lock = threading.Lock()  # bulk workers may make their first request at once
        self._observer: Any = None  # told of outages ridden out (RunSupport.watch_outages)
        self._runs = RunSupport(self)  # what wfctl's bulk runs need beyond the SDK (not the SDK's API)
        if isinstance(self.tokens, AttachedSource):
            self.tokens.attach(self._send_for_tokens)

    @classmethod
    def from_environment(cls, *, auth: TokenSource | Callable[[], str] | str | httpx.Auth | None = None,
                         **options: Any) -> Client:
        """A Client from the environment: the service URL in WFCTL_BASE_URL, the access token in
        WFCTL_ACCESS_TOKEN (used as is: nothing stored, nothing refreshed; unless `auth` gives another
        source; under `wfctl exec`, from its token helper, WFCTL_TOKEN_HELPER, renewed as it runs), WFCTL_TIMEOUT and WFCTL_CA_BUNDLE when set. `options` are the Client's. NotLoggedIn names
        what is missing."""
        base_url = os.environ.get(BASE_URL_ENV, "").strip()
        if not base_url:
            raise NotLoggedIn(f"no service URL: set {BASE_URL_ENV}")
        if auth is None:  # WFCTL_TOKEN_HELPER (a `wfctl exec`), else WFCTL_ACCESS_TOKEN as is
            from wfctl.api.session.tokenhelper import environment_source

            auth = environment_source(base_url)
        if os.environ.get(TIMEOUT_ENV, "").strip() and "timeout" not in options:
            try:
                options["timeout"] = float(os.environ[TIMEOUT_ENV])
            except ValueError:
                raise ValueError(f"{TIMEOUT_ENV} is not a number of seconds: {os.environ[TIMEOUT_ENV]!r}") from None
        if os.environ.get(CA_BUNDLE_ENV, "").strip() and "ca_bundle" not in options:
            options["ca_bundle"] = os.path.abspath(os.path.expanduser(os.environ[CA_BUNDLE_ENV].strip()))
        return cls(base_url, auth=auth, **options)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def access_token(self) -> str:
        """The access token this Client sends now, from its token source (renewed first where the source
        can and the token is about to expire): for another program's request, as `wfctl auth token`."""
        if self.tokens is None:
            raise NotLoggedIn("this client has no token source")
        token = self.tokens.access_token()
        if self.auth is self.tokens:  # a source that is its own flow (wfctl's): it sends what it gives as is
            return token
        from wfctl.api.session.tokens import checked_token

        return checked_token(token)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- generic -----------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str | httpx.URL,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Send one request (path relative to base_url, or a same-origin absolute URL) and return
        the decoded JSON body (None for an empty body). Non-2xx raises ApiError."""
        response = self.send(method, path, params=params, json=json, headers=headers,
                             idempotency_key=idempotency_key)
        return decode_body(response)

    def send(
        self,
        method: str,
        path: str | httpx.URL,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
        authenticated: bool = True,
    ) -> httpx.Response:
        """Like `request`, but return the (read) httpx.Response. Non-2xx raises ApiError.

        Every attempt ends within `timeout` seconds, its body included, and an answer larger than
        64 MiB once inflated is refused (wfctl.api.net.limits)."""
        import httpx

        from wfctl.api.net.limits import AnswerDeadline, AnswerTooLarge

        url = self._url_for(path)
        hdrs = {"Accept": "application/json"}
        hdrs.update(headers or {})
        if idempotency_key:
            hdrs["Idempotency-Key"] = idempotency_key
        http = self._session()
        kwargs: dict[str, Any] = {"params": _clean_params(params), "headers": hdrs}
        if json is not None:
            kwargs["json"] = json
        elif content is not None:
            kwargs["content"] = content
        auth: Any = self.auth if (authenticated and self.auth is not None) else None
        if self._insecure:
            raise InsecureTransport(
                f"refused to send credentials over plain http:// to {self.base_url}; use https://, "
                "or set allow_insecure_http = true in the profile if you accept the risk")
        try:
            if auth is not None:
                response = http.request(method, url, auth=auth, **kwargs)
            else:
                response = http.request(method, url, **kwargs)
        except AnswerDeadline as exc:
            raise NetworkError(f"no complete answer from {self.base_url} within {exc.seconds:g} s",
                               detail=f"the request's deadline (timeout {exc.seconds:g} s) passed") from None
        except AnswerTooLarge as exc:
            raise ServerError(f"refused the answer of {self.base_url}", detail=str(exc)) from None
        except httpx.TooManyRedirects:
            raise ServerError(f"too many redirects (more than {MAX_REDIRECTS})") from None
        except httpx.TimeoutException as exc:
            raise NetworkError(f"timed out talking to {self.base_url}",
                               detail=f"{type(exc).__name__} after retries") from None
        except httpx.TransportError as exc:
            raise network_error(self.base_url, exc) from None
        if response.status_code >= 400:
            raise error_from_response(response)
        return response

    def _url_for(self, path: str | httpx.URL) -> Any:
        """Absolute URL for a path relative to base_url or a same-origin absolute URL (an httpx.URL
        is checked and returned as it is)."""
        from wfctl.api.net.origin import origin_of, same_origin

        relative = isinstance(path, str) and path.startswith("/") and not path.startswith("//")
        if not relative and (not isinstance(path, str) or "://" in path or path.startswith("//")):
            if not same_origin(path, self.base_url):
                raise ForeignOrigin(f"refused {origin_of(path)}: not the service origin "
                                    f"{origin_of(self.base_url)}, so no token is sent there")
            return path
        return self.base_url + "/" + str(path).lstrip("/")

    def pages(
        self,
        path: str,
        params: dict[str, Any] | None = None,
        *,
        page: int | None = None,
        page_size: int | None = None,
        all_pages: bool = True,
        concurrency: int | None = None,
        limit: int | None = None,
    ) -> Generator[Page, None, None]:
        """Yield pages starting at `page` (default 1), in the service's order, following nextPage in
        every G8 form; stops after one page when all_pages is False. A loop or a foreign origin raises.

        Reading every page from the start with no size given asks for the largest page the service
        serves (G7: 100; the envelope's pageSize is what counts). Pages after the first are fetched up
        to `concurrency` at a time (default 8) when the envelope gives pageCount; `limit` stops the
        fetching once that many rows came. See wfctl.api.records.pagereader."""
        import httpx

        from wfctl.api.records.pagereader import MAX_PAGE_SIZE, read_pages

        query = dict(params or {})
        if page is not None:
            query["pageNumber"] = page
        if page_size is not None:
            query["pageSize"] = page_size
        # One parse per page: the URL of each request is built once, as an httpx.URL, and used as is
        # for the request, the loop check and the next page's address.
        url = httpx.URL(self._url_for(path))
        if query:
            url = url.copy_merge_params({k: v for k, v in query.items() if v is not None})
        if all_pages and page in (None, 1) and "pageSize" not in url.params and "pageNumber" not in url.params:
            url = url.copy_set_param("pageSize", str(MAX_PAGE_SIZE))
        return read_pages(self, url, all_pages=all_pages, concurrency=concurrency, limit=limit)

    def login(self, username: str, password: str, *, username_field: str = "username") -> dict[str, Any]:
        """POST /identity/login; return the token answer (accessToken, refreshToken, ...)."""
        from wfctl.api.net.redact import register_secret

        register_secret(password)
        body = {username_field or "username": username, "password": password}
        try:
            answer = self._request_unauthenticated("POST", "/identity/login", json=body)
        except NotLoggedIn as exc:
            raise NotLoggedIn("the service rejected the username or password", status=exc.status,
                              detail=exc.detail if exc.detail != exc.title else None) from None
        if not isinstance(answer, dict) or "accessToken" not in answer:
            raise ServerError("the service's login answer has no accessToken")
        return answer

    def logout(self, refresh_token: str) -> None:
        """POST /identity/logout (a sandbox extension, G22): the service revokes every token of the login
        `refresh_token` belongs to. NotSupported when the deployment does not offer it (404/405): the
        tokens then stay valid until they expire."""
        from wfctl.api.net.redact import register_secret

        register_secret(refresh_token)
        try:
            self.send("POST", "/identity/logout", json={"refreshToken": refresh_token}, authenticated=False)
        except (NotFound, ServerError) as exc:
            if exc.status in (404, 405):
                raise NotSupported("this deployment does not offer logout (POST /identity/logout)",
                                   status=exc.status) from None
            raise

    def _request_unauthenticated(self, method: str, path: str, **kwargs: Any) -> Any:
        return decode_body(self.send(method, path, authenticated=False, **kwargs))

    # -- agency ------------------------------------------------------------------
    def get_agency(self) -> dict[str, Any]:
        return fetched(self.request("GET", "/api/agency/"), "the agency")

    def update_agency(self, body: dict[str, Any]) -> dict[str, Any]:
        """PUT /api/agency/ (a sandbox extension, G6): NotSupported when the deployment lacks it."""
        try:
            record = _record(self.request("PUT", "/api/agency/", json=body))
        except (NotFound, ServerError) as exc:
            if exc.status in (404, 405, 501):
                raise NotSupported("this deployment does not offer agency updates", status=exc.status,
                                   detail="this deployment does not offer agency updates") from None
            raise
        from wfctl.api.records import writelog

        writelog.tell(self.write_observer, "agency", record.get("id") or "", writelog.UPDATE, body)
        return record

    # -- internals ---------------------------------------------------------------
    def _ssl_context(self) -> ssl.SSLContext:
        """The one SSL context of this client's https connections (the httpx session's and the lean
        writer's), built on first use (see wfctl.api.net.tls); CaBundleError when `ca_bundle` is unusable."""
        if self._ssl is None:
            from wfctl.api.net.tls import ssl_context

            self._ssl = ssl_context(self.ca_bundle)
        return self._ssl

    def _send_for_tokens(self, request: httpx.Request) -> httpx.Response:
        """Send a token source's own request (a refresh outside a request's flow) through this session."""
        if self._insecure:
            raise InsecureTransport(f"refused to send a token over plain http:// to {self.base_url}")
        return self._session().send(request)

    def _transport(self) -> RetryTransport:
        """The retry layer of this Client's session (built on first use)."""
        self._session()
        return self._retrying

    def _session(self) -> httpx.Client:
        if self._http is not None:
            return self._http
        with self._http_lock:
            if self._http is not None:
                return self._http
            import httpx

            from wfctl.api.net.limits import ACCEPT_ENCODING
            from wfctl.api.net.origin import redirect_guard
            from wfctl.api.net.transport import make_transport

            https = not self.base_url.lower().startswith("http://")
            if self.ca_bundle and not https:  # a bundle named is checked even where no TLS uses it, as
                self._ssl_context()            # `config set ca_bundle` does: a typo is said now, not later
            transport = make_transport(inner=self._inner_transport, policy=self._retry, log=self._log,
                                       sleep=self._sleep, tls=https, deadline=self.timeout,
                                       verify=self._ssl_context() if https and self._inner_transport is None
                                       else None)
            self._retrying: RetryTransport = transport
            transport.pause.observer = self._observer
            self._http = httpx.Client(
                transport=transport,
                timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                # httpx follows redirects (its method and header rules); the hook refuses another origin (G8).
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                event_hooks={"response": [redirect_guard(self.base_url)]},
                headers={"User-Agent": self._user_agent or user_agent(), "Accept-Encoding": ACCEPT_ENCODING},
                trust_env=True,
            )
        return self._http


def _clean_params(params: dict[str, Any] | None) -> dict[str, Any] | None:
    if not params:
        return None
    return {k: v for k, v in params.items() if v is not None}


def _token_source(auth: Any, base_url: str) -> tuple[TokenSource | None, httpx.Auth | None]:
    """The Client's token source and the httpx.Auth flow that sends its token: a source that is its own flow
    (wfctl's stores, a token as is) as it is, any other source through SourceAuth; a str is one token."""
    if auth is None:
        return None, None
    from wfctl.api.session.auth import SourceAuth, StaticTokenAuth

    if isinstance(auth, str):
        auth = StaticTokenAuth(auth.strip(), base_url)
    source = as_source(auth)
    if hasattr(auth, "sync_auth_flow"):
        return source, auth
    if source is None:
        raise TypeError(f"auth must be a TokenSource, a function returning a token, a token or an httpx.Auth, "
                        f"not {type(auth).__name__}")
    return source, SourceAuth(source, base_url)
