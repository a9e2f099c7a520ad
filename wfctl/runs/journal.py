"""The run journal: an append-only file per journalled run (import, undo, rates, bans, prune, edit, copy),
so a killed run resumes, and a finished one can be listed, shown and undone. This module writes it (and
re-exports the reading of wfctl.runs.journalread).

It is keyed by action (wfctl.runs.engine; the entry's shape, one for every run, and the journals of
the old form that made up row numbers: wfctl.runs.journalentry): a file row of an import (`"r"`), or an
action on a record (`"k"`: kind, record id, verb), a site whose rates, bans or fields a command changes, a
record a prune deletes. An undo journals each entry under the key of the entry it takes back.

One JSON object per line:

- the header, a `wfctl.runs.session.RunRecord`: `{"journal": 2, "run": "<id>", "nonce", "kind", "file"
  (an import's) or "command" and "change" (a command's run), "path", "target", "profile", "parent",
  "onExisting", "started", "undo", "note"}` (`undo`: the run id an undo run takes back, else null);
- before an action is sent, its intent: `{"r": row, "s": "sending"}` (`"k"` for an action on a record), an
  update's with its changes (`"c"`, as below), so a run that resumes it knows it for an update and undo
  can still put the old values back;
  a create's with its name (`"n"`), parent id (`"p"`) and body (`"b"`), so an undo can find out what
  a killed run's create did; a prune's delete (`"k": [kind, id, "delete"]`) with the record's parent
  (`"p"`) and every field it held as changes (`[old, null]`), so an undo re-creates it;
- its outcome: `{"r": row, "s": status, "id": ..., "e": error, "n": name, "c": changes, "l": left}` (a
  copy's row also with `"src"`, the id of the record it copies in the other profile; a
  failed create's also with `"b"` and `"p"`, as its intent, so the run that retries it can tell) where
  `changes` is `{field: [old, new]}`: for an update the values before and after (what undo puts
  back), for a create the fields it was given (old null); `left` is a created record as the run
  left it (the service's answer, every field), which undo compares the record with before deleting it;
- `{"end": true, "counts": {...}}` when the run is complete.

Every line is written (os.write, so a killed process loses nothing it wrote) before the next step:
a row whose intent cannot be written is not sent, and a failed write stops the run (`JournalError`).
A background thread fsyncs at most once a second, for power loss (an fsync blocks writes to its file,
so more often stalls the workers). Runs live under the state directory,
one folder per profile: `$XDG_STATE_HOME/wfctl/runs/<profile>/<run>.journal`. A run holds a lock on its
import (kind, file, target, parent) for as long as it runs, so a second run of the same import at
once refuses instead of sending the same rows: where runs live and that lock are `wfctl.runs.session`
(its names re-exported here).
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Iterator
from typing import Any

from wfctl.fsutil import open_private, private_dir
from wfctl.runs.groupwrite import GroupWrite
from wfctl.runs.journalentry import DELETE as DELETE
from wfctl.runs.journalentry import DONE as DONE
from wfctl.runs.journalentry import SENDING as SENDING
from wfctl.runs.journalentry import ActionKey as ActionKey
from wfctl.runs.journalentry import Entry as Entry
from wfctl.runs.journalentry import Key, OldForm, decode, key_fields, seed
from wfctl.runs.journalread import JournalError as JournalError
from wfctl.runs.journalread import find_unfinished as find_unfinished
from wfctl.runs.journalread import header_of as header_of
from wfctl.runs.journalread import is_finished as is_finished
from wfctl.runs.journalread import iter_entries as iter_entries
from wfctl.runs.journalread import read as read
from wfctl.runs.journalread import scan
from wfctl.runs.session import ImportLock as ImportLock
from wfctl.runs.session import RunLocked as RunLocked
from wfctl.runs.session import RunRecord, as_record
from wfctl.runs.session import import_key as import_key
from wfctl.runs.session import journal_path as journal_path
from wfctl.runs.session import new_run_id as new_run_id
from wfctl.runs.session import runs_dir as runs_dir

FSYNC_INTERVAL = 1.0  # for power loss only: a killed process loses nothing it wrote; an fsync stalls writes


def idempotency_key(header: RunRecord | dict[str, Any], kind: str, parent_id: str | None, key: Key) -> str:
    """The Idempotency-Key of one row's create in the run of `header` (and the run that resumes it): the
    run's nonce makes a later run of the same file send new keys, so no replayed answer stands for a
    record deleted since; an undo sends it again to learn what a killed run's create did."""
    import hashlib

    record = as_record(header)
    text = f"{record.nonce}:{record.identity}:{kind}:{parent_id or ''}:{seed(key)}"
    return "wfctl-import-" + hashlib.sha256(text.encode()).hexdigest()[:40]


