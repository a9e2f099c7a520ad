"""Logins, token pairs and their rotation (G1-G5).

- Passwords: scrypt (hashlib), a random salt per user.
- Tokens are opaque random strings; the database keeps only their SHA-256. A login starts a token
  family; every refresh spends the presented refresh token and issues a new pair in the same family.
- A spent refresh token presented again revokes the whole family (every access and refresh token of
  that login) and is recorded in `security_events`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
import uuid
from dataclasses import dataclass

from wfctl.sandbox.problems import unauthorized
from wfctl.sandbox.store import REUSE_DETECTED, Connection, Store

REFRESH_TTL = 30 * 24 * 3600
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
#: For test suites only: a lower scrypt n (a power of two below 2**14) for new hashes. Each stored hash records
#: its own parameters, and verification reads them from the hash.
TEST_COST_VARIABLE = "WFCTL_SANDBOX_TEST_SCRYPT_N"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: resolved from the access token of each request."""

    user_id: str
    agency_id: str
    role: str
    branch_id: str | None
    family_id: str
    username: str = ""  # for the request log (--log-requests)


# ---- passwords --------------------------------------------------------------------------------


def _cost() -> dict[str, int]:
    value = os.environ.get(TEST_COST_VARIABLE, "")
    n = int(value) if value.isdigit() else 0
    return {**_SCRYPT, "n": n} if 2 <= n < _SCRYPT["n"] and n & (n - 1) == 0 else _SCRYPT


def hash_password(password: str) -> str:
    cost = _cost()
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **cost)
    salt_b64, digest_b64 = base64.b64encode(salt).decode(), base64.b64encode(digest).decode()
    return f"scrypt${cost['n']}${cost['r']}${cost['p']}${salt_b64}${digest_b64}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_b64, digest_b64 = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt_b64), n=int(n), r=int(r),
                            p=int(p), dklen=32)
    return hmac.compare_digest(digest, base64.b64decode(digest_b64))


_DUMMY_HASH = ""


def dummy_hash() -> str:
    """A hash to verify against when the user does not exist (same cost, no user enumeration)."""
    global _DUMMY_HASH
    if not _DUMMY_HASH:
        _DUMMY_HASH = hash_password(secrets.token_hex(8))
    return _DUMMY_HASH


# ---- tokens -----------------------------------------------------------------------------------


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Tokens:
    def __init__(self, store: Store, access_ttl: int) -> None:
        self.store = store
        self.access_ttl = access_ttl

    def find_user(self, username: str) -> tuple[str, str] | None:
        """(user id, password hash) of a login name (case-insensitive), or None."""
        row = self.store.db.execute("SELECT id, password_hash FROM users WHERE username = ?",
                                    (username.strip().lower(),)).fetchone()
        return (row[0], row[1]) if row else None

    def login(self, user_id: str) -> dict[str, object]:
        """Start a new token family for a verified user; the first pair."""
        now = time.time()
        family_id = str(uuid.uuid4())
        with self.store.transaction() as db:
            db.execute("INSERT INTO token_families (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                       (family_id, user_id, now, now + REFRESH_TTL))
            return self._issue(db, family_id, now)

    def refresh(self, access_token: str, refresh_token: str) -> dict[str, object]:
        """Rotate: spend the refresh token, issue a new pair. Reuse revokes the family (G3)."""
        now = time.time()
        reused = False
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT r.family_id, r.spent, f.revoked, f.expires_at, f.user_id FROM refresh_tokens r "
                "JOIN token_families f ON f.id = r.family_id WHERE r.token_hash = ?" + self.store.for_update,
                (token_hash(refresh_token),)).fetchone()
            if row is None:
                raise unauthorized("the refresh token is not valid; log in again")
            family_id, spent, revoked, expires_at, user_id = row
            if revoked:
                raise unauthorized("this login has been revoked; log in again")
            if spent:
                db.execute("UPDATE token_families SET revoked = 1 WHERE id = ?", (family_id,))
                db.execute("DELETE FROM access_tokens WHERE family_id = ?", (family_id,))
                db.execute("INSERT INTO security_events (kind, user_id, family_id, at) VALUES (?, ?, ?, ?)",
                           (REUSE_DETECTED, user_id, family_id, _iso(now)))
                reused = True
            elif expires_at <= now:
                raise unauthorized("the refresh token has expired; log in again")
            else:
                access = db.execute("SELECT family_id FROM access_tokens WHERE token_hash = ?",
                                    (token_hash(access_token),)).fetchone()
                if access is None or access[0] != family_id:
                    raise unauthorized("the access token does not belong to this refresh token")
                db.execute("UPDATE refresh_tokens SET spent = 1 WHERE token_hash = ?",
                           (token_hash(refresh_token),))
                return self._issue(db, family_id, now)
        # Committed outside the `with` so the revocation is stored before we answer 401.
        assert reused
        raise unauthorized("this refresh token was already used; every token of this login is revoked")

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller of a protected endpoint, from `Authorization: Bearer <token>`, or a 401."""
        if not authorization:
            raise unauthorized("an Authorization: Bearer <access token> header is required")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise unauthorized("the Authorization header must be 'Bearer <access token>'")
        row = self.store.db.execute(
            "SELECT u.id, u.agency_id, u.role, u.branch_id, a.family_id, a.expires_at, f.revoked, u.username "
            "FROM access_tokens a JOIN token_families f ON f.id = a.family_id "
            "JOIN users u ON u.id = f.user_id WHERE a.token_hash = ?",
            (token_hash(token),)).fetchone()
        if row is None or row[6]:
            raise unauthorized("the access token is not valid")
        if row[5] <= time.time():
            raise unauthorized("the access token has expired")
        return Principal(row[0], row[1], row[2], row[3], row[4], row[7])

    def _issue(self, db: Connection, family_id: str, now: float) -> dict[str, object]:
        access = "wsa_" + secrets.token_urlsafe(32)
        refresh = "wsr_" + secrets.token_urlsafe(48)
        db.execute("INSERT INTO access_tokens (token_hash, family_id, expires_at) VALUES (?, ?, ?)",
                   (token_hash(access), family_id, now + self.access_ttl))
        db.execute("INSERT INTO refresh_tokens (token_hash, family_id, created_at) VALUES (?, ?, ?)",
                   (token_hash(refresh), family_id, now))
        return {"accessToken": access, "refreshToken": refresh, "tokenType": "Bearer",
                "expiresIn": self.access_ttl}


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))

