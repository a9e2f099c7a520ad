"""The run journal: an append-only file per bulk run (import, undo, rates set), so a killed run resumes,
and a finished one can be listed, shown and undone.

It is keyed by action (wfctl.bulk.engine): `"r"` is the key an action is journalled under, a file row
of an import, the row of the run an undo takes back, a site of a rate change (the next free key, or the
one an earlier run of the same change gave it). The format is the one of every journal written since
version 2, so runs journalled before the executor still list, show, resume and undo.

One JSON object per line:

- the header, a `wfctl.bulk.runrecord.RunRecord`: `{"journal": 2, "run": "<id>", "nonce", "kind", "file"
  (an import's) or "command" and "change" (a command's run), "path", "target", "profile", "parent",
  "onExisting", "started", "undo", "note"}` (`undo`: the run id an undo run takes back, else null);
- before an action's row is sent, its intent: `{"r": row, "s": "sending"}`, an update's with its changes (`"c"`,
  as below), so a run that resumes it knows it for an update and undo can still put the old values back;
  a create's with its name (`"n"`), parent id (`"p"`) and body (`"b"`), so an undo can find out what
  a killed run's create did; a prune's delete (`"x": "delete"`, its key after the file's rows) with the
  record's id, parent (`"p"`) and every field it held as changes (`[old, null]`), so an undo re-creates it;
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
once refuses instead of sending the same rows: where runs live and that lock are `wfctl.bulk.runfiles`
(its names re-exported here).
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wfctl.bulk.groupwrite import GroupWrite
from wfctl.bulk.runfiles import ImportLock as ImportLock
from wfctl.bulk.runfiles import RunLocked as RunLocked
from wfctl.bulk.runfiles import import_key, list_journals
from wfctl.bulk.runfiles import journal_path as journal_path
from wfctl.bulk.runfiles import new_run_id as new_run_id
from wfctl.bulk.runfiles import runs_dir as runs_dir
from wfctl.bulk.runrecord import VERSION, RunRecord, as_record
from wfctl.fsutil import open_private, private_dir

DONE = frozenset({"created", "updated", "unchanged", "skipped", "undone", "deleted", "gone"})
#: The `"x"` of a prune's delete: its key is no file row (issue 32).
DELETE = "delete"
SENDING = "sending"
FSYNC_INTERVAL = 1.0  # for power loss only: a killed process loses nothing it wrote; an fsync stalls writes


class JournalError(Exception):
    """A journal could not be written or read: the run stops; nothing sent is unrecorded."""

    def __init__(self, path: str, cause: OSError | str) -> None:
        reason = cause if isinstance(cause, str) else (cause.strerror or str(cause)).lower()
        super().__init__(f"cannot write the journal ({path}): {reason}")
        self.path = path
        self.reason = reason


@dataclass
class Entry:
    """The latest line of one row."""

    row: int
    status: str
    id: str = ""
    error: str = ""
    name: str = ""
    changes: dict[str, list[Any]] = field(default_factory=dict)
    left: dict[str, Any] | None = None  # a created record as the run left it
    parent: str = ""  # a create's parent id (its intent)
    body: dict[str, Any] | None = None  # a create's body (its intent)
    action: str = ""  # "delete": a prune's delete (its key is after the file's rows); else a file row's
    #: a rename cycle's temporary rename (`"o"`, its key after the file's rows): the rows of its cycle in the
    #: order they were sent after it (undo takes them back in the reverse order, then this one)
    order: list[int] = field(default_factory=list)
    #: a copy's row (`copy --from-profile`): the id of the record it was copied from, in the other profile
    source: str = ""

    @property
    def done(self) -> bool:
        return self.status in DONE


def idempotency_key(header: RunRecord | dict[str, Any], kind: str, parent_id: str | None, row: int) -> str:
    """The Idempotency-Key of one row's create in the run of `header` (and the run that resumes it): the
    run's nonce makes a later run of the same file send new keys, so no replayed answer stands for a
    record deleted since; an undo sends it again to learn what a killed run's create did."""
    import hashlib

    record = as_record(header)
    seed = f"{record.nonce}:{record.identity}:{kind}:{parent_id or ''}:{row}"
    return "wfctl-import-" + hashlib.sha256(seed.encode()).hexdigest()[:40]


