"""A token helper: one process's token source lent to the programs it starts (`wfctl exec`), over a socket.

`wfctl exec -- CMD` gives CMD the access token in WFCTL_ACCESS_TOKEN, which lasts as long as the token
does (15 minutes on the service's default). For a program that runs longer, and calls wfctl or the SDK,
exec also serves its own token source on a Unix socket in a fresh 0700 directory and names it in
WFCTL_TOKEN_HELPER: a wfctl, or `Client.from_environment()`, started with that variable set asks the
helper for the token whenever it needs one (`HelperSource`), and the helper answers with its source's
token, refreshed at the service when it is about to expire (under the login's lock, as any wfctl run does).
Only the user (and root) can open the socket: its directory is the user's own, mode 0700.

The protocol is one JSON line each way: `{"op": "token"}` or `{"op": "refresh", "rejected": <token>}`
(after a 401), answered `{"accessToken": ..., "expiresAt": <epoch seconds or 0>}`, `{"accessToken": null}`
(nothing better than the rejected one) or `{"error": <one line>}`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import ApiError, NotLoggedIn

if TYPE_CHECKING:
    from wfctl.api.session.tokenpair import TokenPair
    from wfctl.api.session.tokens import TokenSource

HELPER_ENV = "WFCTL_TOKEN_HELPER"
ACCESS_TOKEN_ENV = "WFCTL_ACCESS_TOKEN"  # wfctl.api.client's, named here too: the client imports this module
#: seconds before a token's expiry that a HelperSource asks again (the helper refreshes it by then)
_MARGIN = 30.0
_TIMEOUT = 90.0  # a refresh may ride out an outage (60 s, wfctl.api.net.retry)


def environment_source(base_url: str) -> TokenSource:
    """The token source a program's environment names: the helper of WFCTL_TOKEN_HELPER (a `wfctl exec`),
    else WFCTL_ACCESS_TOKEN used as is. NotLoggedIn when neither is set."""
    from wfctl.api.session.auth import StaticTokenAuth

    helper = os.environ.get(HELPER_ENV, "").strip()
    if helper:
        return HelperSource(helper)
    token = os.environ.get(ACCESS_TOKEN_ENV, "").strip()
    if not token:
        raise NotLoggedIn(f"no access token: set {ACCESS_TOKEN_ENV}")
    return StaticTokenAuth(token, base_url, where=f"environment variable {ACCESS_TOKEN_ENV}")


class HelperSource:
    """A TokenSource that asks a token helper (WFCTL_TOKEN_HELPER: the socket's path) for the token, keeping
    it until shortly before it expires."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = threading.Lock()

    def access_token(self) -> str:
        with self._lock:
            if self._token is None or (self._expires_at and time.time() > self._expires_at - _MARGIN):
                self._take(self._ask({"op": "token"}))
            assert self._token is not None
            return self._token

    def refresh(self, rejected: str) -> str | None:
        with self._lock:
            answer = self._ask({"op": "refresh", "rejected": rejected})
            if not answer.get("accessToken"):
                return None
            self._take(answer)
            return self._token if self._token != rejected else None

    def location(self) -> str | None:
        return f"the token helper of the `wfctl exec` that started this program ({HELPER_ENV})"

    def pair(self) -> TokenPair:
        """The token and its expiry, as `wfctl auth token` shows them (no refresh token: the helper keeps it)."""
        from wfctl.api.session.tokenpair import TokenPair

        token = self.access_token()
        return TokenPair(token, None, self._expires_at, time.time())

    def _take(self, answer: dict[str, Any]) -> None:
        from wfctl.api.session.tokens import checked_token

        self._token = checked_token(answer.get("accessToken"))
        expires = answer.get("expiresAt")
        self._expires_at = float(expires) if isinstance(expires, int | float) else 0.0

    def _ask(self, request: dict[str, str]) -> dict[str, Any]:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(_TIMEOUT)
                conn.connect(self.path)
                conn.sendall(json.dumps(request).encode() + b"\n")
                answer = json.loads(_read_line(conn))
        except (OSError, ValueError) as exc:
            raise NotLoggedIn(f"the token helper {self.path} ({HELPER_ENV}) did not answer "
                              f"({type(exc).__name__}); has the `wfctl exec` that started this program ended?"
                              ) from None
        if not isinstance(answer, dict):
            raise NotLoggedIn(f"the token helper {self.path} gave no token")
        if answer.get("error"):
            raise NotLoggedIn(str(answer["error"]))
        return answer


@contextlib.contextmanager
def serving(source: TokenSource, *, on_token: Callable[[str], None] = lambda token: None) -> Iterator[str]:
    """Serve `source` on a Unix socket in a fresh 0700 directory while the block runs; yields the socket's
    path (for WFCTL_TOKEN_HELPER). `on_token` is told each token handed out (to mask it)."""
    directory = Path(tempfile.mkdtemp(prefix="wfctl-exec-"))  # mode 0700, the user's own
    path = directory / "token.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stop = threading.Event()
    try:
        listener.bind(str(path))
        listener.listen(16)
        listener.settimeout(0.2)
        thread = threading.Thread(target=_accept, args=(listener, source, on_token, stop), daemon=True,
                                  name="wfctl-token-helper")
        thread.start()
        yield str(path)
    finally:
        stop.set()  # the thread (a daemon) ends at its next accept timeout; not waited for
        listener.close()
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            directory.rmdir()


def answer(source: TokenSource, request: Any) -> dict[str, Any]:
    """The helper's answer to one request (see the module's docstring)."""
    from wfctl.api.session.auth import KeepsPair

    try:
        if not isinstance(request, dict) or request.get("op") not in ("token", "refresh"):
            return {"error": "the token helper was asked something it does not answer"}
        if request["op"] == "refresh":
            token = source.refresh(str(request.get("rejected", "")))
            if token is None:
                return {"accessToken": None}
        if isinstance(source, KeepsPair):
            pair = source.pair()
            return {"accessToken": pair.access_token, "expiresAt": pair.expires_at}
        return {"accessToken": source.access_token(), "expiresAt": 0}
    except ApiError as exc:
        return {"error": exc.title}


def _accept(listener: socket.socket, source: TokenSource, on_token: Callable[[str], None],
            stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        threading.Thread(target=_serve_one, args=(conn, source, on_token), daemon=True).start()


def _serve_one(conn: socket.socket, source: TokenSource, on_token: Callable[[str], None]) -> None:
    with conn:
        try:
            conn.settimeout(_TIMEOUT)
            reply = answer(source, json.loads(_read_line(conn)))
        except (OSError, ValueError):
            return
        if reply.get("accessToken"):
            on_token(reply["accessToken"])
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(reply).encode() + b"\n")


def _read_line(conn: socket.socket, limit: int = 1 << 20) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise ValueError("answer too long")
    return data
