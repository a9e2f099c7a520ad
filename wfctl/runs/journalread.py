"""Reading a run's journal back (wfctl.runs.journal writes it): its header, each action's latest entry
(the shape of a line, and the old form's, is wfctl.runs.journalentry), whether it ended, and the unfinished
run of the same import or change in a folder of runs."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from wfctl.runs.journalentry import Entry, Key, OldForm, decode, key_of
from wfctl.runs.session import VERSION, RunRecord, import_key, list_journals


class JournalError(Exception):
    """A journal could not be written or read: the run stops; nothing sent is unrecorded."""

    def __init__(self, path: str, cause: OSError | str) -> None:
        reason = cause if isinstance(cause, str) else (cause.strerror or str(cause)).lower()
        super().__init__(f"cannot write the journal ({path}): {reason}")
        self.path = path
        self.reason = reason


def read(path: str) -> tuple[dict[str, Any], dict[Key, Entry], dict[str, Any] | None]:
    """(header, latest entry per action, end line or None) of a journal, in journal order (`ordered`).
    A line cut by a kill ends it; a corrupted line raises JournalError naming the file and the line."""
    entries: dict[Key, Entry] = {}
    header: dict[str, Any] = {}
    end = None
    old: OldForm | None = None
    for header_line, line in _lines(path):
        header = header_line
        if line is None:
            old = OldForm(header, path)
            continue
        if line.get("end"):
            end = line
        else:
            entry = decode(line, old)
            entries[entry.key] = entry
    return header, ordered(entries), end


def ordered(entries: dict[Key, Entry]) -> dict[Key, Entry]:
    """Entries in journal order: the file's rows by number, then the actions on records as first met
    (the order an undo takes back, reversed)."""
    rows = sorted(key for key in entries if isinstance(key, int))
    return {**{row: entries[row] for row in rows},
            **{key: entry for key, entry in entries.items() if not isinstance(key, int)}}


def scan(path: str) -> tuple[dict[str, Any], dict[Key, tuple[str, int]], dict[str, Any] | None]:
    """Like `read`, but only each action's latest status and the offset of its line."""
    offsets: dict[Key, tuple[str, int]] = {}
    header: dict[str, Any] = {}
    end = None
    offset = 0
    try:
        with open(path, "rb") as f:
            first = f.readline()
            header = _header(path, first)
            old = OldForm(header, path)
            offset = len(first)
            for number, raw in enumerate(f, start=2):
                if not raw.endswith(b"\n"):
                    break
                line = _parse(path, number, raw)
                if line.get("end"):
                    end = line
                else:
                    offsets[key_of(line, old)] = (str(line["s"]), offset)
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
        if not isinstance(line, dict) or not (line.get("end") or (_keyed(line) and "s" in line)):
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


def iter_entries(entries: dict[Key, Entry]) -> Iterator[Entry]:
    """Entries (of `read`) in journal order."""
    yield from ordered(entries).values()


def _header(path: str, first: bytes) -> dict[str, Any]:
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or "journal" not in header:
        raise JournalError(path, "not a wfctl journal")
    return header




def _keyed(line: dict[str, Any]) -> bool:
    """Whether a line holds a key: a file row (`"r"`, not negative) or an action (`"k"`, three texts)."""
    keyed = line.get("k")
    if keyed is not None:
        return isinstance(keyed, list) and len(keyed) == 3 and all(isinstance(part, str) for part in keyed)
    return int(line["r"]) >= 0
