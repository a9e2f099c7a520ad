"""Each row's change, for a person and for a program: the import plan (`--dry-run`), a run's
`--verbose` lines, and `wfctl imports show`.

Text (a terminal or a pipe), one block per changing row, values shortened on a terminal only:

    row 12  update  North Yard  (5e699734-5457-4787-843d-1e100c2a1b9f)
      address: 1 High St -> 2 High St
      rate Forklift: 13.25 -> 14.00

A plan of a kind with a parent names each row's (the parent its record is or would be under):

    row 3  create  Ancoats Bakehouse
      in client Bullring Events
      address: 12 Blossom Street, Manchester M4 6AJ

For a program, each row is one object, `{"row", "action", "status", "id", "name", "changes": {field: {"old",
"new"}}}` (`error` too when the row failed; a plan's `parent`: `{"id", "name"}`): `row_object`, and `row_json`
its compact JSON text (a plan's create has it from its check). `wfctl.render.output` writes them, as it writes
every JSON document: `-o jsonl` one line per row, `-o json` `{"rows": [...], "summary": {...}}`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring as _json_string
from typing import Any

from wfctl.runs.journal import DONE, Entry
from wfctl.text.changes import as_json, field_text, lines

# One encoder for the process (json.dumps with options builds one per call); entries are decoded JSON.
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode

#: The action a row's status stands for.
ACTIONS = {"created": "create", "updated": "update", "undone": "undo", "deleted": "delete", "restored": "restore",
           "recreated": "re-create"}
SHORTEN = 60


class Created:
    """A plan's create, put together from its checked row: its JSON line from `fields_json`, the JSON text
    of its changes (`"name": {"old": null, "new": "North"}, ...`, made when the row was checked; empty:
    encode them), and its changes themselves read only when asked for (text output)."""

    status = "created"
    id = ""
    error = ""

    def __init__(self, row: int, name: str, fields_json: str, changes: Callable[[], dict[str, list[Any]]],
                 parent: str = "") -> None:
        self.row = row
        self.name = name
        self.fields_json = fields_json
        self._changes = changes
        self.parent = parent  # the id of the parent it would be created under

    @property
    def changes(self) -> dict[str, list[Any]]:
        return self._changes()


#: What `Accepted` answers for a workbook's cell typed as text: what the person typed, no spreadsheet's doing.
TYPED = ""
#: (row, field) -> of a change that looks like a spreadsheet's doing: the option that sends it as it is
#: (`--accept-row 2`), TYPED (its workbook cell was typed as text: not marked at all), or None (it stops a run).
Accepted = Callable[[int, str], "str | None"]


def fields_template(names: Iterable[str]) -> str:
    """The JSON text of a create's changes of these fields, `%s` for each new value's JSON text."""
    return ",".join(f'{_json_string(name).replace("%", "%%")}:{{"old":null,"new":%s}}' for name in names)


def row_object(entry: Entry | Created, parents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The row as JSON; with `parents` (a plan's: parent id -> name), the parent it is under."""
    obj: dict[str, Any] = {"row": None if _is_delete(entry) else entry.row or None,  # an action on a record: none
                           "action": ACTIONS.get(entry.status, entry.status),
                           "status": entry.status, "id": entry.id or None, "name": entry.name,
                           "changes": as_json(_pairs(entry))}
    if parents is not None and entry.parent:
        obj["parent"] = {"id": entry.parent, "name": parents.get(entry.parent)}
    if entry.error:
        obj["error"] = entry.error
    return obj


