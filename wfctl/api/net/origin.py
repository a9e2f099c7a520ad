"""Origins (scheme, host, port), the plain-http guard and the redirect guard (G8, G19)."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import httpx

from wfctl.api.errors import ForeignOrigin

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: Any) -> tuple[str, str, int | None]:
    u = url if isinstance(url, httpx.URL) else _parse(str(url))
    scheme = u.scheme.lower()
    return scheme, (u.host or "").lower(), u.port or _DEFAULT_PORTS.get(scheme)


def origin_of(url: Any) -> str:
    scheme, host, port = origin(url)
    if ":" in host:
        host = f"[{host}]"
    default = _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


def same_origin(a: Any, b: Any) -> bool:
    """Same scheme, host and port, and no userinfo on `a` (an `https://good@evil/` trick)."""
    ua = a if isinstance(a, httpx.URL) else _parse(str(a))
    if ua.userinfo:
        return False
    return origin(ua) == origin(b)


def is_loopback(host: str) -> bool:
    """`localhost` itself, or a literal loopback address (127.0.0.0/8, ::1, ::ffff:127.x.x.x).

    No other name counts, `*.localhost` included: a name means whatever DNS or /etc/hosts answers,
    so a token sent over plain http to it could go anywhere (G19). `wfctl doctor` uses this too."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def insecure(url: Any, allow_insecure_http: bool) -> bool:
    """True when sending credentials to `url` would put them on the wire in clear text (G19)."""
    scheme, host, _ = origin(url)
    return scheme == "http" and not allow_insecure_http and not is_loopback(host)


def redirect_guard(base_url: str) -> Callable[[httpx.Response], None]:
    """An httpx response hook: httpx follows the service's redirects (its rules for the method, the body and
    the headers), and this refuses one to another origin than `base_url`'s with ForeignOrigin, before httpx
    sends anything there (so no token leaves the origin)."""

    def check(response: httpx.Response) -> None:
        if response.has_redirect_location:
            target = _redirect_url(response.request.url, response.headers["location"])
            if target is not None and not same_origin(target, base_url):
                raise ForeignOrigin(f"the service redirected to {origin_of(target)}, another origin; "
                                    "not followed, no token sent there")

    return check


def _redirect_url(current: httpx.URL, location: str) -> httpx.URL | None:
    """The URL httpx follows a Location to (httpx.Client._redirect_url); None for one it cannot parse, which
    httpx refuses itself (RemoteProtocolError: a network error, nothing sent)."""
    try:
        url = httpx.URL(location)
        if url.scheme and not url.host:  # `https:/path`: httpx keeps the host
            url = url.copy_with(host=current.host)
        return current.join(url) if url.is_relative_url else url
    except (httpx.InvalidURL, ValueError, TypeError):
        return None


@lru_cache(maxsize=64)
def _parse(url: str) -> httpx.URL:
    """URLs given as text, parsed once: the service's base URL is checked against on every request
    and every page (an httpx.URL is immutable, so sharing one is safe)."""
    return httpx.URL(url)
