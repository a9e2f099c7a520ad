"""`wfctl exec -- CMD ARGS`: run a program with a profile's service URL and a token that stays valid.

The child's environment gets WFCTL_BASE_URL, WFCTL_ACCESS_TOKEN (valid until WFCTL_ACCESS_TOKEN_EXPIRES_AT,
the token's own expiry), WFCTL_CA_BUNDLE / WFCTL_TIMEOUT where the profile sets them, and WFCTL_TOKEN_HELPER:
a socket this process serves its token source on (wfctl.api.session.tokenhelper), so a wfctl or an SDK script the
child starts asks for a fresh token whenever it needs one, for as long as the child runs. The token is
never on a command line (ps shows arguments to every user; a process's environment only to its owner).

What the child writes to stdout and stderr passes through this process, each token it was given replaced by
`<concealed by wfctl>` (as 1Password's `op run` conceals secrets), unless `masking` is off: then the child
writes to the terminal itself. SIGTERM and SIGHUP sent to wfctl are passed on to the child, and SIGINT when
it did not come from the terminal (Ctrl-C reaches the whole foreground process group, the child included,
once). The exit status is the child's (128 + N when a signal N ended it).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from wfctl.clierror import CliError
from wfctl.exit_codes import ExitCode

CONCEALED = b"<concealed by wfctl>"
EXPIRES_ENV = "WFCTL_ACCESS_TOKEN_EXPIRES_AT"
#: how long a piece of output that may be the start of a token is held back, waiting for the rest
_HOLD_SECONDS = 0.2


class Masker:
    """Replaces every token it was told of in a byte stream, across reads: the end of a read that may be
    the start of a token waits (at most _HOLD_SECONDS) for the next one."""

    def __init__(self) -> None:
        self._secrets: set[bytes] = set()
        self._lock = threading.Lock()

    def add(self, token: str) -> None:
        with self._lock:
            self._secrets.add(token.encode("ascii", "replace"))

    def mask(self, data: bytes) -> bytes:
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            data = data.replace(secret, CONCEALED)
        return data

    def ready(self, data: bytes) -> tuple[bytes, bytes]:
        """(what can be written now, masked; what must wait: the tail that may begin a token)."""
        data = self.mask(data)
        with self._lock:
            secrets = list(self._secrets)
        hold = 0
        for secret in secrets:
            for k in range(min(len(secret) - 1, len(data)), hold, -1):
                if secret.startswith(data[-k:]):
                    hold = k
                    break
        return (data[: len(data) - hold], data[len(data) - hold:]) if hold else (data, b"")


def run(command: Sequence[str], env: dict[str, str], *, masker: Masker | None) -> int:
    """Run `command` with `env` added to this process's environment; its exit status (see the module)."""
    full_env = dict(os.environ)
    full_env.update(env)
    pipe = subprocess.PIPE if masker is not None else None
    try:
        child = subprocess.Popen(list(command), env=full_env, stdout=pipe, stderr=pipe)
    except FileNotFoundError:
        raise CliError(f"cannot run {command[0]!r}: no such program", ExitCode.USAGE) from None
    except PermissionError:
        raise CliError(f"cannot run {command[0]!r}: not allowed (is it executable?)", ExitCode.USAGE) from None
    except OSError as exc:
        raise CliError(f"cannot run {command[0]!r}: {exc.strerror or exc}", ExitCode.USAGE) from None
    previous = _forward_signals(child)
    pumps = []
    try:
        if masker is not None:
            assert child.stdout is not None and child.stderr is not None
            pumps = [threading.Thread(target=_pump, args=(child.stdout, _binary(sys.stdout), masker), daemon=True),
                     threading.Thread(target=_pump, args=(child.stderr, _binary(sys.stderr), masker), daemon=True)]
            for pump in pumps:
                pump.start()
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:  # the terminal's Ctrl-C reached the child too: wait for it
                continue
        for pump in pumps:
            pump.join(5)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code


def _forward_signals(child: subprocess.Popen[bytes]) -> dict[int, Any]:
    """Pass SIGTERM, SIGHUP and a SIGINT not from the terminal on to `child`; the handlers replaced."""
    previous: dict[int, Any] = {}

    def forward(sig: int, frame: Any) -> None:
        if sig == signal.SIGINT and _terminal_sent_it():
            return  # Ctrl-C: the terminal sent it to the child as well
        with contextlib.suppress(OSError):
            child.send_signal(sig)

    names = ("SIGTERM", "SIGHUP", "SIGINT") if sys.platform != "win32" else ("SIGTERM", "SIGINT")
    for name in names:
        sig = getattr(signal, name)
        previous[sig] = signal.signal(sig, forward)
    return previous


def _terminal_sent_it() -> bool:
    """Whether this process is in its terminal's foreground process group (Ctrl-C goes to all of it)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


def _pump(source: IO[bytes], target: IO[bytes], masker: Masker) -> None:
    """Copy the child's stream to ours, masked, as it comes (a held-back tail waits _HOLD_SECONDS)."""
    fd = source.fileno()
    held = b""
    held_since = 0.0
    while True:
        wait = None if not held else max(0.0, _HOLD_SECONDS - (time.monotonic() - held_since))
        readable, _, _ = select.select([fd], [], [], wait)
        if not readable:  # nothing more came: what was held back is not a token
            _write(target, held)
            held = b""
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            _write(target, masker.mask(held))
            return
        now, rest = masker.ready(held + chunk)
        _write(target, now)
        if rest and not held:
            held_since = time.monotonic()
        held = rest


def _write(target: IO[bytes], data: bytes) -> None:
    if not data:
        return
    try:
        target.write(data)
        target.flush()
    except (OSError, ValueError):
        pass


def _binary(stream: Any) -> Any:
    """A stream's bytes side (a text stream without one, as in-process tests have, through _TextTarget)."""
    return stream.buffer if hasattr(stream, "buffer") else _TextTarget(stream)


class _TextTarget:
    """A text stream as a byte target (in-process runs in tests, where stdout is a StringIO)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        self._stream.write(data.decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        self._stream.flush()
