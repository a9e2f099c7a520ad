"""What a login or refresh answer may hold for wfctl to keep it (G2): a token that can be sent back as it
came, and an expiry a date can hold. The token store (store.py) reads answers and its own files through
these, so a login, a refresh and every later read agree."""

from __future__ import annotations

import math
from typing import Any

#: The latest expiry a date can hold (9999-12-31T23:59:59Z): `expiresIn: 1e300` names no moment at all
#: (`auth status` could not print it), so the next rule of G2 applies instead.
LATEST_EXPIRY = 253402300799.0


def sendable_token(token: str) -> bool:
    """Whether `token` can go back to the service as it came: in an Authorization header (the access
    token) or a JSON body (the refresh token). A CR or LF would end the header early (httpx refuses to
    send it, which looked like "cannot reach"); non-ASCII cannot be written into a header at all."""
    return bool(token) and token.isascii() and token.isprintable()


def usable_lifetime(value: Any, now: float) -> float | None:
    """A token lifetime in seconds from an answer received at `now` (G2): a finite number above 0 that
    ends by LATEST_EXPIRY; else None."""
    seconds = number(value)
    return seconds if seconds is not None and seconds > 0 and now + seconds <= LATEST_EXPIRY else None


def stored_time(value: Any) -> float:
    """A stored moment (epoch seconds); 0 (none) when it is missing or not a finite number."""
    try:
        moment = float(value or 0)
    except (TypeError, ValueError):
        return 0.0
    return moment if math.isfinite(moment) else 0.0


def number(value: Any) -> float | None:
    """A finite JSON number as float (not a bool, not inf/nan), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    given = float(value)
    return given if math.isfinite(given) else None
