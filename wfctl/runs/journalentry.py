"""One journal entry: what became of one action of a run, keyed by that action.

An action's key is what it does, not a number made up for it: a file row of an import (`"r"`: the row
in the file the person gave, an int), or an action on a record (`"k"`: `[kind, record id, verb]`, an
`ActionKey`), as a site whose rates, bans or fields a command changes (`["site", "<id>", "update"]`), a
record a prune deletes (`["site", "<id>", "delete"]`) or a rename cycle's temporary rename of its first
record (`["site", "<id>", "rename"]`). An undo journals each entry under the key of the
entry it takes back. One line shape for every journalled run (import, undo, rates, bans, prune, edit, copy):

- the key (`"r"` or `"k"`) and the status (`"s"`);
- `"id"` the record's id, `"e"` an error, `"n"` its name, `"c"` changes `{field: [old, new]}`, `"l"` a
  created record as the run left it, `"b"`/`"p"` a create's body and parent id, `"o"` a rename cycle's
  order of rows, `"src"` a copy's source id.

The old form: journals written before this keyed an action on a record by a row number made up for it
(`"r"`, counted from 1 for `rates set`, `bans`, `sites edit --client`, after the file's rows for a prune's
delete, marked `"x": "delete"`, and after the file's rows for a rename cycle's temporary rename, which
keeps that key: its `"o"` says what it is). `decode` reads those as the action they were (the run's kind, the
record id the line or another line of its row names, and the verb), so an old run resumes and undoes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

DONE = frozenset({"created", "updated", "unchanged", "skipped", "undone", "deleted", "gone"})
#: The verb of a prune's delete (and the old form's `"x"`).
DELETE = "delete"
#: The verb of an update of one record by a command (rates, bans, an edit).
UPDATE = "update"
#: The verb of a rename cycle's temporary rename (plans/renames.py).
RENAME = "rename"
SENDING = "sending"


class ActionKey(NamedTuple):
    """An action on one record: its kind, its id and what the run does to it."""

    kind: str
    record: str
    verb: str


#: A journal key: a file row of an import, or an action on a record.
Key = int | ActionKey


@dataclass
class Entry:
    """The latest line of one action."""

    key: Key
    status: str
    id: str = ""
    error: str = ""
    name: str = ""
    changes: dict[str, list[Any]] = field(default_factory=dict)
    left: dict[str, Any] | None = None  # a created record as the run left it
    parent: str = ""  # a create's parent id (its intent)
    body: dict[str, Any] | None = None  # a create's body (its intent)
    action: str = ""  # "delete": a prune's delete; else a file row's or a command's update
    #: a rename cycle's temporary rename (`"o"`, keyed `[kind, id, "rename"]`; in older journals by a row after
    #: the file's rows): the rows of its cycle in the order they were sent after it (undo takes them back in the reverse order, then this one)
    order: list[int] = field(default_factory=list)
    #: a copy's row (`copy --from-profile`): the id of the record it was copied from, in the other profile
    source: str = ""

    @property
    def done(self) -> bool:
        return self.status in DONE

    @property
    def row(self) -> int:
        """The file row of an import's entry (0 for an action on a record)."""
        return self.key if isinstance(self.key, int) else 0


def key_of(line: dict[str, Any], old: OldForm | None = None) -> Key:
    """The key of a journal line (`old`: how to read a line of the old form)."""
    keyed = line.get("k")
    if keyed is not None:
        kind, record, verb = keyed
        return ActionKey(str(kind), str(record), str(verb))
    row = int(line["r"])
    if old is None or not (old.command or "x" in line):  # a file row (an import's every line: kept quick)
        return row
    return old.key(row, line)


def key_fields(key: Key) -> dict[str, Any]:
    """A line's key as written."""
    return {"r": key} if isinstance(key, int) else {"k": list(key)}


def decode(line: dict[str, Any], old: OldForm | None = None) -> Entry:
    """The entry a line holds."""
    left, body, order = line.get("l"), line.get("b"), line.get("o")
    key = key_of(line, old)
    deleting = isinstance(key, ActionKey) and key.verb == DELETE and not (old is not None and old.undo)
    action = DELETE if deleting else str(line.get("x") or "")  # an undo's entry of a delete is its re-create
    return Entry(key, str(line["s"]), str(line.get("id") or ""), str(line.get("e") or ""),
                 str(line.get("n") or ""), dict(line.get("c") or {}),
                 left if isinstance(left, dict) else None, str(line.get("p") or ""),
                 body if isinstance(body, dict) else None, action,
                 [int(row) for row in order] if isinstance(order, list) else [], str(line.get("src") or ""))


def seed(key: Key) -> str:
    """The key as a part of an Idempotency-Key's seed (a file row: its number, as ever)."""
    return str(key) if isinstance(key, int) else "/".join(key)


class OldForm:
    """How to read the lines of one journal (from its header): an undo's entry of a delete is the delete's
    re-create, not a delete (`undo`); and the lines of the old form, where a row number was made up for an
    action on a record: a command's run (`rates set`, `bans`, `sites edit --client`, and an undo of one: every
    row) and a prune's delete (`"x": "delete"`). The record id of a row is the one any of its lines names
    (an undo's line of a record it found gone names none)."""

    def __init__(self, header: dict[str, Any], path: str = "") -> None:
        self.kind = str(header.get("kind") or "")
        #: a command's run: its header names the command, or (before RunRecord) spells it in `file`
        self.command = bool(header.get("command")) or ":" in str(header.get("file") or "")
        self.undo = bool(header.get("undo"))  # an undo's journal: its entries take the run's back
        self._ids: dict[int, str] = {}
        if self.command and path:  # a command's run is small: its rows' ids read first, so every line of
            self._ids = _row_ids(path)  # a row (an undo's intent names no id) has the one key

    def key(self, row: int, line: dict[str, Any]) -> Key:
        deleting = line.get("x") == DELETE
        if not (self.command or deleting):
            return row  # a file row: it was always the key
        record = str(line.get("id") or "") or self._ids.get(row, "")
        if record:
            self._ids.setdefault(row, record)
        return ActionKey(self.kind, record or f"#{row}", DELETE if deleting else UPDATE)


def _row_ids(path: str) -> dict[int, str]:
    """row -> the first record id a line of that row names, in an old-form journal (unreadable: none)."""
    import json

    ids: dict[int, str] = {}
    try:
        with open(path, "rb") as f:
            f.readline()
            for raw in f:
                try:
                    line = json.loads(raw)
                    if "r" in line and line.get("id"):
                        ids.setdefault(int(line["r"]), str(line["id"]))
                except (ValueError, TypeError, AttributeError):
                    continue  # the reader says what is wrong with a line
    except OSError:
        pass
    return ids
