"""Where the journals of a profile's runs live, and the lock a run holds (`wfctl.runs.journal` writes
and reads the journals; its module re-exports these names).

Runs live under the state directory, one folder per profile: `<state>/runs/<profile>/<run>.journal`. A run
holds a lock on its import (kind, file, target, parent) for as long as it runs, so a second run of the
same import at once refuses instead of sending the same rows.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from wfctl.dirs import state_dir
from wfctl.fsutil import file_name_for, private_file_lock, write_private_file
from wfctl.runs.runrecord import RunRecord, as_record

if TYPE_CHECKING:
    from filelock import BaseFileLock


class RunLocked(Exception):
    """Another process is running the same import (or undo) right now."""

    def __init__(self, pid: str) -> None:
        super().__init__(f"another run of this import is in progress (pid {pid or 'unknown'})")
        self.pid = pid


def runs_dir(profile: str) -> str:
    """The folder of `profile`'s journals: `<state>/runs/<name>`, the name by wfctl.fsutil.file_name_for
    (as token files and locks). A folder an earlier wfctl named by its own encoding (`_legacy_name`: a
    profile with upper-case letters, `_` or other characters) is used while it is the only one, unless a
    case-insensitive file system makes it another profile's too."""
    name = profile or "default"
    runs = state_dir() / "runs"
    new = runs / file_name_for(name)
    old = runs / _legacy_name(name)
    if old != new and not new.exists() and old.is_dir():
        lower = runs / _legacy_name(name.lower())
        shared = False
        if lower != old:
            with contextlib.suppress(OSError):
                shared = os.path.samefile(old, lower)
        if not shared:
            return str(old)
    return str(new)


def new_run_id() -> str:
    import secrets
    import time

    return time.strftime("%y%m%d") + "-" + secrets.token_hex(3)


def import_key(header: RunRecord | dict[str, Any]) -> str:
    """What makes two runs the same run (the resume and lock key): `RunRecord.key`."""
    return as_record(header).key()


def list_journals(directory: str) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in sorted(names) if n.endswith(".journal")]


def journal_path(directory: str, run_id: str) -> str:
    return os.path.join(directory, f"{run_id}.journal")


class ImportLock:
    """An exclusive lock on one import (its `import_key`) while a run sends (a filelock.FileLock, on every
    platform), with the runner's pid beside it (`<key>.pid`) for the run that is refused."""

    def __init__(self, directory: str, header: RunRecord | dict[str, Any]) -> None:
        self.path = os.path.join(directory, f"{import_key(header)}.lock")
        self.pid_path = os.path.join(directory, f"{import_key(header)}.pid")
        self._lock: BaseFileLock | None = None

    def __enter__(self) -> ImportLock:
        from filelock import Timeout

        lock = private_file_lock(self.path, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            try:
                with open(self.pid_path, encoding="utf-8", errors="replace") as f:
                    pid = f.read(32).strip()
            except OSError:
                pid = ""
            raise RunLocked(pid) from None
        try:
            write_private_file(self.pid_path, str(os.getpid()).encode())
        except BaseException:
            lock.release()
            raise
        self._lock = lock
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.release()  # the files stay (removing them would race the next run)
            self._lock = None


def _legacy_name(name: str) -> str:
    """How earlier wfctl versions named a profile's folder of journals (still read: see runs_dir)."""
    return "".join(ch if ch.isalnum() or ch in "-." else f"_{ord(ch):x}_" for ch in name)
