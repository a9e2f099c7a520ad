"""Files the bulk commands write (`--report`, `export --file`): checked before the first request,
written whole or not at all, and opened by a spreadsheet with the right characters.

    check_writable(path)                       # before sending anything: FileError (exit 2) naming the cause
    with atomic_text_file(path, bom=True) as f:
        csv.writer(f).writerow(...)            # a failed write: FileError "cannot write PATH: <cause>"

The text goes to a temporary file in the same folder, which replaces `path` only when it is complete,
so a full disk or an interruption leaves an existing file as it was and no partial one behind.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import tempfile
from collections.abc import Iterator
from typing import IO

from wfctl.exit_codes import ExitCode
from wfctl.files.errors import FileError
from wfctl.fsutil import LocalWriteError, atomic_replace


def check_writable(path: str) -> None:
    """Raise FileError (exit 2) unless `path` can be written: its folder exists and takes new files,
    and it is not a folder or a file that may not be written."""
    if os.path.isdir(path):
        raise FileError(f"cannot write {path}: it is a directory")
    folder = _folder(path)
    if not os.path.isdir(folder):
        raise FileError(f"cannot write {path}: no such directory {folder}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise FileError(f"cannot write {path}: {os.strerror(errno.EACCES)}")
    try:  # the real test (read-only mounts, ACLs, quotas): make the temporary file the write will make
        fd, probe = tempfile.mkstemp(dir=folder, prefix=_temp_prefix(path))
    except OSError as exc:
        raise write_error(path, exc, ExitCode.USAGE) from None
    os.close(fd)
    os.unlink(probe)


@contextlib.contextmanager
def atomic_text_file(path: str, *, bom: bool) -> Iterator[IO[str]]:
    """A text file (UTF-8, newline="" as the csv module wants) that replaces `path` when the block ends
    without an error (wfctl.fsutil.atomic_replace); `bom` starts it with a UTF-8 byte order mark, which
    spreadsheets need to read UTF-8. A failed write raises FileError naming the file; on any error nothing
    is left behind."""
    try:
        with atomic_replace(path, mode=_mode_for(path), parents=False) as temporary:
            f = _TextFile(_open_for_writing(path, temporary), bom=bom)
            try:
                yield f
                f.flush()
                try:
                    f.close()
                except OSError as exc:
                    raise _WriteFailed(exc) from None
            except BaseException:
                with contextlib.suppress(OSError):  # closing flushes what a failed write left in the buffer
                    f.close()
                raise
    except _WriteFailed as exc:
        raise write_error(path, exc) from None
    except LocalWriteError as exc:
        raise write_error(path, exc.cause) from None


@contextlib.contextmanager
def atomic_binary_file(path: str) -> Iterator[str]:
    """The name of a temporary file beside `path` for a writer that opens files itself (a workbook);
    it replaces `path` when the block ends without an error (wfctl.fsutil.atomic_replace). A failed write
    raises FileError naming `path`; on any error nothing is left behind."""
    try:
        with atomic_replace(path, mode=_mode_for(path), parents=False) as temporary:
            yield temporary
    except LocalWriteError as exc:
        raise write_error(path, exc.cause) from None
    except OSError as exc:
        raise write_error(path, exc) from None
    except Exception as exc:
        cause = getattr(exc, "__context__", None)  # XlsxWriter's FileCreateError wraps the OSError
        if isinstance(cause, OSError) and type(exc).__name__ == "FileCreateError":
            raise write_error(path, cause) from None
        raise


def _open_for_writing(path: str, temporary: str) -> int:
    try:
        return os.open(temporary, os.O_WRONLY | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise LocalWriteError(path, exc) from None


def write_error(path: str, exc: OSError, exit_code: int = ExitCode.FAILURE) -> FileError:
    """`cannot write PATH: <cause>`, one line."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    return FileError(f"cannot write {path}: {cause}", exit_code, title="cannot write file")


class _TextFile(io.TextIOWrapper):
    """A text file whose write errors are told apart from an OSError of other code in the block
    (reading the input, the journal), which keeps its own message."""

    def __init__(self, fd: int, *, bom: bool) -> None:
        super().__init__(io.BufferedWriter(io.FileIO(fd, "w")), encoding="utf-8-sig" if bom else "utf-8",
                         newline="")

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError as exc:
            raise _WriteFailed(exc) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise _WriteFailed(exc) from None


class _WriteFailed(OSError):
    """An OSError of the file being written, as opposed to one from the code writing it."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror)


def _folder(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def _temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)}."


def _mode_for(path: str) -> int:
    """An existing file keeps its mode; a new one gets what open() would give it (0666 less the umask)."""
    with contextlib.suppress(OSError):
        return os.stat(path).st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
