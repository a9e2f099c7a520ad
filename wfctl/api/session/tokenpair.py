"""A login's token pair and what wfctl knows of it (expiry, a refresh in doubt): the value both token
stores (wfctl.api.session.store) keep and the auth flow (wfctl.api.session.auth) refreshes. Never printed whole."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from wfctl.api.errors import CredentialStoreError
from wfctl.api.net.redact import register_secret
from wfctl.api.session.tokenvalues import LATEST_EXPIRY, number, sendable_token, stored_time, usable_lifetime

DEFAULT_ACCESS_TTL = 900.0  # the specification's 15 minutes, when the service tells us nothing (G2)
#: G3: a refresh token presented again within this many seconds of the refresh that spent it, with the same
#: access token and while the new pair is unused, is answered with that pair (the answer of a committed
#: refresh that got lost can be asked for again). 15 minutes: it covers a command riding out an outage of
#: the service (60 s, wfctl.api.net.retry) and the next command, minutes later (docs/auth.md, the trade-off).
REFRESH_GRACE = 900.0
#: wfctl sends a refresh again only this long after it first sent it: the grace window less a margin for
#: the time a request takes to reach the service (one request's timeout and more).
REFRESH_RESEND_WINDOW = REFRESH_GRACE - 60.0


@dataclass
class TokenPair:
    """An access token, its refresh token and what we know about them. Never printed whole."""

    access_token: str = field(repr=False)
    refresh_token: str | None = field(repr=False, default=None)
    expires_at: float = 0.0  # epoch seconds
    obtained_at: float = 0.0
    username: str | None = None
    base_url: str | None = None
    # When a refresh of this pair was sent and its answer has not (yet) been received: the service
    # may have rotated the pair, so its refresh token must not be sent again (0: no refresh in doubt).
    refresh_sent_at: float = 0.0

    def __post_init__(self) -> None:
        register_secret(self.access_token)
        register_secret(self.refresh_token)

    @classmethod
    def from_response(cls, body: dict[str, Any], *, username: str | None, base_url: str | None,
                      now: float | None = None) -> TokenPair:
        """Build from a login/refresh answer received at `now`. Expiry (G2), first that applies:
        `now + expiresIn`; for a JWT with `iat` and `exp`, `now + (exp - iat)` (its lifetime counted
        from receipt, so a local clock that is off does not matter); a JWT `exp` alone, when it is
        still ahead by the local clock; else `now + 900 s`."""
        now = time.time() if now is None else now
        access = body.get("accessToken")
        if not isinstance(access, str) or not access:
            raise CredentialStoreError("the service's token answer has no accessToken")
        refresh = body.get("refreshToken") if isinstance(body.get("refreshToken"), str) else None
        for name, token in (("accessToken", access), ("refreshToken", refresh)):
            if token is not None and not sendable_token(token):
                raise CredentialStoreError(f"the service's token answer holds a token ({name}) that cannot be sent back "
                                           "(a control character, or a character outside ASCII)")
        expires_at = now + DEFAULT_ACCESS_TTL
        claims = jwt_claims(access)
        exp, iat = number(claims.get("exp")), number(claims.get("iat"))
        lifetime = usable_lifetime(body.get("expiresIn"), now)
        if lifetime is not None:
            expires_at = now + lifetime
        elif exp is not None and iat is not None and usable_lifetime(exp - iat, now) is not None:
            expires_at = now + (exp - iat)
        elif exp is not None and usable_lifetime(exp - now, now) is not None:
            expires_at = exp
        return cls(access, refresh, expires_at, now, username, base_url)

    def seconds_left(self, now: float | None = None) -> float:
        return self.expires_at - (time.time() if now is None else now)

    def needs_refresh(self, now: float | None = None) -> bool:
        """True when the access token expires within the refresh margin: a fifth of its lifetime,
        at most 60 s (so a 2 s token is refreshed 0.4 s ahead, a 15 min one 60 s ahead)."""
        lifetime = max(self.expires_at - self.obtained_at, 0.0)
        margin = min(60.0, lifetime * 0.2)
        return self.seconds_left(now) <= margin

    @property
    def refresh_pending(self) -> bool:
        """A refresh of this pair was sent and no answer came back yet (see `refresh_sent_at`)."""
        return self.refresh_sent_at > 0

    def refresh_resendable(self, now: float | None = None) -> bool:
        """Whether that refresh may be sent again: within REFRESH_RESEND_WINDOW of its first try, the
        service answers it again with the same pair (G3); a clock that went back counts as too late."""
        age = (time.time() if now is None else now) - self.refresh_sent_at
        return self.refresh_pending and 0 <= age < REFRESH_RESEND_WINDOW

    @property
    def refresh_in_doubt(self) -> bool:
        """A refresh of this pair got no answer and can no longer be sent again (its grace window has
        passed): the service may have rotated the pair, and only a new login helps."""
        return self.refresh_pending and not self.refresh_resendable()

    def marked_in_doubt(self, now: float | None = None) -> TokenPair:
        """This pair, marked as having a refresh on the way (stored before the refresh is sent)."""
        return replace(self, refresh_sent_at=time.time() if now is None else now)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> TokenPair:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            raise ValueError("not a token document")
        refresh = _opt_str(data.get("refresh_token"))
        if not sendable_token(data["access_token"]) or (refresh is not None and not sendable_token(refresh)):
            raise ValueError("a token that cannot be sent")  # stored by an earlier version
        # A stored expiry past what a date can hold (an earlier version kept `expiresIn: 1e300`): unknown,
        # so the pair is refreshed before use.
        expires_at = stored_time(data.get("expires_at"))
        if expires_at > LATEST_EXPIRY:
            expires_at = 0.0
        return cls(data["access_token"], refresh, expires_at, stored_time(data.get("obtained_at")),
                   _opt_str(data.get("username")), _opt_str(data.get("base_url")),
                   stored_time(data.get("refresh_sent_at")))


def jwt_claims(token: str) -> dict[str, Any]:
    """The claims of a JWT, without verifying it (we only need to know when to refresh); {} when
    the token is not a JWT."""
    parts = token.split(".")
    if len(parts) != 3:
        return {}
    try:
        payload = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (ValueError, TypeError):
        return {}
    return claims if isinstance(claims, dict) else {}


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
