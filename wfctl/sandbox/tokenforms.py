"""The shape of the tokens the sandbox issues: opaque (the default) or JWT-shaped of a chosen size.

A deployment may issue JWT access tokens (G2), and a JWT signed with RS256 carrying a few claims is 1-2 KB,
well past what a Windows Credential Manager entry holds (2,560 bytes of UTF-16). `--token-form jwt
--token-size N` issues tokens of exactly N characters shaped as a JWT: three base64url parts,
`header.payload.signature`, the payload holding `sub`, `iat`, `exp` (the sandbox clock's), `jti` and a
padding claim that brings the token to N. The signature is random bytes: the sandbox keeps and checks
tokens by their SHA-256 as it does opaque ones (auth.py), so no key is needed, and a client must never
rely on verifying them (wfctl reads `exp` only when `expiresIn` is missing).
"""

from __future__ import annotations

import base64
import json
import secrets

FORMS = ("opaque", "jwt")
DEFAULT_JWT_SIZE = 1251  # a modest RS256 access token (issue 47)
#: the smallest JWT-shaped token this module can make (header, the claims, a 32-byte signature)
MIN_JWT_SIZE = 256
MAX_TOKEN_SIZE = 64 * 1024

_HEADER = {"alg": "HS256", "typ": "JWT"}


def opaque_token(kind: str) -> str:
    """An opaque random token: `wsa_...` (access) or `wsr_...` (refresh)."""
    return ("wsa_" + secrets.token_urlsafe(32)) if kind == "access" else ("wsr_" + secrets.token_urlsafe(48))


def jwt_token(kind: str, *, size: int, subject: str, issued_at: float, expires_at: float) -> str:
    """A JWT-shaped token of exactly `size` characters (at least MIN_JWT_SIZE)."""
    if size < MIN_JWT_SIZE:
        raise ValueError(f"a JWT-shaped token needs at least {MIN_JWT_SIZE} characters, not {size}")
    header = _b64(json.dumps(_HEADER, separators=(",", ":")).encode())
    signature = _b64(secrets.token_bytes(32))
    claims = {"sub": subject, "iat": int(issued_at), "exp": int(expires_at), "jti": secrets.token_hex(16),
              "typ": kind, "pad": ""}
    bare = len(_b64(json.dumps(claims, separators=(",", ":")).encode()))
    room = size - len(header) - len(signature) - 2 - bare  # characters the padding claim may take, encoded
    # Base64url makes 4 characters of 3 bytes; pad in whole groups, then trim the signature to the size.
    claims["pad"] = "x" * max(0, (room * 3) // 4)
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    token = f"{header}.{payload}.{signature}"
    while len(token) < size:  # the rounding left a few characters: the signature takes them
        signature += _b64(secrets.token_bytes(3))[: size - len(token)]
        token = f"{header}.{payload}.{signature}"
    return token[:size] if len(token) > size else token


def check_form(form: str, size: int | None) -> None:
    """ValueError for a form or size the sandbox cannot issue."""
    if form not in FORMS:
        raise ValueError(f"unknown token form {form!r} (use {' or '.join(FORMS)})")
    if form == "jwt" and size is not None and not MIN_JWT_SIZE <= size <= MAX_TOKEN_SIZE:
        raise ValueError(f"a JWT-shaped token's size must be {MIN_JWT_SIZE} to {MAX_TOKEN_SIZE} characters")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