class Journal:
    """The journal of one run, open for appending. In memory it keeps one status byte and one file
    offset per row (9 bytes a row: memory stays flat in the file's size); a row's whole entry is read
    back from the file when asked for. `Journal.resume(path)` reopens an unfinished one; `entries`
    (a caller's already-read rows, e.g. undo's) also resumes. `run_record` is the run's header; `header`, the
    same as its journal spells it."""

    def __init__(self, path: str, header: RunRecord | dict[str, Any], entries: dict[int, Entry] | None = None, *,
                 _scan: bool = False, durable: bool = True) -> None:
        self.path = path
        self.run_record = as_record(header)
        self.header = self.run_record.to_json()
        self._codes = bytearray()
        self._offsets = array("Q")
        self._given: dict[int, Entry] = dict(entries or {})
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
        for row, entry in self._given.items():
            self._set(row, entry.status, 0)
        self.resumed = 0
        self._durable = durable  # False: a plan's temporary journal, never fsynced
        self._syncer = threading.Thread(target=self._sync_loop, name="wfctl-journal-fsync", daemon=True)
        if durable:
            self._syncer.start()

    @classmethod
    def resume(cls, path: str) -> Journal:
        """Reopen an unfinished journal: each row's latest status and where its line starts."""
        header, offsets, _ = _scan(path)
        journal = cls(path, header, _scan=True)
        for row, (status, offset) in offsets.items():
            journal._set(row, status, offset)
        journal.resumed = sum(1 for row in offsets if journal.done(row))
        return journal

    @property
    def run_id(self) -> str:
        return self.run_record.run

    def status(self, row: int) -> str | None:
        code = self._codes[row] if row < len(self._codes) else 0
        return _STATUS_NAMES[code] if code else None

    def done(self, row: int) -> bool:
        return self.status(row) in DONE

    def was_sending(self, row: int) -> bool:
        """Whether a run sent this row and was stopped before its answer was recorded."""
        return self.status(row) == SENDING

    def create_in_doubt(self, row: int) -> bool:
        """Whether a run sent this row as a create and does not know what the service did with it: it
        stopped while sending it, or recorded it failed (a failed create's line holds its body)."""
        status = self.status(row)
        if status == SENDING:
            return True
        if status != "failed":
            return False
        entry = self.entry(row)
        return entry is not None and entry.body is not None

    def rows(self) -> Iterator[int]:
        """The rows that have an entry, in order."""
        return (row for row, code in enumerate(self._codes) if code)

    def entry(self, row: int) -> Entry | None:
        """The row's latest entry, read back from the file."""
        offset = self._offsets[row] if row < len(self._offsets) else 0
        if not offset:
            return self._given.get(row)
        if self._reader is None:
            self._reader = os.open(self.path, os.O_RDONLY)
        data = b""
        while not data.endswith(b"\n"):  # pread: no stale buffer while the file grows
            chunk = os.pread(self._reader, 4096, offset + len(data))
            if not chunk:
                break
            data += chunk.split(b"\n", 1)[0] + (b"\n" if b"\n" in chunk else b"")
        return _entry(json.loads(data))

    def iter_entries(self) -> Iterator[Entry]:
        """Every row's latest entry, in row order: read through one memory map of the file (no system
        call a row), so a large plan or report reads its journal quickly."""
        import mmap

        if self._appender.size == 0 or not self._offsets:
            return
        with open(self.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
            loads, find, offsets, given = json.loads, view.find, self._offsets, self._given
            for row in self.rows():
                offset = offsets[row]
                if offset:
                    yield _entry(loads(view[offset:find(b"\n", offset)]))
                elif row in given:
                    yield given[row]

    @property
    def entries(self) -> dict[int, Entry]:
        """Every row's latest entry (read from the file: for reports and undo, not per-row paths)."""
        return {entry.row: entry for entry in self.iter_entries()}

    def intend(self, row: int, changes: dict[str, list[Any]] | None = None, *, record_id: str = "",
               create: tuple[str, str | None, dict[str, Any]] | None = None,
               delete: tuple[str, str | None] | None = None, order: list[int] | None = None) -> None:
        """Record that `row` is about to be sent (an update: with its record's id and changes, old values
        read before; a create: with its (name, parent id, body); a cycle's temporary rename: its `order`).
        Raises JournalError: then it must not be sent."""
        line: dict[str, Any] = {"r": row, "s": SENDING}
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
            line.update(x=DELETE, n=delete[0])
            if delete[1]:
                line["p"] = delete[1]
        self._write(row, SENDING, line)

    def record(self, row: int, status: str, record_id: str = "", error: str = "", name: str = "",
               changes: dict[str, list[Any]] | None = None, left: dict[str, Any] | None = None, *,
               create: tuple[str | None, dict[str, Any]] | None = None, deleted: str | None = None,
               order: list[int] | None = None, source: str = "") -> None:
        """A row's outcome; `create` (parent id, body): what a failed create sent, as its intent said;
        `deleted`: the parent id ("" for none) of a prune's delete; `order`: a cycle's temporary rename's;
        `source`: a copy's row, the id of the record it copies in the other profile (`"src"`)."""
        line: dict[str, Any] = {"r": row, "s": status}
        if source:
            line["src"] = source
        if order:
            line["o"] = order
        for key, value in (("id", record_id), ("e", error), ("n", name), ("c", changes), ("l", left)):
            if value:
                line[key] = value
        if create is not None:
            parent, line["b"] = create
            if parent:
                line["p"] = parent
        if deleted is not None:
            line["x"] = DELETE
            if deleted:
                line["p"] = deleted
        self._write(row, status, line)

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

    def _set(self, row: int, status: str, offset: int) -> None:
        if row >= len(self._codes):
            grow = row + 1 - len(self._codes) + 1024
            self._codes.extend(bytes(grow))
            self._offsets.extend([0] * grow)
        self._codes[row] = _code(status)
        self._offsets[row] = offset

    def _write(self, row: int, status: str, line: dict[str, Any]) -> None:
        """Append `line` (with the lines of other rows that come together: groupwrite.py)."""
        if self._failed is not None:
            raise self._failed
        try:
            self._appender.append((_encode(line) + "\n").encode(), lambda offset: self._set(row, status, offset))
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


def _entry(line: dict[str, Any]) -> Entry:
    left, body, order = line.get("l"), line.get("b"), line.get("o")
    return Entry(int(line["r"]), str(line["s"]), str(line.get("id") or ""), str(line.get("e") or ""),
                 str(line.get("n") or ""), dict(line.get("c") or {}),
                 left if isinstance(left, dict) else None, str(line.get("p") or ""),
                 body if isinstance(body, dict) else None, str(line.get("x") or ""),
                 [int(row) for row in order] if isinstance(order, list) else [], str(line.get("src") or ""))


# -- finding, reading and locking runs -------------------------------------------------------------

def read(path: str) -> tuple[dict[str, Any], dict[int, Entry], dict[str, Any] | None]:
    """(header, latest entry per row, end line or None) of a journal. A line cut by a kill ends it;
    a corrupted line raises JournalError naming the file and the line."""
    entries: dict[int, Entry] = {}
    header: dict[str, Any] = {}
    end = None
    for header_line, line in _lines(path):
        header = header_line
        if line is None:
            continue
        if line.get("end"):
            end = line
        else:
            entries[int(line["r"])] = _entry(line)
    return header, entries, end


def _scan(path: str) -> tuple[dict[str, Any], dict[int, tuple[str, int]], dict[str, Any] | None]:
    """Like `read`, but only each row's latest status and the offset of its line."""
    offsets: dict[int, tuple[str, int]] = {}
    header: dict[str, Any] = {}
    end = None
    offset = 0
    try:
        with open(path, "rb") as f:
            first = f.readline()
            header = _header(path, first)
            offset = len(first)
            for number, raw in enumerate(f, start=2):
                if not raw.endswith(b"\n"):
                    break
                line = _parse(path, number, raw)
                if line.get("end"):
                    end = line
                else:
                    offsets[int(line["r"])] = (str(line["s"]), offset)
                offset += len(raw)
    except OSError as exc:
        raise JournalError(path, exc) from None
    return header, offsets, end


def _lines(path: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise JournalError(path, exc) from None
    with f:
        header = _header(path, f.readline())
        yield header, None
        for number, raw in enumerate(f, start=2):
            if not raw.endswith(b"\n"):
                break  # cut by a kill
            yield header, _parse(path, number, raw)


def _parse(path: str, number: int, raw: bytes) -> dict[str, Any]:
    try:
        line = json.loads(raw)
        if not isinstance(line, dict) or not (line.get("end") or (int(line["r"]) >= 0 and "s" in line)):
            raise ValueError
        return line
    except (ValueError, KeyError, TypeError):
        raise JournalError(path, f"line {number} is corrupted; move the file away to start afresh") from None


def header_of(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            return _header(path, f.readline())
    except (OSError, JournalError):
        return None


def is_finished(path: str) -> bool:
    """Whether the journal's last line is the end line (read from the end, not the whole file)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4096))
            tail = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except OSError:
        return False
    return tail.startswith(b'{"end": true')


def find_unfinished(directory: str, header: RunRecord | dict[str, Any]) -> str | None:
    """The newest unfinished journal in `directory` of the same import as `header`, if any."""
    key = import_key(header)
    best: tuple[float, str] | None = None
    for path in list_journals(directory):
        other = header_of(path)
        if other is None or other.get("journal") != VERSION or import_key(other) != key:
            continue
        if is_finished(path):
            continue
        mtime = os.path.getmtime(path)
        if best is None or mtime > best[0]:
            best = (mtime, path)
    return best[1] if best else None


def iter_entries(entries: dict[int, Entry]) -> Iterator[Entry]:
    """Entries (of `read`) in row order."""
    for row in sorted(entries):
        yield entries[row]


def _header(path: str, first: bytes) -> dict[str, Any]:
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or "journal" not in header:
        raise JournalError(path, "not a wfctl journal")
    return header


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

