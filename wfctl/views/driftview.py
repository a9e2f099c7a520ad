"""A diff (drift.py) for a person and for a program: text (a terminal or a pipe), JSON, and the rows of a
Markdown table (written by wfctl.render.output, for a pull request). Each field is said as the import plan says
it (wfctl.text.changes: `address: 1 High St -> 2 High St`, a rate by its skill, a department by its name, a
banned worker by its id), the service's value first, the file's second: the file is what the service
would become.

Text, one block per record that differs, then the counts:

    only in the file: Salford Docks  (row 4)
      in client Pennine Foods Ltd
      address: 12 Blossom Street
    changed: North Yard  (row 12; 5e699734-5457-4787-843d-1e100c2a1b9f)
      in client Pennine Foods Ltd
      address: 1 High St -> 2 High St
    only in the service: Old Yard  (0b1f9d62-9a6e-4bd4-9b8e-3f7e4c9f5a10)
      in client Pennine Foods Ltd

`-o jsonl`: one object per record, `{"difference", "kind", "name", "id", "row", "parent": {"id", "name"},
"changes": {field: {"old", "new"}}}` (`old`: the service's value, `new`: the file's; `row` and `id` null
where there is none; `parent` only for a kind with one), then the counts
`{"onlyInFile", "changed", "onlyInService", "same"}`; `-o json`: `{"records": [...], "summary": {...}}`.
A change that looks like a spreadsheet's doing is marked as the plan marks it (in text `phone: 0161 ->
161: <why>`, in JSON `"spreadsheet": {field: why}`): an import of the file stops on it.
"""

from __future__ import annotations

from typing import Any

from wfctl.compare.drift import DIFFERENCES, Drift, DriftRecord
from wfctl.text.changes import as_json, field_text, lines


def record_object(drift: Drift, record: DriftRecord) -> dict[str, Any]:
    obj: dict[str, Any] = {"difference": record.difference, "kind": drift.kind, "name": record.name,
                           "id": record.id or None, "row": (record.row or None) if drift.rows_said else None}
    if record.parent:
        obj["parent"] = {"id": record.parent, "name": drift.parent_names.get(record.parent)}
    obj["changes"] = as_json({name: (pair[0], pair[1]) for name, pair in record.changes.items()})
    if record.spreadsheet:
        obj["spreadsheet"] = record.spreadsheet
    return obj


def summary_object(drift: Drift) -> dict[str, Any]:
    return drift.counts()


def said(drift: Drift, record: DriftRecord) -> list[str]:
    """The lines under a record's heading: the parent it is under, then each field as the plan says it."""
    from wfctl.api.records.resources import RESOURCES

    out = []
    parent_kind = RESOURCES[drift.kind].parent
    if parent_kind and record.parent:
        out.append(f"in {parent_kind} {drift.parent_names.get(record.parent) or record.parent}")
    pairs = {name: (pair[0], pair[1]) for name, pair in record.changes.items()}
    if record.difference == "onlyInFile":  # every field is new: its value, the heading names it
        out += [f"{name}: {field_text(name, new)}" for name, (_, new) in pairs.items() if name != "name"]
    else:
        said = lines(drift.kind, pairs)
        for name, reason in record.spreadsheet.items():  # as the plan marks it (planview.py `_marked`)
            at = [i for i, line in enumerate(said) if line.startswith(f"{name}: ")]
            if len(at) == 1:
                said[at[0]] += f": {reason}"
            else:
                said.append(f"! {name}: {reason}")
        out += said
    return out


def heading(drift: Drift, record: DriftRecord) -> str:
    """`changed: North Yard  (row 12; <id>)`."""
    from wfctl.text.safetext import one_line

    row = f"row {record.row}" if record.row and drift.rows_said else ""
    where = "; ".join(part for part in (row, record.id) if part)
    return f"{drift.label(record.difference)}: {one_line(record.name)}" + (f"  ({one_line(where)})" if where else "")


def write_text(write: Any, drift: Drift, *, terminal: bool) -> None:
    """Each record's block, then the counts (values shortened to the width on a terminal only)."""
    from wfctl.text.safetext import one_line

    for record in drift.records:
        body = "".join(f"  {one_line(_short(line) if terminal else line)}\n" for line in said(drift, record))
        write(heading(drift, record) + "\n" + body)
    counts = counted(drift)
    width = max(len(label) for label, _ in counts)
    write("".join(f"{label.ljust(width)}  {count}\n" for label, count in counts))


def counted(drift: Drift) -> list[tuple[str, int]]:
    """(label, count) of each difference, and the records that are the same."""
    counts = drift.counts()
    return [*((drift.label(key), counts[key]) for key in DIFFERENCES), ("the same", counts["same"])]


def markdown_rows(drift: Drift) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a Markdown table: one row per record that differs, its fields' lines in one
    cell (a cell's lines are joined by the writer)."""
    from wfctl.api.records.resources import RESOURCES

    parent_kind = RESOURCES[drift.kind].parent
    header = ["difference", drift.kind, *([parent_kind] if parent_kind else []), "fields"]
    rows = []
    for record in drift.records:
        parent = [drift.parent_names.get(record.parent) or record.parent] if parent_kind else []
        fields = said(drift, record)[1 if parent_kind and record.parent else 0:]
        rows.append([drift.label(record.difference), record.name, *parent, "\n".join(fields)])
    return header, rows


def summary_line(drift: Drift) -> str:
    """`1 only in the file, 2 changed, 0 only in the service, 22 the same`."""
    return ", ".join(f"{count} {label}" for label, count in counted(drift))


def _short(text: str) -> str:
    """A line within the terminal's width (at least SHORTEN), after its two-space indent, as the plan's."""
    import shutil

    from wfctl.views.planview import SHORTEN

    width = max(SHORTEN, shutil.get_terminal_size((SHORTEN + 2, 24)).columns - 3)
    return text if len(text) <= width else text[: width - 1] + "…"
