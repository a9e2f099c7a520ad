"""RunRecord: what a journalled run is (its journal's first line), one type for every run: an import, an undo,
`rates set`, `bans add|remove`, a prune (an import's), `sites edit --client`, a copy (an import from another
profile). Made here and read back here (`to_json` / `from_json`), never as a hand-built dict.

What makes two runs the same run (the resume and lock key, `key`) is their `identity`: an import's file
(its SHA-256, `file`), or for a run of a command (`command`: "rates set", "bans add", "sites edit") the
digest of what it changes (`change`), with the kind, the service, the parent, the on-existing rule and the
run an undo takes back. Journals written before this type spelt a command's change inside `file`
(`"rates:<sha>"`, `"bans-add:<sha>"`, `"edit:<key>:<run>"`): read back as they are, they have the same
identity, so an unfinished run of an earlier version resumes and its undo's keys are unchanged; keys a
record does not know are kept (`extra`) and written back as they were.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import Any

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
