"""The run session: what a journalled run is (`RunRecord`, its journal's first line), where the journals of
a profile's runs live, and the lock a run holds. One type for every run: an import, an undo, `rates set`,
`bans add|remove`, a prune (an import's), `sites edit --client`, a copy (an import from another profile).
Made here and read back here (`to_json` / `from_json`), never as a hand-built dict; `wfctl.runs.journal`
writes and reads the journals (and re-exports the places and the lock).

What makes two runs the same run (the resume and lock key, `key`) is their `identity`: an import's file
(its SHA-256, `file`), or for a run of a command (`command`: "rates set", "bans add", "sites edit") the
digest of what it changes (`change`), with the kind, the service, the parent, the on-existing rule and the
run an undo takes back. Journals written before this type spelt a command's change inside `file`
(`"rates:<sha>"`, `"bans-add:<sha>"`, `"edit:<key>:<run>"`): read back as they are, they have the same
identity, so an unfinished run of an earlier version resumes and its undo's keys are unchanged; keys a
record does not know are kept (`extra`) and written back as they were.

Runs live under the state directory, one folder per profile: `<state>/runs/<profile>/<run>.journal`. A run
holds a lock on its import (kind, file, target, parent) for as long as it runs, so a second run of the
same import at once refuses instead of sending the same rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from wfctl.dirs import state_dir
from wfctl.fsutil import file_name_for, private_file_lock, write_private_file

if TYPE_CHECKING:
    from filelock import BaseFileLock


#: The journal format (the header's `"journal"`): every journal written since version 2 reads alike.
VERSION = 2


#: How journals before RunRecord spelt each command's change in `file` (`<prefix>:<change>`): kept so the
#: identity, and with it the resume and lock key and the Idempotency-Keys, is the same for both.
_LEGACY_PREFIX = {"rates set": "rates", "bans add": "bans-add", "bans remove": "bans-remove", "sites edit": "edit"}


_LEFT_OUT_EMPTY = ("file", "change", "command", "note")


_FIELDS = {"kind": "kind", "file": "file", "change": "change", "command": "command", "path": "path",
           "target": "target", "profile": "profile", "parent": "parent", "onExisting": "on_existing",
           "undo": "undo", "note": "note", "run": "run", "nonce": "nonce", "started": "started"}


@dataclass(frozen=True)
class RunRecord:
    """The header of one run's journal. `path` is what the run is shown as (an import's file, a command's
    words); `undo` the run an undo takes back; `note` what the person said of it (`bans add --note`);
    `run`, `nonce` and `started` are set when the run starts (`started_now`)."""

    kind: str
    path: str
    target: str
    profile: str
    file: str = ""
    change: str = ""
    command: str = ""
    parent: str = ""
    on_existing: str = "update"
    undo: str | None = None
    note: str = ""
    run: str = ""
    nonce: str = ""
    started: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of_command(cls, command: str, what: str, *, kind: str, target: str, profile: str,
                   note: str | None = None) -> RunRecord:
        """The run of a command over records (`rates set`, `bans add`): `what` is the rest of the command
        line as shown; two runs with the same `what` are the same change."""
        return cls(kind, f"{command} {what}", target, profile, change=digest(what), command=command, note=note or "")

    @property
    def identity(self) -> str:
        """What this run is a run of: an import's file digest, or a command's change (in the spelling of the
        journals before RunRecord, so both give one key)."""
        if self.file or not self.command:
            return self.file
        return f"{_LEGACY_PREFIX.get(self.command, self.command)}:{self.change}"

    def key(self) -> str:
        """The resume and lock key: two runs with the same key are the same run."""
        parts = [self.kind, self.identity, self.target, self.parent, self.on_existing, self.undo or ""]
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:20]

    def started_now(self, run_id: str) -> RunRecord:
        """This record as the run `run_id` starting now (a fresh nonce: its creates send new keys)."""
        return replace(self, run=run_id, nonce=secrets.token_hex(8), started=now())

    def undo_of(self, run_id: str, profile: str) -> RunRecord:
        """The record of a run taking back run `self` (it starts as `run_id`)."""
        return replace(self, profile=profile, undo=self.run, note="").started_now(run_id)

    def to_json(self) -> dict[str, Any]:
        """The journal's first line (without the newline); an empty `file`, `change`, `command` or `note`
        is left out, and what `extra` holds is written as it was read."""
        line: dict[str, Any] = {"journal": VERSION}
        for key, name in _FIELDS.items():
            value = getattr(self, name)
            if value or key not in _LEFT_OUT_EMPTY:
                line[key] = value
        line.update(self.extra)
        return line

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> RunRecord:
        """A header as a journal holds it (of any version since 2). Keys it does not know, and a known
        one holding what the record does not (a number for `started`), are kept in `extra` as they were."""
        texts: dict[str, str] = {}
        for key, name in _FIELDS.items():
            value = line.get(key)
            texts[name] = "" if value is None else str(value)
        extra = {key: value for key, value in line.items()
                 if key != "journal" and (key not in _FIELDS or not _held(key, value))}
        undo = texts.pop("undo")
        return cls(undo=undo or None, extra=extra, **texts)


def as_record(header: RunRecord | dict[str, Any]) -> RunRecord:
    return header if isinstance(header, RunRecord) else RunRecord.from_json(header)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _held(key: str, value: Any) -> bool:
    """Whether a record's field holds `value` as a journal spelt it (to_json writes it back the same)."""
    if key == "undo":
        return value is None or (isinstance(value, str) and value != "")
    return isinstance(value, str) and (value != "" or key not in _LEFT_OUT_EMPTY)


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
