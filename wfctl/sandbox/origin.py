"""The origin the sandbox writes into an absolute link (`nextPage`, G8) and a redirect's `Location`.

The request's Host header names it only when that names this server: the address and port the connection
came in on, or, on a loopback address, `localhost` or any loopback address at that port (what a client on
this machine may call it). Any other Host (`evil.test`, another port) gets a relative link instead, which
every client resolves against the origin it asked: a Host header never makes the server point elsewhere.
"""

from __future__ import annotations

import ipaddress
from collections.abc import MutableMapping
from typing import Any


def link_origin(scope: MutableMapping[str, Any]) -> str:
    """`scheme://host:port` of this request when its Host names this server, else "" (a relative link)."""
    server = scope.get("server")
    given = next((value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"host"), "")
    if not server or not given:
        return ""
    scheme = scope.get("scheme", "http")
    host, port = _split(given.strip().lower(), 443 if scheme == "https" else 80)
    local = str(server[0]).lower()
    if host is None or port != server[1]:
        return ""
    if host == local or (_loopback(local) and _loopback(host)):
        return f"{scheme}://{given.strip()}"
    return ""


def _split(host_port: str, default_port: int) -> tuple[str | None, int | None]:
    if host_port.startswith("["):  # [::1]:8765
        host, _, rest = host_port[1:].partition("]")
        port_text = rest.removeprefix(":") if rest.startswith(":") else ("" if not rest else None)
    else:
        host, _, port_text = host_port.partition(":")
    if port_text is None or (port_text and not (port_text.isascii() and port_text.isdigit())):
        return None, None
    return host, int(port_text) if port_text else default_port


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))
