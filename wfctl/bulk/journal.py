"""The import journal: an append-only file of each row's outcome, so a killed run can be resumed.

One JSON object per line. The first line names the run (file hash, kind, target); then
`{"r": row, "s": status, "id": ..., "e": error}` per finished row; `{"end": true}` when every row
is done. A background thread writes the lines in batches and fsyncs them (every 50 ms at most): no
write or fsync on the per-row path (an fsync blocks writes to its file, which measurably stalled the
workers when they wrote their own lines). A kill loses at most the last batch: those rows were done,
and the next run finds their records by natural key instead of creating them again.

A journal whose header matches and that has no end line is resumed: its done rows are not sent again.
A finished journal is started afresh (a re-run then finds every record by its natural key).
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from typing import Any

DONE = frozenset({"created", "updated", "unchanged", "skipped"})
FSYNC_INTERVAL = 0.05


def default_path(kind: str, file_sha: str, target: str) -> str:
    import hashlib

    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    tag = hashlib.sha256(target.encode()).hexdigest()[:10]
    return os.path.join(base, "wfctl", "imports", f"{kind}-{file_sha[:16]}-{tag}.journal")


class Journal:
    """Outcomes by row. `offsets[row]` is where that row's latest line starts (0: none; the header is
    at 0). Four bytes and one a row: memory stays flat in the file's size."""

    def __init__(self, path: str, header: dict[str, Any], rows: int, *, resume: bool = True) -> None:
        self.path = path
        self.offsets = array("L", [0]) * (rows + 1)
        self.done = bytearray(rows + 1)
        self.resumed = 0
        self._lock = threading.Lock()
        self._pending: list[bytes] = []
        self._write_lock = threading.Lock()
        self._closed = threading.Event()
        self._reader: int | None = None
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, mode=0o700, exist_ok=True)
        header_line = json.dumps({"journal": 1, **header}, sort_keys=True)
        if resume and self._load(header_line):
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            self._size = os.fstat(self._fd).st_size
        else:
            self.offsets = array("L", [0]) * (rows + 1)
            self.done = bytearray(rows + 1)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._size = 0
            self._append(header_line)
            os.fsync(self._fd)
        self._syncer = threading.Thread(target=self._sync_loop, name="wfctl-journal-fsync", daemon=True)
        self._syncer.start()

    def record(self, row: int, status: str, record_id: str = "", error: str = "") -> None:
        data = (json.dumps({"r": row, "s": status, "id": record_id, "e": error}, ensure_ascii=False)
                + "\n").encode()
        with self._lock:
            self.offsets[row] = self._size
            self._size += len(data)
            self._pending.append(data)
            if status in DONE:
                self.done[row] = 1

    def outcome(self, row: int) -> tuple[str, str, str] | None:
        """(status, id, error) of the row's latest line, read back from the file."""
        offset = self.offsets[row] if row < len(self.offsets) else 0
        if offset <= 0:
            return None
        if self._pending and not self._closed.is_set():
            self._flush()
        if self._reader is None:
            self._reader = os.open(self.path, os.O_RDONLY)
        data = b""
        while not data.endswith(b"\n"):  # pread: no stale buffer while the file grows
            chunk = os.pread(self._reader, 4096, offset + len(data))
            if not chunk:
                break
            data += chunk.split(b"\n", 1)[0] + (b"\n" if b"\n" in chunk else b"")
        entry = json.loads(data)
        return entry["s"], entry.get("id") or "", entry.get("e") or ""

    def finish(self, complete: bool) -> None:
        """Flush and close; `complete` writes the end line (a later run starts afresh)."""
        self._closed.set()
        self._syncer.join()
        self._flush()
        if complete:
            self._append(json.dumps({"end": True}))
        os.fsync(self._fd)
        os.close(self._fd)

    def close_reader(self) -> None:
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None

    # -- private -----------------------------------------------------------------------------

    def _append(self, line: str) -> None:
        data = (line + "\n").encode()
        os.write(self._fd, data)
        self._size += len(data)

    def _flush(self) -> bool:
        with self._write_lock:  # batches reach the file in the order their offsets were given
            with self._lock:
                batch, self._pending = self._pending, []
            if batch:
                os.write(self._fd, b"".join(batch))
            return bool(batch)

    def _sync_loop(self) -> None:
        while not self._closed.wait(FSYNC_INTERVAL):
            try:
                if self._flush():
                    os.fsync(self._fd)
            except OSError:
                return

    def _load(self, header_line: str) -> bool:
        """Read an unfinished journal of the same run; False when there is none to resume."""
        if not os.path.exists(self.path):
            return False
        with open(self.path, "rb") as f:
            first = f.readline()
            if not first.endswith(b"\n") or first.decode(errors="replace").strip() != header_line:
                return False
            offset = len(first)
            good_end = offset
            for raw in f:
                if not raw.endswith(b"\n"):
                    break  # a line cut by a kill: ignored, and overwritten below
                try:
                    entry = json.loads(raw)
                except ValueError:
                    break
                if entry.get("end"):
                    return False
                row = entry.get("r")
                if isinstance(row, int) and 0 < row < len(self.offsets):
                    self.offsets[row] = offset
                    self.done[row] = 1 if entry.get("s") in DONE else 0
                offset += len(raw)
                good_end = offset
        if good_end != os.path.getsize(self.path):
            with open(self.path, "r+b") as f:
                f.truncate(good_end)
        self.resumed = sum(self.done)
        return True