class Journal:
    """The journal of one run, open for appending. In memory it keeps one status byte and one file
    offset per file row (9 bytes a row: memory stays flat in the file's size), and a status and offset
    per action on a record (a command's run is no larger than its sites); an entry is read back from
    the file when asked for. Every method takes a key (journalentry: a file row, or an `ActionKey`).
    `Journal.resume(path)` reopens an unfinished one; `entries` (a caller's already-read entries, e.g.
    undo's) also resumes. `run_record` is the run's header; `header`, the same as its journal spells it."""

    def __init__(self, path: str, header: RunRecord | dict[str, Any], entries: dict[Key, Entry] | None = None, *,
                 _scan: bool = False, durable: bool = True) -> None:
        self.path = path
        self.run_record = as_record(header)
        self.header = self.run_record.to_json()
        self._codes = bytearray()
        self._offsets = array("Q")
        self._keyed: dict[ActionKey, tuple[int, int]] = {}  # an action on a record: (status code, offset)
        self._given: dict[Key, Entry] = dict(entries or {})
        self._old = OldForm(self.header, path if (entries is not None or _scan) else "")
        self._dirty = False
        self._closed = threading.Event()
        self._failed: JournalError | None = None
        self._reader: int | None = None
        _makedirs(os.path.dirname(path))
        try:
            if entries is None and not _scan:
                self._fd = open_private(path)
                data = (json.dumps(self.header, sort_keys=True) + "\n").encode()
                os.write(self._fd, data)
                if durable:
                    os.fsync(self._fd)
                self._size = len(data)
            else:
                self._fd = os.open(path, os.O_RDWR | os.O_APPEND)
                _drop_cut_line(self._fd)
                self._size = os.fstat(self._fd).st_size
        except OSError as exc:
            raise JournalError(path, exc) from None
        self._appender = GroupWrite(self._fd, self._size)
        for key, entry in self._given.items():
            self._set(key, entry.status, 0)
        self.resumed = 0
        self._durable = durable  # False: a plan's temporary journal, never fsynced
        self._syncer = threading.Thread(target=self._sync_loop, name="wfctl-journal-fsync", daemon=True)
        if durable:
            self._syncer.start()

    @classmethod
    def resume(cls, path: str) -> Journal:
        """Reopen an unfinished journal: each action's latest status and where its line starts."""
        header, offsets, _ = scan(path)
        journal = cls(path, header, _scan=True)
        for key, (status, offset) in offsets.items():
            journal._set(key, status, offset)
        journal.resumed = sum(1 for key in offsets if journal.done(key))
        return journal

    @property
    def run_id(self) -> str:
        return self.run_record.run

    def status(self, key: Key) -> str | None:
        if isinstance(key, int):
            code = self._codes[key] if key < len(self._codes) else 0
        else:
            code = self._keyed.get(key, (0, 0))[0]
        return _STATUS_NAMES[code] if code else None

    def done(self, key: Key) -> bool:
        return self.status(key) in DONE

    def was_sending(self, key: Key) -> bool:
        """Whether a run sent this action and was stopped before its answer was recorded."""
        return self.status(key) == SENDING

    def create_in_doubt(self, key: Key) -> bool:
        """Whether a run sent this row as a create and does not know what the service did with it: it
        stopped while sending it, or recorded it failed (a failed create's line holds its body)."""
        status = self.status(key)
        if status == SENDING:
            return True
        if status != "failed":
            return False
        entry = self.entry(key)
        return entry is not None and entry.body is not None

    def rows(self) -> Iterator[Key]:
        """The keys that have an entry: the file's rows in order, then the actions on records as first met."""
        yield from (row for row, code in enumerate(self._codes) if code)
        yield from self._keyed

    def entry(self, key: Key) -> Entry | None:
        """The action's latest entry, read back from the file."""
        if isinstance(key, int):
            offset = self._offsets[key] if key < len(self._offsets) else 0
        else:
            offset = self._keyed.get(key, (0, 0))[1]
        if not offset:
            return self._given.get(key)
        if self._reader is None:
            self._reader = os.open(self.path, os.O_RDONLY)
        data = b""
        while not data.endswith(b"\n"):  # pread: no stale buffer while the file grows
            chunk = os.pread(self._reader, 4096, offset + len(data))
            if not chunk:
                break
            data += chunk.split(b"\n", 1)[0] + (b"\n" if b"\n" in chunk else b"")
        return decode(json.loads(data), self._old)

    def iter_entries(self) -> Iterator[Entry]:
        """Every action's latest entry, in `rows()` order: read through one memory map of the file (no
        system call a row), so a large plan or report reads its journal quickly."""
        import mmap

        if self._appender.size == 0 or not (self._offsets or self._keyed):
            return
        with open(self.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
            loads, find, given, old = json.loads, view.find, self._given, self._old
            for key in self.rows():
                offset = self._offsets[key] if isinstance(key, int) else self._keyed[key][1]
                if offset:
                    yield decode(loads(view[offset:find(b"\n", offset)]), old)
                elif key in given:
                    yield given[key]

    @property
    def entries(self) -> dict[Key, Entry]:
        """Every action's latest entry (read from the file: for reports and undo, not per-row paths)."""
        return {entry.key: entry for entry in self.iter_entries()}

    def intend(self, key: Key, changes: dict[str, list[Any]] | None = None, *, record_id: str = "",
               create: tuple[str, str | None, dict[str, Any]] | None = None,
               delete: tuple[str, str | None] | None = None, order: list[int] | None = None) -> None:
        """Record that the action `key` is about to be sent (an update: with its record's id and changes,
        old values read before; a create: with its (name, parent id, body); a prune's delete: (name, parent
        id); a cycle's temporary rename: its `order`). Raises JournalError: then it must not be sent."""
        line: dict[str, Any] = {"r": key, "s": SENDING} if isinstance(key, int) else {**key_fields(key), "s": SENDING}
        if order:
            line["o"] = order
        if changes:
            line["c"] = changes
        if record_id:
            line["id"] = record_id
        if create is not None:
            name, parent, body = create
            line.update(n=name, b=body)
            if parent:
                line["p"] = parent
        if delete is not None:  # (name, parent id) of the record a prune deletes
            line["n"] = delete[0]
            if delete[1]:
                line["p"] = delete[1]
        self._write(key, SENDING, line)

    def record(self, key: Key, status: str, record_id: str = "", error: str = "", name: str = "",
               changes: dict[str, list[Any]] | None = None, left: dict[str, Any] | None = None, *,
               create: tuple[str | None, dict[str, Any]] | None = None, deleted: str | None = None,
               order: list[int] | None = None, source: str = "") -> None:
        """An action's outcome; `create` (parent id, body): what a failed create sent, as its intent said;
        `deleted`: the parent id ("" for none) of a prune's delete; `order`: a cycle's temporary rename's;
        `source`: a copy's row, the id of the record it copies in the other profile (`"src"`)."""
        line: dict[str, Any] = {"r": key, "s": status} if isinstance(key, int) else {**key_fields(key), "s": status}
        if source:
            line["src"] = source
        if order:
            line["o"] = order
        for name_, value in (("id", record_id), ("e", error), ("n", name), ("c", changes), ("l", left)):
            if value:
                line[name_] = value
        if create is not None:
            parent, line["b"] = create
            if parent:
                line["p"] = parent
        if deleted:
            line["p"] = deleted
        self._write(key, status, line)

    def finish(self, counts: dict[str, int] | None) -> None:
        """Flush and close; `counts` (a complete run) writes the end line. Once closed, does nothing."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._syncer.is_alive():
            self._syncer.join()
        try:
            if counts is not None and self._failed is None:
                os.write(self._fd, (json.dumps({"end": True, "counts": counts}) + "\n").encode())
            if self._durable:
                os.fsync(self._fd)
        except OSError:
            pass  # the rows are written; a missing end line only means "resumable"
        finally:
            os.close(self._fd)
            if self._reader is not None:
                os.close(self._reader)
                self._reader = None

    # -- private -----------------------------------------------------------------------------

    def _set(self, key: Key, status: str, offset: int) -> None:
        if not isinstance(key, int):
            self._keyed[key] = (_code(status), offset)
            return
        if key >= len(self._codes):
            grow = key + 1 - len(self._codes) + 1024
            self._codes.extend(bytes(grow))
            self._offsets.extend([0] * grow)
        self._codes[key] = _code(status)
        self._offsets[key] = offset

    def _write(self, key: Key, status: str, line: dict[str, Any]) -> None:
        """Append `line` (with the lines of other actions that come together: groupwrite.py)."""
        if self._failed is not None:
            raise self._failed
        try:
            self._appender.append((_encode(line) + "\n").encode(), lambda offset: self._set(key, status, offset))
        except OSError as exc:
            self._failed = self._failed or JournalError(self.path, exc)
            raise self._failed from None
        self._dirty = True

    def _sync_loop(self) -> None:
        while not self._closed.wait(FSYNC_INTERVAL):
            if self._dirty:
                self._dirty = False
                try:
                    os.fsync(self._fd)
                except OSError:
                    return


_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode  # one for the process

_STATUS_NAMES: list[str] = ["", SENDING, "created", "updated", "unchanged", "skipped", "failed", "undone"]


def _code(status: str) -> int:
    try:
        return _STATUS_NAMES.index(status)
    except ValueError:
        _STATUS_NAMES.append(status)  # a status of another run kind (undo's "changed", "gone", ...)
        return len(_STATUS_NAMES) - 1


def _drop_cut_line(fd: int) -> None:
    """Cut a last line that a kill or a full disk left without its newline (read() ignores it), so
    what a resumed run appends starts a line of its own instead of corrupting that one."""
    end = os.fstat(fd).st_size
    if end == 0 or os.pread(fd, 1, end - 1) == b"\n":
        return
    while end > 0:
        start = max(0, end - 4096)
        cut = os.pread(fd, end - start, start).rfind(b"\n")
        if cut >= 0:
            os.ftruncate(fd, start + cut + 1)
            return
        end = start


def _makedirs(directory: str) -> None:
    if directory:
        private_dir(directory)  # 0700 whatever the umask, parents included

