"""Logins, token pairs and their rotation (G1-G5).

- Passwords: scrypt (hashlib), a random salt per user.
- Tokens are opaque random strings, or JWT-shaped ones of a chosen size (`--token-form jwt`, tokenforms.py);
  either way the database keeps only their SHA-256. A login starts a token
  family; every refresh spends the presented refresh token and issues a new pair in the same family.
- A spent refresh token presented again revokes the whole family (every access and refresh token of
  that login) and is recorded in `security_events`; except within the grace window (REFRESH_GRACE seconds
  after it was spent, with the same access token, while the pair it was exchanged for is still unused):
  that is a client whose answer was lost, and it gets that same pair again (RFC 9700 4.14.2 allows it;
  Auth0 calls it the reuse interval). The pair is kept for it in `refresh_tokens.replay`, encrypted with
  AES-256-GCM (`cryptography`, no home-made cipher) under a key derived from the spent refresh token itself
  (which the database does not hold), and dropped once the new refresh token is used or the window has passed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any

from wfctl.sandbox.behaviour import Behaviour, Played
from wfctl.sandbox.clock import Clock
from wfctl.sandbox.problems import unauthorized
from wfctl.sandbox.storebase import REFRESH_GRACE, REUSE_DETECTED, Connection, Store

REFRESH_TTL = 30 * 24 * 3600
# REFRESH_GRACE (storebase.py): the G3 grace window, which the store's purge also keeps to.
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
    """The token families of one store. Times are the sandbox's clock (clock.py); an access token's lifetime
    is the behaviour's when it is issued (behaviour.py), so a change applies to the next pair."""

    def __init__(self, store: Store, behaviour: Behaviour | None = None, clock: Clock | None = None) -> None:
        self.store = store
        self.behaviour = behaviour or Behaviour()
        self.clock = clock or Clock()

    @property
    def access_ttl(self) -> int:
        return self.behaviour.access_ttl

    def find_user(self, username: str) -> tuple[str, str] | None:
        """(user id, password hash) of a login name (case-insensitive), or None."""
        row = self.store.db.execute("SELECT id, password_hash FROM users WHERE username = ?",
                                    (username.strip().lower(),)).fetchone()
        return (row[0], row[1]) if row else None

    def login(self, user_id: str) -> dict[str, object]:
        """Start a new token family for a verified user; the first pair."""
        now = self.clock.time()
        family_id = str(uuid.uuid4())

        def start(db: Connection) -> dict[str, object]:
            db.execute("INSERT INTO token_families (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                       (family_id, user_id, now, now + REFRESH_TTL))
            return self._issue(db, family_id, now, None)

        return self.store.atomic(start)

    def refresh(self, access_token: str, refresh_token: str) -> dict[str, object]:
        """Rotate: spend the refresh token, issue a new pair. Reuse revokes the family (G3), except within
        the grace window (the module's docstring)."""
        now = self.clock.time()
        presented, access_hash = token_hash(refresh_token), token_hash(access_token)

        def rotate(db: Connection) -> dict[str, object] | None:
            row = db.execute(
                "SELECT r.family_id, r.spent, f.revoked, f.expires_at, f.user_id, r.spent_at, r.presented_access, "
                "r.replay, r.parent_hash FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id "
                "WHERE r.token_hash = ?" + self.store.for_update, (presented,)).fetchone()
            if row is None:
                raise unauthorized("the refresh token is not valid; log in again")
            family_id, spent, revoked, expires_at, user_id, spent_at, presented_access, replay, parent = row
            if revoked:
                raise unauthorized("this login has been revoked; log in again")
            if spent:
                if (replay is not None and spent_at is not None and now - spent_at < REFRESH_GRACE
                        and presented_access is not None and hmac.compare_digest(presented_access, access_hash)):
                    answer = _unseal(refresh_token, bytes(replay))
                    if answer is not None:
                        return answer  # the same pair as the first time: its answer was lost
                db.execute("UPDATE token_families SET revoked = 1 WHERE id = ?", (family_id,))
                db.execute("DELETE FROM access_tokens WHERE family_id = ?", (family_id,))
                db.execute("INSERT INTO security_events (kind, user_id, family_id, at) VALUES (?, ?, ?, ?)",
                           (REUSE_DETECTED, user_id, family_id, _iso(now)))
                return None  # committed, so the revocation is stored before the 401
            if expires_at <= now:
                raise unauthorized("the refresh token has expired; log in again")
            access = db.execute("SELECT family_id FROM access_tokens WHERE token_hash = ?",
                                (access_hash,)).fetchone()
            if access is None or access[0] != family_id:
                raise unauthorized("the access token does not belong to this refresh token")
            if parent is not None:  # this token's answer arrived: its predecessor's is of no more use
                db.execute("UPDATE refresh_tokens SET replay = NULL WHERE token_hash = ?", (parent,))
            pair = self._issue(db, family_id, now, presented)
            db.execute("UPDATE refresh_tokens SET spent = 1, spent_at = ?, presented_access = ?, replay = ? "
                       "WHERE token_hash = ?", (now, access_hash, _seal(refresh_token, pair), presented))
            return pair

        answer = self.store.atomic(rotate)
        if answer is None:
            raise unauthorized("this refresh token was already used; every token of this login is revoked")
        return answer

    def logout(self, refresh_token: str) -> None:
        """G22: revoke the whole family of `refresh_token` (every access and refresh token of that login). An
        unknown token changes nothing, and the caller is not told which it was."""
        presented = token_hash(refresh_token)

        def revoke(db: Connection) -> None:
            row = db.execute("SELECT family_id FROM refresh_tokens WHERE token_hash = ?", (presented,)).fetchone()
            if row is not None:
                db.execute("UPDATE token_families SET revoked = 1 WHERE id = ?", (row[0],))
                db.execute("DELETE FROM access_tokens WHERE family_id = ?", (row[0],))

        self.store.atomic(revoke)

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
        if row[5] <= self.clock.time():
            raise unauthorized("the access token has expired")
        return Principal(row[0], row[1], row[2], row[3], row[4], row[7])

    def _issue(self, db: Connection, family_id: str, now: float, parent: str | None) -> dict[str, object]:
        played = self.behaviour.now  # read once: the stored expiry, the answer's expiresIn and the form agree
        ttl = played.access_ttl
        access, refresh = _new_tokens(db, played, family_id, now)
        db.execute("INSERT INTO access_tokens (token_hash, family_id, expires_at) VALUES (?, ?, ?)",
                   (token_hash(access), family_id, now + ttl))
        db.execute("INSERT INTO refresh_tokens (token_hash, family_id, created_at, parent_hash) VALUES (?, ?, ?, ?)",
                   (token_hash(refresh), family_id, now, parent))
        return {"accessToken": access, "refreshToken": refresh, "tokenType": "Bearer",
                "expiresIn": ttl}


def _new_tokens(db: Connection, played: Played, family_id: str, now: float) -> tuple[str, str]:
    """A new (access, refresh) pair in the form the behaviour plays (tokenforms.py)."""
    from wfctl.sandbox import tokenforms

    if played.token_form != "jwt":
        return tokenforms.opaque_token("access"), tokenforms.opaque_token("refresh")
    row = db.execute("SELECT user_id FROM token_families WHERE id = ?", (family_id,)).fetchone()
    subject = str(row[0]) if row else family_id
    return (tokenforms.jwt_token("access", size=played.token_size, subject=subject, issued_at=now,
                                 expires_at=now + played.access_ttl),
            tokenforms.jwt_token("refresh", size=played.token_size, subject=subject, issued_at=now,
                                 expires_at=now + REFRESH_TTL))


def _replay_key(refresh_token: str) -> bytes:
    """The key that seals the answer to a refresh: only a holder of the spent refresh token can derive it
    (the database keeps the token's plain SHA-256, a different digest)."""
    return hashlib.sha256(b"wfctl-sandbox refresh replay\n" + refresh_token.encode("utf-8", "surrogatepass")).digest()


def _seal(refresh_token: str, answer: dict[str, object]) -> bytes:
    """The answer encrypted and authenticated: AES-256-GCM, a random 96-bit nonce in front."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = secrets.token_bytes(_NONCE)
    return nonce + AESGCM(_replay_key(refresh_token)).encrypt(nonce, json.dumps(answer, separators=(",", ":")).encode(),
                                                              _REPLAY_CONTEXT)


def _unseal(refresh_token: str, box: bytes) -> dict[str, Any] | None:
    """The answer `_seal` sealed, or None when it was not sealed under this token (or not by this version)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        plain = AESGCM(_replay_key(refresh_token)).decrypt(box[:_NONCE], box[_NONCE:], _REPLAY_CONTEXT)
    except (InvalidTag, ValueError):
        return None
    answer: dict[str, Any] = json.loads(plain)
    return answer


_NONCE = 12
_REPLAY_CONTEXT = b"wfctl-sandbox refresh replay"


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))

