"""A credential process: a command that prints the access token, asked when a token is needed.

As aws's `credential_process` and git's credential helpers, the token lives somewhere wfctl does not
manage (a vault, a CI system's secret store), and a command of the user's choosing fetches it:

    [profiles.ci]
    base_url = "https://wams.example.com"
    credential_process = ["vault", "kv", "get", "-format=json", "-field=data", "secret/wams"]

The command is run (no shell) when wfctl needs a token: first, when the last one is about to expire, and
once after a 401. It prints one JSON object on stdout:

    {"accessToken": "...", "expiresAt": "2026-12-07T04:00:00Z"}     # or an epoch number
    {"accessToken": "...", "expiresIn": 900}                          # seconds from now
    {"accessToken": "...", "refreshToken": "...", "expiresIn": 900}   # a login's answer, as the service gives it

Without an expiry, a JWT's `exp` is read, else the token is taken for 15 minutes (G2). A refresh token in the
output is never sent by wfctl (a refresh rotates it, spending the copy the process keeps): when the token
expires, the command is asked again. Its stdout is never logged or shown; its stderr is the user's (a prompt,
a warning). Exit status other than 0, no JSON object, no usable token: NotLoggedIn, one line saying which.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import NotLoggedIn

if TYPE_CHECKING:
    from wfctl.api.session.tokenpair import TokenPair

TIMEOUT = 120.0  # a vault may ask for a second factor on the terminal
_MARGIN = 30.0
_EXPECTED = 'expected one JSON object: {"accessToken": ..., "expiresAt" or "expiresIn": ...}'


class CredentialProcessFailed(NotLoggedIn):
    """The credential process gave no usable token: `wfctl login` would not help (the CLI says no more)."""

    login_helps = False


class CredentialProcessSource:
    """A TokenSource that runs `command` for the token (see the module's docstring)."""

    def __init__(self, command: Sequence[str], *, timeout: float = TIMEOUT) -> None:
        if not command or not all(isinstance(word, str) and word for word in command):
            raise CredentialProcessFailed("credential_process must be a list of words: the command and its arguments")
        self.command = list(command)
        self.timeout = timeout
        self._pair: TokenPair | None = None
        self._lock = threading.Lock()

    def access_token(self) -> str:
        return self.pair().access_token

    def pair(self) -> TokenPair:
        """The token and its expiry; the command is run again when it is about to expire."""
        with self._lock:
            if self._pair is None or self._pair.seconds_left() < min(_MARGIN, self._lifetime() * 0.2):
                self._pair = self._run()
            return self._pair

    def refresh(self, rejected: str) -> str | None:
        """After a 401: the command's token again; the same one is refused (it says so: no login helps)."""
        with self._lock:
            self._pair = self._run()
            if self._pair.access_token == rejected:
                raise CredentialProcessFailed(f"the service refused the token credential_process "
                                              f"{self.command[0]!r} printed, and it printed the same one again",
                                              status=401)
            return self._pair.access_token

    def location(self) -> str | None:
        return f"the credential process {self.command[0]!r} (credential_process)"

    def _lifetime(self) -> float:
        return max(0.0, self._pair.expires_at - self._pair.obtained_at) if self._pair else 0.0

    def _run(self) -> TokenPair:
        name = self.command[0]
        try:
            done = subprocess.run(self.command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                  timeout=self.timeout, check=False)
        except FileNotFoundError:
            raise CredentialProcessFailed(f"credential_process: cannot run {name!r}: no such program") from None
        except subprocess.TimeoutExpired:
            raise CredentialProcessFailed(f"credential_process {name!r} did not finish within {self.timeout:g} s") from None
        except OSError as exc:
            raise CredentialProcessFailed(f"credential_process: cannot run {name!r}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise CredentialProcessFailed(f"credential_process {name!r} failed (exit status {done.returncode}); "
                              "its own message, if any, is above")
        return parse_output(done.stdout, name)


def parse_output(stdout: bytes, name: str) -> TokenPair:
    """The token a credential process printed, checked; NotLoggedIn naming what is wrong, never the output."""
    from wfctl.api.errors import CredentialStoreError
    from wfctl.api.session.tokenpair import TokenPair

    try:
        body: Any = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CredentialProcessFailed(f"credential_process {name!r} printed something that is not JSON ({_EXPECTED})") from None
    if not isinstance(body, dict):
        raise CredentialProcessFailed(f"credential_process {name!r} printed JSON that is not an object ({_EXPECTED})")
    now = time.time()
    answer = {k: body[k] for k in ("accessToken", "expiresIn") if k in body}
    if "expiresAt" in body and "expiresIn" not in body:
        at = _epoch(body["expiresAt"])
        if at is None:
            raise CredentialProcessFailed(f"credential_process {name!r} printed an expiresAt that is not a time "
                              "(an ISO 8601 UTC time or epoch seconds)")
        if at <= now:
            raise CredentialProcessFailed(f"credential_process {name!r} printed a token that has already expired")
        answer["expiresIn"] = at - now
    try:
        return TokenPair.from_response(answer, username=None, base_url=None, now=now)
    except CredentialStoreError as exc:
        raise CredentialProcessFailed(f"credential_process {name!r}: {exc.title.replace('the service', 'its output')} "
                          f"({_EXPECTED})") from None


def _epoch(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        from datetime import datetime

        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed.timestamp() if parsed.tzinfo else None
    return None
