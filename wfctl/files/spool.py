"""The spool of an import's checked rows: validation writes each valid row's body once, the send pass (or
a plan's report) reads them back, so no row is decoded and validated twice.

marshal, not JSON: several times faster both ways, and the spool never outlives the process that wrote
it. A run's row is `size, (row, parent id, body)`; a plan's is `sizes, (row, parent id, name, JSON text of
its changes), body`, its body still marshalled (a plan's create reads it only for text output).
"""

from __future__ import annotations

import contextlib
import marshal
import struct
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from wfctl.fsutil import LocalWriteError

_SIZES = struct.Struct("<II")  # a plan's spooled row: the sizes of its head and of its body, then both
_BATCH = 256  # rows written at a time


class Spool:
    def __init__(self, planned: bool) -> None:
        self.planned = planned  # a plan's spool (its rows carry what a create is written from)
        try:
            self._file = tempfile.TemporaryFile(prefix="wfctl-rows-")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise TemporaryFull(exc) from None
        self._pending: list[bytes] = []  # written a few hundred rows at a time

    def add(self, number: int, parent: str | None, body: dict[str, Any]) -> None:
        """A run's checked row."""
        record = marshal.dumps((number, parent, body))
        self._buffer(len(record).to_bytes(4, "little") + record)

    def add_prepared(self, number: int, parent: str | None, body: dict[str, Any], existing: dict[str, Any] | None,
                     current: dict[str, Any] | None, outcome: tuple[Any, ...]) -> None:
        """A prepared action (readyplan.py): its row, and for an update the record it updates, the whole
        record as planning read it (`current`, None when it was not read); its outcome as planned."""
        record = marshal.dumps((number, parent, body, existing, current, outcome))
        self._buffer(len(record).to_bytes(4, "little") + record)

    def prepared_rows(self) -> Iterator[tuple[int, str | None, dict[str, Any], Any, Any, tuple[Any, ...]]]:
        """The planned actions of `add_prepared`, in the order they were added."""
        self.written()
        read = self._rewound()
        while size := read(4):
            yield marshal.loads(read(int.from_bytes(size, "little")))

    def add_error(self, number: int, error: str) -> None:
        """An invalid row's error, as the report says it."""
        record = marshal.dumps((number, error))
        self._buffer(len(record).to_bytes(4, "little") + record)

    def errors(self) -> Iterator[tuple[int, str]]:
        """The errors of `add_error`, in the order they were added."""
        self.written()
        read = self._rewound()
        while size := read(4):
            yield marshal.loads(read(int.from_bytes(size, "little")))

    def add_planned(self, number: int, parent: str | None, name: str, fields_json: str,
                    body: dict[str, Any]) -> None:
        """A plan's checked row: before its body, apart, what its create is written from."""
        head = marshal.dumps((number, parent, name, fields_json))
        rest = marshal.dumps(body)
        self._buffer(_SIZES.pack(len(head), len(rest)) + head + rest)

    def _buffer(self, data: bytes) -> None:
        pending = self._pending
        pending.append(data)
        if len(pending) >= _BATCH:
            self._write(b"".join(pending))
            pending.clear()

    def written(self) -> None:
        """Every row is added: write what is still buffered."""
        self._write(b"".join(self._pending))
        self._pending.clear()

    def checked_rows(self) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
        """(row, parent id, body) of every row that passed the checks."""
        if self.planned:
            for (number, parent, _, _), body in self.planned_rows():
                yield number, parent, marshal.loads(body)
            return
        read = self._rewound()
        while size := read(4):
            yield marshal.loads(read(int.from_bytes(size, "little")))

    def planned_rows(self) -> Iterator[tuple[tuple[int, str | None, str, str], bytes]]:
        """A plan's checked rows: each one's (row, parent id, name, JSON text of its changes), and its body
        still marshalled."""
        read = self._rewound()
        while sizes := read(_SIZES.size):
            head, rest = _SIZES.unpack(sizes)
            yield marshal.loads(read(head)), read(rest)

    def _rewound(self) -> Callable[[int], bytes]:
        """The spool's read, from its start."""
        self._write(b"")  # flushed
        self._file.seek(0)
        return self._file.read

    def _write(self, data: bytes) -> None:
        try:
            self._file.write(data)
            self._file.flush()
        except OSError as exc:
            raise TemporaryFull(exc) from None

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:  # what a full disk left in its buffer: the file goes anyway
            with contextlib.suppress(OSError):
                self._file.close()


class TemporaryFull(LocalWriteError):
    """A temporary file of the import (its checked rows, a plan's journal) could not be written: a local
    fault (exit 11), as for the journal; nothing was sent."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(_temporary_folder(), cause)
        if isinstance(cause, FileNotFoundError) and "temporary directory" in str(cause):
            # tempfile tries a file in each candidate folder first: none could be written
            self.reason = "no temporary folder could be written (full, or not writable)"

    def __str__(self) -> str:
        return f"cannot write a temporary file of the import in {self.path}: {self.reason}; free some space and run again"


def _temporary_folder() -> str:
    """Where temporary files go, without asking tempfile.gettempdir (which writes a file to find out)."""
    import os

    chosen = tempfile.tempdir or next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)),
                                      None)
    return chosen or "the temporary folder"
