"""The sandbox's accounts: the logins a team manages (`wfctl sandbox users|agencies`, issue 16 §2) and the
throttle on failed logins (§3).

Everything here works on a Store through `store.db.execute` with `?` placeholders and portable SQL, so it
works on the database of a running server (another process) as well as on one no server uses. Removing
a user or changing a password revokes the user's logins in the same transaction: every server on the
database reads the tokens from it on each request, so the old tokens are refused at once.

The throttle keeps failed logins in `login_failures`, in the database, so it holds across every server
process on one database. Only stdlib is imported at the top: schema.py adds SCHEMA to its own.
"""

from __future__ import annotations

import math
import uuid
from typing import TYPE_CHECKING, Any

from wfctl.sandbox.clock import Clock
from wfctl.sandbox.names import name_key

if TYPE_CHECKING:
    from wfctl.sandbox.storebase import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS login_failures (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures(scope, key, at);
CREATE INDEX IF NOT EXISTS login_failures_at ON login_failures(at);
"""

ROLES = ("admin", "manager", "staff")
#: Failed logins per user name, and per client address, that lock further logins ...
LOGIN_FAILURE_LIMIT = 10
#: ... while they are within this many seconds.
LOGIN_FAILURE_WINDOW = 15 * 60
MIN_PASSWORD_LENGTH = 8
_NAME_MAX = 200


class AccountError(Exception):
    """A change refused: `kind` is "not_found", "conflict" or "invalid"; the message is one line."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


# ---- users ------------------------------------------------------------------------------------


def add_user(store: Store, username: str, password: str, *, agency: str, role: str,
             branch: str | None = None) -> dict[str, Any]:
    """Create a login. `agency` and `branch` are an id or a name; a branch binds a staff login to it."""
    username = _username(username)
    if role not in ROLES:
        raise AccountError(f"role {role!r} is not one of {', '.join(ROLES)}", "invalid")
    if branch is not None and role != "staff":
        raise AccountError("only a staff login is bound to a branch: leave out --branch", "invalid")
    password_hash = _hash(password)  # scrypt before the write lock is taken
    with store.transaction() as db:
        agency_id, agency_name = _agency(db, agency)
        branch_id, branch_name = _branch(db, agency_id, agency_name, branch) if branch is not None else (None, "")
        if db.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone():
            raise AccountError(f"a user named {username!r} already exists", "conflict")
        user_id = str(uuid.uuid4())
        db.execute("INSERT INTO users (id, agency_id, username, password_hash, role, branch_id) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (user_id, agency_id, username, password_hash, role, branch_id))
    return {"username": username, "role": role, "agency": agency_name, "branch": branch_name, "id": user_id,
            "agencyId": agency_id, "branchId": branch_id}


def list_users(store: Store, agency: str | None = None) -> list[dict[str, Any]]:
    """Every login (of one agency), by agency name then user name; no password hashes."""
    sql = ("SELECT u.username, u.role, a.name, b.name, u.id, u.agency_id, u.branch_id FROM users u "
           "JOIN agencies a ON a.id = u.agency_id LEFT JOIN branches b ON b.id = u.branch_id")
    args: tuple[Any, ...] = ()
    if agency is not None:
        sql += " WHERE u.agency_id = ?"
        args = (_agency(store.db, agency)[0],)
    rows = store.db.execute(sql, args).fetchall()
    users = [{"username": r[0], "role": r[1], "agency": r[2], "branch": r[3] or "", "id": r[4],
              "agencyId": r[5], "branchId": r[6]} for r in rows]
    return sorted(users, key=lambda user: (user["agency"].casefold(), user["username"]))


def set_password(store: Store, username: str, password: str) -> int:
    """Change a login's password; its token families are revoked (every device logs in again).
    Returns how many logins were revoked."""
    username = _username(username)
    password_hash = _hash(password)
    with store.transaction() as db:
        user_id = _user_id(db, username)
        db.execute("UPDATE users SET password_hash = ? WHERE id = ?", (password_hash, user_id))
        return revoke_logins(db, user_id)


def remove_user(store: Store, username: str) -> int:
    """Delete a login with its tokens (its logins end at once; the name may be added again).
    Returns how many logins were revoked."""
    username = _username(username)
    with store.transaction() as db:
        user_id = _user_id(db, username)
        revoked = revoke_logins(db, user_id)
        families = "SELECT id FROM token_families WHERE user_id = ?"
        db.execute(f"DELETE FROM refresh_tokens WHERE family_id IN ({families})", (user_id,))
        db.execute("DELETE FROM token_families WHERE user_id = ?", (user_id,))
        db.execute("DELETE FROM idempotency_keys WHERE user_id = ?", (user_id,))
        db.execute("DELETE FROM users WHERE id = ?", (user_id,))
        return revoked


def revoke_logins(db: Any, user_id: str) -> int:
    """Inside a transaction: revoke every live token family of a user and drop its access tokens.
    Returns how many families were live."""
    live = db.execute("SELECT count(*) FROM token_families WHERE user_id = ? AND revoked = 0",
                      (user_id,)).fetchone()[0]
    db.execute("UPDATE token_families SET revoked = 1 WHERE user_id = ?", (user_id,))
    db.execute("DELETE FROM access_tokens WHERE family_id IN (SELECT id FROM token_families WHERE user_id = ?)",
               (user_id,))
    return int(live)


# ---- agencies ---------------------------------------------------------------------------------


def add_agency(store: Store, name: str, *, email: str = "", phone: str = "", clock: Clock | None = None
               ) -> dict[str, Any]:
    """Create an agency (a tenant); its year starts are 1 January of this year (`clock`'s), as the seed's."""
    from wfctl.sandbox.validation import EMAIL_RE

    name, email, phone = name.strip(), email.strip(), phone.strip()
    if not name or len(name) > _NAME_MAX:
        raise AccountError(f"an agency name must be 1-{_NAME_MAX} characters", "invalid")
    if email and not EMAIL_RE.fullmatch(email):
        raise AccountError(f"--email {email!r} is not an e-mail address", "invalid")
    if len(email) > _NAME_MAX or len(phone) > _NAME_MAX:
        raise AccountError(f"--email and --phone must be at most {_NAME_MAX} characters", "invalid")
    year_start = (clock or Clock()).iso()[:4] + "-01-01"
    agency_id = str(uuid.uuid4())
    with store.transaction() as db:
        store.serialize(db)  # PostgreSQL: one agency add at a time, so the name check below holds
        if any(name_key(row[0]) == name_key(name) for row in db.execute("SELECT name FROM agencies").fetchall()):
            raise AccountError(f"an agency named {name!r} already exists", "conflict")
        db.execute("INSERT INTO agencies (id, name, email, phone, calendar_year_start, holiday_year_start) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (agency_id, name, email, phone, year_start, year_start))
    return {"id": agency_id, "name": name, "email": email, "phone": phone, "users": 0}


def find_agency(store: Store, ref: str) -> tuple[str, str]:
    """(id, name) of the agency `ref` names: its id, or its name in any case."""
    return _agency(store.db, ref)


def list_agencies(store: Store) -> list[dict[str, Any]]:
    rows = store.db.execute(
        "SELECT a.id, a.name, a.email, a.phone, (SELECT count(*) FROM users u WHERE u.agency_id = a.id) "
        "FROM agencies a").fetchall()
    agencies = [{"id": r[0], "name": r[1], "email": r[2], "phone": r[3], "users": int(r[4])} for r in rows]
    return sorted(agencies, key=lambda agency: agency["name"].casefold())


# ---- the login throttle -----------------------------------------------------------------------


class LoginThrottle:
    """Failed logins per user name (case-folded, whether or not it exists) and per client address.

    `limit` failures of either within `window` seconds lock logins of that name, or from that address,
    until the oldest of them leaves the window. An attempt while locked is not counted (it was never
    checked), so the lock ends when Retry-After says. A success clears its user name's failures, never
    an address's."""

    def __init__(self, store: Store, limit: int = LOGIN_FAILURE_LIMIT, window: float = LOGIN_FAILURE_WINDOW,
                 clock: Clock | None = None) -> None:
        self.store = store
        self.limit = limit
        self.window = window
        self.clock = clock or Clock()

    def locked_for(self, username: str, address: str, now: float | None = None) -> int:
        """Seconds until a login of `username` from `address` may be tried again; 0 when it may now."""
        now = self.clock.time() if now is None else now
        wait = 0.0
        for scope, key in _keys(username, address):
            rows = self.store.db.execute(
                "SELECT at FROM login_failures WHERE scope = ? AND key = ? AND at > ? ORDER BY at DESC LIMIT ?",
                (scope, key, now - self.window, self.limit)).fetchall()
            if len(rows) >= self.limit:  # unlocked once the limit-th newest failure leaves the window
                wait = max(wait, rows[-1][0] + self.window - now)
        return max(1, math.ceil(wait)) if wait > 0 else 0

    def failed(self, username: str, address: str, now: float | None = None) -> None:
        now = self.clock.time() if now is None else now
        def record(db: Any) -> None:
            for scope, key in _keys(username, address):
                db.execute("INSERT INTO login_failures (scope, key, at) VALUES (?, ?, ?)", (scope, key, now))
            db.execute("DELETE FROM login_failures WHERE at <= ?", (now - self.window,))

        self.store.atomic(record)

    def succeeded(self, username: str) -> None:
        with self.store.statement() as db:
            db.execute("DELETE FROM login_failures WHERE scope = 'user' AND key = ?", (_user_key(username),))


# ---- private helpers --------------------------------------------------------------------------


def _keys(username: str, address: str) -> list[tuple[str, str]]:
    return [("user", _user_key(username)), ("address", address)]


def _user_key(username: str) -> str:
    return username.strip().casefold()


def _username(username: str) -> str:
    """As the login finds it: trimmed and lower case."""
    username = username.strip().lower()
    if not username or len(username) > _NAME_MAX:
        raise AccountError(f"a user name must be 1-{_NAME_MAX} characters", "invalid")
    if any(not ch.isprintable() or ch.isspace() for ch in username):
        raise AccountError("a user name has no spaces or control characters", "invalid")
    return username


def _hash(password: str) -> str:
    from wfctl.sandbox.auth import hash_password

    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"the password must be at least {MIN_PASSWORD_LENGTH} characters", "invalid")
    if len(password) > 1000:  # what the login accepts (validation.secret)
        raise AccountError("the password must be at most 1000 characters", "invalid")
    return hash_password(password)


def _user_id(db: Any, username: str) -> str:
    row = db.execute("SELECT id FROM users WHERE username = ?", (username,)).fetchone()
    if row is None:
        raise AccountError(f"no user named {username!r}", "not_found")
    return str(row[0])


def _agency(db: Any, ref: str) -> tuple[str, str]:
    """(id, name) of the agency `ref` names: its id, or its name as G12 compares names (store.name_key)."""
    rows = db.execute("SELECT id, name FROM agencies").fetchall()
    match = next((row for row in rows if row[0] == ref.strip()), None) or next(
        (row for row in rows if name_key(row[1]) == name_key(ref)), None)
    if match is None:
        raise AccountError(f"no agency {ref!r} (see wfctl sandbox agencies list)", "not_found")
    return str(match[0]), str(match[1])


def _branch(db: Any, agency_id: str, agency_name: str, ref: str) -> tuple[str, str]:
    """(id, name) of a branch of the agency: its id, or its name as G12 compares names (store.name_key)."""
    row = db.execute("SELECT id, name FROM branches WHERE agency_id = ? AND (id = ? OR name_key = ?)",
                     (agency_id, ref.strip(), name_key(ref))).fetchone()
    if row is None:
        raise AccountError(f"no branch {ref!r} in {agency_name}", "not_found")
    return str(row[0]), str(row[1])