def text_block(kind: str, entry: Entry | Created, *, shorten: bool, parents: Mapping[str, str] | None = None,
               accepted: Accepted | None = None) -> str:
    """The row's heading line and one indented line per change; with `parents` (a plan's: parent id ->
    name), first a line naming the parent the row is under (`in client Bullring Events`). A change that
    looks like a spreadsheet's doing says so, and what `accepted` says of it (`Accepted`)."""
    from wfctl.api.records.resources import RESOURCES
    from wfctl.text.safetext import one_line

    delete = _is_delete(entry)  # a prune's: no row of the file, every field it held goes
    action = ACTIONS.get(entry.status, entry.status)
    head = f"row {entry.row}  {action}" if entry.row and not delete else action  # an action on a record: no row
    if entry.name:
        head += f"  {one_line(entry.name)}"
    if entry.id:
        head += f"  ({one_line(entry.id)})"
    if entry.error:  # a failed row's error, or what a done row's outcome rests on (writes.UNSURE)
        head += f"  {'note' if entry.status in DONE else 'error'}: {one_line(entry.error)}"
    if delete:
        said = []
    elif entry.status == "created":  # every field is new: its value, without the name the heading gives
        said = [f"{name}: {field_text(name, new)}" for name, (_, new) in _pairs(entry).items() if name != "name"]
    elif entry.status == "recreated":  # made again: the new id beside the old one, then what it holds again
        said = [f"{name}: {field_text(name, new)}" if name != "id" else f"id: {old} -> {new}"
                for name, (old, new) in _pairs(entry).items() if name != "name" and new not in (None, "", [])]
    else:
        said = _marked(lines(kind, _pairs(entry)), _spreadsheet_marks(entry, accepted))
    if parents is not None and entry.parent:  # the target, on a line of its own: the heading fits 80 columns
        said.insert(0, f"in {RESOURCES[kind].parent} {parents.get(entry.parent) or entry.parent}")
    body = [one_line(_short(line) if shorten else line) for line in said]
    return head + "\n" + "".join(f"  {line}\n" for line in body)


def _spreadsheet_marks(entry: Entry | Created, accepted: Accepted | None = None) -> dict[str, str]:
    """field -> why its change looks like a spreadsheet's doing (issue 21 §3), with what `accepted` says."""
    if entry.status != "updated":
        return {}
    from wfctl.files.damage import explain

    marks = {}
    for name, pair in entry.changes.items():
        reason = explain(pair[0], pair[1])
        said = accepted(entry.row, name) if reason is not None and accepted is not None else None
        if reason is not None and said != TYPED:
            marks[name] = f"{reason}; sent as it is ({said})" if said else reason
    return marks


def _marked(said: list[str], marks: dict[str, str]) -> list[str]:
    """The change lines, the reason after a field's line (`phone: 0161 -> 161: looks like ...`); a field
    said in several lines (a list) gets a line of its own (`! bannedWorkers: looks like ...`)."""
    if not marks:
        return said
    out = list(said)
    for name, reason in marks.items():
        at = [i for i, line in enumerate(out) if line.startswith(f"{name}: ")]
        if len(at) == 1:
            out[at[0]] += f": {reason}"
        else:
            out.append(f"! {name}: {reason}")
    return out


def write(write_out: Any, kind: str, entries: Iterable[Entry | Created], *, terminal: bool,
          parents: Mapping[str, str] | None = None, accepted: Accepted | None = None) -> int:
    """Write each entry as text (`text_block`; `parents`, `accepted`: see there); returns how many rows
    were written."""
    count = 0
    for entry in entries:
        write_out(text_block(kind, entry, shorten=terminal, parents=parents, accepted=accepted))
        count += 1
    return count


def changing(entries: Iterable[Entry | Created]) -> Iterator[Entry | Created]:
    """The entries that change something (unchanged and skipped rows are only counted)."""
    return (e for e in entries if e.status in ACTIONS or e.error)


def row_json(entry: Entry | Created, parents: Mapping[str, str] | None = None) -> str:
    """`row_object(entry, parents)` as JSON text, the same characters `_encode` gives."""
    if type(entry) is Created and entry.fields_json:
        parent = ""
        if parents is not None and entry.parent:
            parent = _parent_json(entry.parent, parents.get(entry.parent))
        return (f'{{"row":{entry.row},"action":"create","status":"created","id":null,'
                f'"name":{_json_string(entry.name)},"changes":{{{entry.fields_json}}}{parent}}}')
    return _encode(row_object(entry, parents))


@functools.lru_cache(maxsize=256)
def _parent_json(parent_id: str, name: str | None) -> str:
    """`,"parent":{...}` of a create row: a file's rows share few parents, each encoded once."""
    return f',"parent":{_encode({"id": parent_id, "name": name})}'


def _is_delete(entry: Entry | Created) -> bool:
    """Whether `entry` is a prune's delete (prune.py), which no row of the file stands for."""
    return getattr(entry, "action", "") == "delete"


def _pairs(entry: Entry | Created) -> dict[str, tuple[Any, Any]]:
    return {name: (pair[0], pair[1]) for name, pair in entry.changes.items()}


def _short(text: str) -> str:
    """A change line within the terminal's width (at least SHORTEN), after its two-space indent: at 120
    columns a value was cut at 60 with half the line free."""
    import shutil

    width = max(SHORTEN, shutil.get_terminal_size((SHORTEN + 2, 24)).columns - 3)
    return text if len(text) <= width else text[: width - 1] + "…"
