"""Where a login's token pair is kept: the OS keyring (default) or a 0600 file (chosen explicitly).

Both stores keep one JSON document per profile: the two tokens plus non-secret metadata (user,
service origin, expiry). Both share a cross-process lock file, taken around a refresh so that a
rotated refresh token is never presented twice (see wfctl.api.auth).

Keyring calls run in a worker thread with a bounded wait: a locked keyring that would pop up an
unlock prompt, or a D-Bus service that never answers, ends in CredentialStoreError instead of a hang.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from wfctl.api.errors import CredentialStoreError
from wfctl.api.redact import register_secret

KEYRING_SERVICE = "wfctl"
DEFAULT_ACCESS_TTL = 900.0  # the specification's 15 minutes, when the service tells us nothing (G2)
KEYRING_TIMEOUT = 5.0

T = TypeVar("T")


@dataclass
class TokenPair:
    """An access token, its refresh token and what we know about them. Never printed whole."""

    access_token: str = field(repr=False)
    refresh_token: str | None = field(repr=False, default=None)
    expires_at: float = 0.0  # epoch seconds
    obtained_at: float = 0.0
    username: str | None = None
    base_url: str | None = None

    def __post_init__(self) -> None:
        register_secret(self.access_token)
        register_secret(self.refresh_token)

    @classmethod
    def from_response(cls, body: dict[str, Any], *, username: str | None, base_url: str | None,
                      now: float | None = None) -> TokenPair:
        """Build from a login/refresh answer; expiry from `expiresIn`, a JWT `exp`, or 900 s (G2)."""
        now = time.time() if now is None else now
        access = body.get("accessToken")
        if not isinstance(access, str) or not access:
            raise CredentialStoreError("the service's token answer has no accessToken")
        refresh = body.get("refreshToken") if isinstance(body.get("refreshToken"), str) else None
        expires_at = now + DEFAULT_ACCESS_TTL
        expires_in = body.get("expiresIn")
        jwt_exp = jwt_expiry(access)
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) and expires_in > 0:
            expires_at = now + float(expires_in)
        elif jwt_exp is not None:
            expires_at = jwt_exp
        return cls(access, refresh, expires_at, now, username, base_url)

    def seconds_left(self, now: float | None = None) -> float:
        return self.expires_at - (time.time() if now is None else now)

    def needs_refresh(self, now: float | None = None) -> bool:
        """True when the access token expires within the refresh margin: a fifth of its lifetime,
        at most 60 s (so a 2 s token is refreshed 0.4 s ahead, a 15 min one 60 s ahead)."""
        lifetime = max(self.expires_at - self.obtained_at, 0.0)
        margin = min(60.0, lifetime * 0.2)
        return self.seconds_left(now) <= margin

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> TokenPair:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            raise ValueError("not a token document")
        return cls(data["access_token"], _opt_str(data.get("refresh_token")),
                   float(data.get("expires_at") or 0), float(data.get("obtained_at") or 0),
                   _opt_str(data.get("username")), _opt_str(data.get("base_url")))


def jwt_expiry(token: str) -> float | None:
    """The `exp` claim of a JWT, without verifying it (we only need to know when to refresh)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (ValueError, TypeError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None


class TokenStore(Protocol):
    kind: str  # "keyring" | "file"

    def load(self) -> TokenPair | None: ...

    def save(self, pair: TokenPair) -> None: ...

    def delete(self) -> bool: ...

    def describe(self) -> str: ...

    def lock(self, timeout: float = 60.0) -> contextlib.AbstractContextManager[None]: ...


class _Locking:
    lock_path: Path

    @contextlib.contextmanager
    def lock(self, timeout: float = 60.0) -> Iterator[None]:
        """The cross-process lock of this profile's login (a lock file beside the config)."""
        from filelock import FileLock, Timeout

        self.lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            with FileLock(str(self.lock_path), timeout=timeout):
                yield
        except Timeout:
            raise CredentialStoreError(
                f"another wfctl process has held the login lock {self.lock_path} for {timeout:.0f} s"
            ) from None


class FileStore(_Locking):
    """Tokens in `<config dir>/credentials/<profile>.json`, mode 0600, written atomically."""

    kind = "file"

    def __init__(self, path: Path, lock_path: Path) -> None:
        self.path = path
        self.lock_path = lock_path

    def load(self) -> TokenPair | None:
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CredentialStoreError(f"cannot read token file {self.path}: {exc.strerror}") from None
        try:
            return TokenPair.from_json(text)
        except (ValueError, TypeError):
            raise CredentialStoreError(f"token file {self.path} is damaged; run `wfctl login`") from None

    def save(self, pair: TokenPair) -> None:
        from wfctl.config import write_private_file

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(self.path.parent, 0o700)
        write_private_file(self.path, pair.to_json().encode("utf-8"))

    def delete(self) -> bool:
        try:
            self.path.unlink()
            return True
        except FileNotFoundError:
            return False

    def describe(self) -> str:
        return f"file {self.path} (mode 0600)"


class KeyringStore(_Locking):
    """Tokens in the OS keyring (Secret Service, macOS Keychain, Windows Credential Locker)."""

    kind = "keyring"

    def __init__(self, profile: str, lock_path: Path, *, timeout: float | None = None) -> None:
        self.profile = profile
        self.lock_path = lock_path
        self.timeout = timeout if timeout is not None else _env_float("WFCTL_KEYRING_TIMEOUT", KEYRING_TIMEOUT)

    def check(self) -> str:
        """Raise CredentialStoreError unless a real keyring backend is available and answers (a read of
        this profile's entry, so a locked keyring is found before a password is sent); return its name."""

        def probe() -> str:
            name = _backend_name()
            _keyring().get_password(KEYRING_SERVICE, self.profile)
            return name

        return self._call(probe, "open the keyring")

    def load(self) -> TokenPair | None:
        text = self._call(lambda: _keyring().get_password(KEYRING_SERVICE, self.profile), "read the keyring")
        if text is None:
            return None
        try:
            return TokenPair.from_json(text)
        except (ValueError, TypeError):
            raise CredentialStoreError(
                f"the keyring entry {KEYRING_SERVICE}/{self.profile} is damaged; run `wfctl login`") from None

    def save(self, pair: TokenPair) -> None:
        text = pair.to_json()

        def write_and_read_back() -> bool:
            backend = _keyring()
            backend.set_password(KEYRING_SERVICE, self.profile, text)
            return bool(backend.get_password(KEYRING_SERVICE, self.profile) == text)

        if not self._call(write_and_read_back, "write to the keyring"):
            raise CredentialStoreError(
                "the keyring accepted the tokens but did not keep them (it drops writes); "
                "run `wfctl login --credential-store file` to keep them in a 0600 file instead")

    def delete(self) -> bool:
        def remove() -> bool:
            import keyring.errors

            try:
                _keyring().delete_password(KEYRING_SERVICE, self.profile)
                return True
            except keyring.errors.PasswordDeleteError:
                return False

        return self._call(remove, "remove the tokens from the keyring")

    def describe(self) -> str:
        try:
            name = _backend_name_quick()
        except Exception:
            name = "keyring"
        return f"keyring {name} (service {KEYRING_SERVICE!r}, entry {self.profile!r})"

    def _call(self, fn: Callable[[], T], what: str) -> T:
        """Run a keyring call in a worker thread; give up after `timeout` seconds."""
        result: list[Any] = []
        failure: list[BaseException] = []

        def work() -> None:
            try:
                result.append(fn())
            except BaseException as exc:
                failure.append(exc)

        worker = threading.Thread(target=work, name="wfctl-keyring", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise CredentialStoreError(
                f"the keyring did not answer within {self.timeout:g} s when trying to {what} "
                "(is it locked?); unlock it, or use `wfctl login --credential-store file`")
        if failure:
            exc = failure[0]
            if isinstance(exc, CredentialStoreError):
                raise exc
            raise CredentialStoreError(f"cannot {what}: {_keyring_reason(exc)}") from None
        value: T = result[0]
        return value


def no_keyring_message(reason: str, config_dir: Path) -> str:
    """The login failure when no keyring works and no store was chosen: names both ways out."""
    return (f"no usable keyring ({reason}). Either start and unlock a keyring service "
            "(e.g. gnome-keyring with D-Bus, or set PYTHON_KEYRING_BACKEND), or run "
            f"`wfctl login --credential-store file` to keep the tokens in a 0600 file in {config_dir}")


# -- keyring helpers -----------------------------------------------------------


def _keyring() -> Any:
    import keyring

    return keyring.get_keyring()


def _backend_name() -> str:
    """Name of the active backend; raises CredentialStoreError for a backend that cannot keep secrets."""
    backend = _keyring()
    module = type(backend).__module__
    name = f"{module}.{type(backend).__name__}"
    if module.startswith("keyring.backends.fail"):
        raise CredentialStoreError("no keyring backend is available on this host")
    if module.startswith("keyring.backends.null"):
        raise CredentialStoreError("the keyring backend is the null keyring, which silently drops writes")
    if module.startswith("keyring.backends.chainer"):
        backends = getattr(backend, "backends", [])
        if not backends:
            raise CredentialStoreError("no keyring backend is available on this host")
    return name


def _backend_name_quick() -> str:
    import keyring.core

    backend = keyring.core._keyring_backend
    if backend is None:
        return "keyring"
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _keyring_reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default
