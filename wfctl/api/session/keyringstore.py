"""The OS keyring's token store (Secret Service, macOS Keychain, Windows Credential Locker): one JSON document
a login in the entry `<profile>@<service origin>` under the service `wfctl`, read and written in a worker
thread with a bounded wait, and the keyring backends named as a person knows them.

The store's protocol, its lock and the file store: wfctl.api.session.store.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from wfctl.api.errors import CredentialStoreError, NotLoggedIn
from wfctl.api.session.store import _Locking
from wfctl.api.session.tokenpair import TokenPair

KEYRING_SERVICE = "wfctl"
KEYRING_TIMEOUT = 5.0

T = TypeVar("T")


def keyring_entry(profile: str, origin: str) -> str:
    """The keyring entry (the "username" under the service `wfctl`) of a login: `<profile>@<origin>`.
    One-to-one: an origin never holds `@`, so the last `@` splits it again."""
    return f"{profile}@{origin}"


class KeyringStore(_Locking):
    """Tokens in the OS keyring (Secret Service, macOS Keychain, Windows Credential Locker), in the
    entry `entry` under the service `wfctl`.

    `legacy_entry`: the entry earlier wfctl versions used for this login (the profile name alone). When
    `entry` is empty it is read instead, if it is a login to `origin` (or says nothing of its
    origin); writing the pair moves it to `entry` and removes the old one."""

    kind = "keyring"

    def __init__(self, entry: str, lock_path: Path, *, legacy_entry: str | None = None,
                 origin: str | None = None, timeout: float | None = None, profile: str | None = None) -> None:
        self.entry = entry
        self.profile = profile  # for messages only
        self.lock_path = lock_path
        self.legacy_entry = legacy_entry if legacy_entry != entry else None
        self.origin = origin
        self.timeout = timeout if timeout is not None else _env_float("WFCTL_KEYRING_TIMEOUT", KEYRING_TIMEOUT)
        self._legacy_settled = False  # the old entry was looked at once on a write: nothing more to do

    def check(self) -> str:
        """Raise CredentialStoreError unless a real keyring backend is available and answers (a read of
        this login's entry, so a locked keyring is found before a password is sent); return its name."""

        def probe() -> str:
            name = _backend_name()
            _keyring().get_password(KEYRING_SERVICE, self.entry)
            return name

        return self._call(probe, "open the keyring")

    def load(self) -> TokenPair | None:
        def read() -> tuple[str, str | None]:
            backend = _keyring()
            if _no_backend(backend):  # nothing can have been kept here: say so, not keyring's NoKeyringError
                who = f" (profile {self.profile!r})" if self.profile else ""
                raise NotLoggedIn(f"not logged in{who}: this host has no keyring, where `wfctl login` keeps "
                                  "a login by default; run `wfctl login --credential-store file` (the "
                                  "tokens in a 0600 file), or set WFCTL_ACCESS_TOKEN")
            from wfctl.api.session import keyringsplit

            try:
                text = keyringsplit.read(backend, KEYRING_SERVICE, self.entry)
            except keyringsplit.Damaged:
                raise CredentialStoreError(f"the keyring entry {KEYRING_SERVICE}/{self.entry} is damaged (a part "
                                           "of it is missing); run `wfctl login`") from None
            if text is None and self.legacy_entry:
                return self.legacy_entry, backend.get_password(KEYRING_SERVICE, self.legacy_entry)
            return self.entry, text

        entry, text = self._call(read, "read the keyring")
        if text is None:
            return None
        try:
            pair = TokenPair.from_json(text)
        except (ValueError, TypeError):
            raise CredentialStoreError(
                f"the keyring entry {KEYRING_SERVICE}/{entry} is damaged; run `wfctl login`") from None
        if entry != self.entry and not self._ours(pair):
            return None  # the old entry of this profile name holds a login to another service
        return pair

    def save(self, pair: TokenPair) -> None:
        text = pair.to_json()

        def write_and_read_back() -> bool:
            from wfctl.api.session import keyringsplit

            backend = _keyring()
            keyringsplit.write(backend, KEYRING_SERVICE, self.entry, text, label=self._label())
            try:
                kept = keyringsplit.read(backend, KEYRING_SERVICE, self.entry) == text
            except keyringsplit.Damaged:
                kept = False
            if kept and self.legacy_entry:
                self._remove_legacy(backend)
            return kept

        if not self._call(write_and_read_back, "write to the keyring"):
            raise CredentialStoreError(
                "the keyring accepted the tokens but did not keep them (it drops writes); "
                "run `wfctl login --credential-store file` to keep them in a 0600 file instead")

    def delete(self) -> bool:
        def remove() -> bool:
            from wfctl.api.session import keyringsplit

            backend = _keyring()
            if _no_backend(backend):  # nothing can have been kept here (not keyring's NoKeyringError)
                return False
            removed = keyringsplit.remove(backend, KEYRING_SERVICE, self.entry)
            return self._remove_legacy(backend) or removed

        return self._call(remove, "remove the tokens from the keyring")

    def describe(self) -> str:
        """Where the tokens are, in a person's words (the login line): the desktop's store, not a class path."""
        return f"{self._label()}, entry {self.entry!r} of service {KEYRING_SERVICE!r}"

    def protection(self) -> str:
        """How the keyring keeps the tokens from others, as its platform does."""
        label = self._label()
        for prefix, words in _PROTECTION:
            if label.startswith(prefix):
                return words
        return "as the keyring backend keeps its secrets"

    def _label(self) -> str:
        try:
            name = _backend_name_quick()
        except Exception:
            name = "keyring"
        return _backend_label(name)

    def location(self) -> str:
        """The keyring backend and the entry the tokens are kept in."""
        try:
            name = _backend_name_quick()
        except Exception:
            name = "keyring"
        return f"{name} (service {KEYRING_SERVICE!r}, entry {self.entry!r})"

    def _ours(self, pair: TokenPair) -> bool:
        """Whether a pair found in the old entry is a login to this store's origin."""
        if not pair.base_url or not self.origin:
            return True
        from wfctl.api.net.origin import origin_of

        try:
            return origin_of(pair.base_url) == self.origin
        except Exception:
            return False

    def _remove_legacy(self, backend: Any) -> bool:
        """Remove the old entry when it holds this login (in the keyring worker thread)."""
        import keyring.errors

        if not self.legacy_entry or self._legacy_settled:
            return False
        text = backend.get_password(KEYRING_SERVICE, self.legacy_entry)
        self._legacy_settled = True
        if text is None:
            return False
        try:
            ours = self._ours(TokenPair.from_json(text))
        except (ValueError, TypeError):
            ours = False
        if not ours:
            return False
        try:
            backend.delete_password(KEYRING_SERVICE, self.legacy_entry)
        except keyring.errors.PasswordDeleteError:
            return False
        return True

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
            if isinstance(exc, CredentialStoreError | NotLoggedIn):
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


def _no_backend(backend: Any) -> bool:
    """Whether `backend` is keyring's stand-in for "no keyring on this host" (it raises NoKeyringError)."""
    module = type(backend).__module__
    return module.startswith("keyring.backends.fail") or (
        module.startswith("keyring.backends.chainer") and not getattr(backend, "backends", [1]))


def _backend_name_quick() -> str:
    import keyring.core  # noqa: F401 - loaded, so that its chosen backend (if any) can be asked for

    from wfctl.api.compat import keyring_backend_loaded

    backend = keyring_backend_loaded()
    if backend is None:
        return "keyring"
    return f"{type(backend).__module__}.{type(backend).__name__}"


#: the keyring backends a person knows by their desktop's name (module prefix -> name)
_DESKTOP_STORES = (
    ("keyring.backends.SecretService", "the Secret Service keyring (GNOME Keyring, KWallet)"),
    ("keyring.backends.libsecret", "the Secret Service keyring (libsecret)"),
    ("keyring.backends.kwallet", "KWallet"),
    ("keyring.backends.macOS", "the macOS Keychain"),
    ("keyring.backends.Windows", "Windows Credential Manager"),
)


#: how each desktop's store protects a secret (by its label's start)
_PROTECTION = (
    ("the Secret Service", "encrypted in a Secret Service collection, unlocked by your desktop login"),
    ("KWallet", "encrypted in KWallet, unlocked by your desktop login"),
    ("the macOS Keychain", "encrypted in your login Keychain, unlocked by your macOS login"),
    ("Windows Credential Manager", "encrypted by Windows (DPAPI) for your Windows account"),
)


def _backend_label(name: str) -> str:
    """A backend's class path as a person knows it; another backend (a plugin) is named by its path."""
    for prefix, label in _DESKTOP_STORES:
        if name.startswith(prefix):
            return label
    return "the keyring" if name == "keyring" else f"the keyring {name}"


def _keyring_reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default
