"""Origins (scheme, host, port) and the plain-http guard (G8, G19)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

import httpx

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


@lru_cache(maxsize=64)
def _parse(url: str) -> httpx.URL:
    """URLs given as text, parsed once: the service's base URL is checked against on every request
    and every page (an httpx.URL is immutable, so sharing one is safe)."""
    return httpx.URL(url)
