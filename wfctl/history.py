"""The write history: one JSON line for each single write wfctl makes (create, update, delete of one record,
an edit of one record, an agency update), through the CLI or through a Client from `wfctl.factory`. It is
the SDK's write observer (wfctl.api.records.writelog) that the factory installs: every write path of the SDK tells
it, so a reader (`wfctl history`, next) needs no write path of its own.

The file is `<state>/history.jsonl` (wfctl.dirs: `$XDG_STATE_HOME/wfctl/history.jsonl` on Linux), 0600,
one object a line:

    {"time": "2026-12-07T00:31:02Z", "profile": "default", "kind": "site", "id": "<record id>",
     "verb": "update", "fields": {"phone": "0161 555 0100"}}

`fields` is what was sent: a create's body, an update's changed fields (their new values), {} for a delete.
It never holds a token or a password (no write body carries one; a field named like a secret is redacted as
`--verbose` redacts it). A journalled bulk run (an import, undo, `rates set`, `bans`, a prune, an edit of a
client's sites, a copy) keeps its writes in its journal, not here: the history holds one line for the run,
`{"time", "profile", "kind", "verb": "run", "run": "<run id>"}`, at its first write (again at a resume's), so
the file grows by single writes only and a run's rows are read with `wfctl imports show <run id>`.

Bounded: when the file passes MAX_BYTES it becomes `history.jsonl.1` (replacing the one before), so the two
hold at most about twice that; `read_history` reads both, oldest first. Each line is one `os.write` on a file opened for appending: lines of
processes writing at once never mix. A history that cannot be written is said once on stderr; the write
itself was made.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wfctl.dirs import state_dir

if TYPE_CHECKING:
    from wfctl.api.records.writelog import Write

FILE_NAME = "history.jsonl"
#: The size past which the file is rotated to `history.jsonl.1` (one older file kept).
MAX_BYTES = 4 * 1024 * 1024


def history_path() -> Path:
    return state_dir() / FILE_NAME


def read_history(path: Path | None = None) -> Iterator[dict[str, Any]]:
    """Every line of the history, oldest first (`history.jsonl.1`, then `history.jsonl`): what `wfctl
    history` reads. A line that is not a JSON object (cut by a crash, a full disk) is passed over."""
    current = path or history_path()
    for name in (current.with_name(current.name + ".1"), current):
        try:
            with open(name, "rb") as f:
                lines = f.readlines()
        except OSError:
            continue
        for raw in lines:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict):
                yield line


class HistoryWriter:
    """The write observer of one profile's Client: appends a line to the history for each write."""

    def __init__(self, profile: str, path: Path | None = None, *, max_bytes: int = MAX_BYTES) -> None:
        self.profile = profile
        self.path = path or history_path()
        self.max_bytes = max_bytes
        self._runs: set[str] = set()
        self._lock = threading.Lock()
        self._failed = False

    def wrote(self, write: Write) -> None:
        """Append the line of `write` (of a run: the run's line, once)."""
        if write.run:
            if write.run in self._runs:  # a run's every row but its first: one look, no line
                return
            with self._lock:
                if write.run in self._runs:
                    return
                self._runs.add(write.run)
            line: dict[str, object] = {"time": write.time, "profile": self.profile, "kind": write.kind,
                                       "verb": "run", "run": write.run}
        else:
            from wfctl.api.net.redact import redact_json

            line = {"time": write.time, "profile": self.profile, "kind": write.kind, "id": write.record_id,
                    "verb": write.verb, "fields": redact_json(write.fields)}
        self._append((json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode())

    def _append(self, data: bytes) -> None:
        from wfctl.fsutil import open_private

        try:
            fd = open_private(self.path, os.O_RDWR | os.O_APPEND)
            try:
                end = os.fstat(fd).st_size
                if end and os.pread(fd, 1, end - 1) != b"\n":
                    data = b"\n" + data  # a line a crash cut ends where it stopped: this one starts its own
                os.write(fd, data)
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > self.max_bytes:
                self._rotate()
        except OSError as exc:
            self._say_once(exc)

    def _rotate(self) -> None:
        """Move the full file aside (under a lock, looking again: another process may have moved it)."""
        from wfctl.fsutil import move_aside, private_file_lock

        with private_file_lock(self.path.with_name(FILE_NAME + ".lock"), timeout=5):
            if self.path.stat().st_size > self.max_bytes:
                move_aside(self.path, self.path.with_name(FILE_NAME + ".1"))

    def _say_once(self, exc: OSError) -> None:
        if self._failed:
            return
        self._failed = True
        from wfctl.render.streams import IO

        reason = (exc.strerror or str(exc)).lower()
        IO.write_err(f"wfctl: the write history ({self.path}) could not be written: {reason}; the write was made\n")
