"""Files and directories wfctl creates: readable by the owner only, whatever the umask.

Every directory wfctl creates is 0700 and every file 0600 (config, tokens, lock files, journals,
state). The mode is set explicitly after creating, because `mkdir`/`open` only ever take bits away
from the mode they are given (the umask): under `umask 000` a plain `mkdir -p` makes 0777 parents,
under `umask 0277` a 0700 directory would come out 0500 and unwritable. Directories that already
exist are left as they are: they may be the user's own (`~/.config`, `~/.local/state`).

    from wfctl.fsutil import private_dir, open_private, write_private_file, private_file_lock

    private_dir(wfctl.dirs.state_dir() / "runs")           # mkdir -p, each new level 0700
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)    # os.open, created/kept 0600
    write_private_file(path, data)                         # atomic replace, 0600
    with atomic_replace(path, mode=0o644) as temporary: ...  # the same, for a writer that opens the file
    with private_file_lock(path, timeout=10): ...          # a filelock.FileLock whose file is 0600

Light module: standard library only (filelock is imported when a lock is made).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from filelock import BaseFileLock

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_POSIX_MODES = sys.platform != "win32"  # Windows has no owner/group/other bits to set or check


def private_dir(path: str | os.PathLike[str]) -> Path:
    """`mkdir -p path` where every directory it creates is 0700; existing ones are not changed."""
    target = Path(path)
    missing: list[Path] = []
    current = target
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # made by another process meanwhile: theirs to set
        if _POSIX_MODES:
            with contextlib.suppress(OSError):
                os.chmod(directory, PRIVATE_DIR_MODE)
    return target


def open_private(path: str | os.PathLike[str], flags: int = os.O_WRONLY | os.O_CREAT | os.O_TRUNC) -> int:
    """`os.open(path, flags | O_CREAT)`, the file 0600 whatever the umask (also a file that already
    existed with a wider mode); missing parent directories are made 0700. Returns the descriptor."""
    private_dir(Path(path).parent)
    fd = os.open(path, flags | os.O_CREAT, PRIVATE_FILE_MODE)
    if _POSIX_MODES:
        with contextlib.suppress(OSError):  # not ours (another user's), or no modes here: leave it
            os.fchmod(fd, PRIVATE_FILE_MODE)
    return fd


class LocalWriteError(OSError):
    """A file wfctl keeps could not be written (a full disk, a size limit, no permission). The old file
    is kept as it was; the message names the file and the cause in one line."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        reason = (cause.strerror or str(cause)).lower()
        super().__init__(cause.errno, reason)
        self.cause = cause
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}; it is unchanged"


def write_private_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Atomic write readable by the owner only (0600): see `atomic_replace`. Raises LocalWriteError
    (the old file kept) when it cannot be written."""
    target = Path(path)
    with atomic_replace(target) as temporary:
        try:
            with open(temporary, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise LocalWriteError(target, exc) from None


def move_aside(path: str | os.PathLike[str], older: str | os.PathLike[str]) -> None:
    """Rename a full append-only log (the write history) to `older`, replacing the one before: a rotation,
    not a write (nothing is lost that a reader needs whole). Raises OSError."""
    os.replace(path, older)


@contextlib.contextmanager
def atomic_replace(path: str | os.PathLike[str], *, mode: int = PRIVATE_FILE_MODE,
                   parents: bool = True) -> Iterator[str]:
    """The one atomic write of wfctl: yields the name of a new, empty temporary file beside `path` (0600
    while it is written; open it yourself). When the block ends without an error the file is fsynced,
    given `mode`, renamed over `path`, and the directory fsynced; on any error it is removed and `path`
    is as it was. Missing parent directories are made 0700 (`parents=False`: a missing directory is an
    error, for a file the user named).

    A step of its own that fails (making the temporary file, fsync, rename) raises LocalWriteError naming
    `path`; an exception of the block passes through unchanged."""
    import tempfile

    target = Path(path)
    try:
        if parents:
            private_dir(target.parent)
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            if _POSIX_MODES:  # 0600 whatever the umask (0277 would leave it unwritable)
                os.fchmod(fd, PRIVATE_FILE_MODE)
        finally:
            os.close(fd)
    except OSError as exc:
        raise LocalWriteError(target, exc) from None
    try:
        yield temporary
        try:
            fd = os.open(temporary, os.O_RDWR)
            try:
                if _POSIX_MODES:
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            if not _POSIX_MODES:
                os.chmod(temporary, mode)
            os.replace(temporary, target)
        except OSError as exc:
            raise LocalWriteError(target, exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_dir(target.parent)


def private_file_lock(path: str | os.PathLike[str], timeout: float = -1, **options: Any) -> BaseFileLock:
    """A `filelock.FileLock` on `path` whose lock file is created 0600 (its directory 0700).

    A lock file left with a wider mode (by an older wfctl) is narrowed here. Use it as `with lock:`;
    `filelock.Timeout` is raised when it is not acquired within `timeout` seconds."""
    from filelock import FileLock

    target = Path(path)
    private_dir(target.parent)
    narrow(target)
    return FileLock(str(target), timeout=timeout, mode=PRIVATE_FILE_MODE, **options)


def narrow(path: str | os.PathLike[str]) -> None:
    """Make an existing file of ours 0600 (nothing when it is missing, already private, or not ours)."""
    if not _POSIX_MODES:
        return
    with contextlib.suppress(OSError):
        if stat.S_IMODE(os.stat(path).st_mode) != PRIVATE_FILE_MODE:
            os.chmod(path, PRIVATE_FILE_MODE)


def file_mode(path: str | os.PathLike[str]) -> int | None:
    """The permission bits of `path`, or None when it cannot be read (missing) or on Windows."""
    if not _POSIX_MODES:
        return None
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def mode_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a secret file's mode is wrong ("mode 0644: readable by others"), or None when it is 0600
    (or its mode cannot be known: missing file, Windows)."""
    mode = file_mode(path)
    if mode is None or mode & 0o077 == 0:
        return None
    who = "others" if mode & 0o007 else "its group"
    access = "readable" if mode & 0o044 else "writable"
    return f"mode {mode:04o}: {access} by {who}, not 0600"


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    if not _POSIX_MODES:
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- names as file names ----------------------------------------------------------------------------

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
_MAX_NAME = 120


def file_name_for(name: str) -> str:
    """A file name (without extension) for any text, one-to-one: two different names never share a
    file, also on a case-insensitive file system (macOS, Windows).

    Lower-case letters, digits, `.`, `_` and `-` stay as they are (so `default`, `prod_eu`, `ci-2`
    keep the names they always had); every other character, upper-case letters and `%` included, is
    written as `%XX` per UTF-8 byte: `prod/eu` -> `prod%2Feu`, `Prod` -> `%50rod`. A result longer
    than 120 characters is cut and ends in `%%` and 24 hex digits of its SHA-256 (`%%` never occurs
    in a shorter result)."""
    out: list[str] = []
    for char in name:
        if char in _PLAIN:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    text = "".join(out) or "%"  # a lone `%` never occurs otherwise
    if len(text) > _MAX_NAME:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        text = text[: _MAX_NAME - 26].rstrip("%0123456789ABCDEF") + "%%" + digest
    return text
