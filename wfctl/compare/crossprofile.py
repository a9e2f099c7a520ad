"""Profile to profile (issue 32 §3): another deployment's scope read as `export` reads it, into a file the
import machinery then plans against this deployment (`diff --from-profile`, `copy --from-profile`), rows
matched by name (`--ignore-ids`: ids differ between deployments), with `--map FIELD:FROM=TO` for values
that differ per deployment.

    maps = [FieldMap.parse("email:@staging.example=@example.com", "site")]   # ValueError: one line
    path = export_scope(api, "site", [client_id], folder, "staging-sites", maps=maps)

`--map` semantics: FIELD is a column of the file export writes (`wfctl help csv`; the id and parent
columns excepted); every occurrence of FROM in that column's cell, as the file writes it, is replaced by
TO (a substring, case-sensitive: `email:@staging.example=@example.com` turns `ops@staging.example` into
`ops@example.com`; in `departments` it reaches the contacts' e-mails). Maps apply in the order given.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wfctl.files import csvformat


@dataclass(frozen=True)
class FieldMap:
    """`--map FIELD:FROM=TO`: in column `column`, every `old` becomes `new`."""

    column: str
    old: str
    new: str

    @classmethod
    def parse(cls, text: str, kind: str) -> FieldMap:
        """`FIELD:FROM=TO` for a record of `kind`; ValueError (one line) when it is not one."""
        field_name, colon, rest = text.partition(":")
        old, equals, new = rest.partition("=")
        if not colon or not equals or not field_name.strip() or not old:
            raise ValueError(f"--map {text!r}: give FIELD:FROM=TO (e.g. email:@staging.example=@example.com)")
        column = field_name.strip()
        allowed = [name for name in csvformat.export_columns(kind) if name not in _not_mapped(kind)]
        if column not in allowed:
            raise ValueError(f"--map {text!r}: {column!r} is not a column of a {kind}; the columns: "
                             f"{', '.join(allowed)}")
        return cls(column, old, new)

    def apply(self, cell: str) -> str:
        return cell.replace(self.old, self.new)


def _not_mapped(kind: str) -> set[str]:
    from wfctl.api.records.resources import resource

    spec = resource(kind)
    return {"id", *([spec.parent_id_column] if spec.parent_id_column else [])}


def export_scope(api: Any, kind: str, parent_ids: Iterable[str | None], folder: str, label: str, *,
                 maps: Sequence[FieldMap] = (), concurrency: int = 16,
                 on_record: Callable[[], None] | None = None) -> tuple[str, int]:
    """Write the records of `parent_ids` (None: a kind without a parent) as `export` writes them, each map
    applied, to `<folder>/<label>.csv`; returns (the path, the count of records). `on_record`: as export's."""
    from wfctl.runs.exporter import export

    buffer = io.StringIO()
    # proven whole: a copy's rows decide its prune's deletes, so a source listing that lies stops it here
    count = export(api, kind, buffer, parent_ids=parent_ids, concurrency=concurrency, bom=False, proven=True,
                   on_record=on_record)
    path = os.path.join(folder, _file_name(label) + ".csv")
    with open(path, "w", encoding="utf-8", newline="") as out:
        if not maps:
            out.write(buffer.getvalue())
            return path, count
        buffer.seek(0)
        reader = csv.reader(buffer)
        writer = csv.writer(out, lineterminator="\r\n")
        header = next(reader)
        positions = [(header.index(m.column), m) for m in maps]
        writer.writerow(header)
        for cells in reader:
            for position, field_map in positions:
                cells[position] = field_map.apply(cells[position])
            writer.writerow(cells)
    return path, count


def _file_name(label: str) -> str:
    """`staging-sites-Pennine-Foods-Ltd`: a file name (`imports list` and undo show it) from a label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.")[:120] or "copy"


def row_sources(path: str) -> dict[int, str]:
    """A copy's file row -> its `id` cell (the id of the record it copies in the other profile), numbered as
    the import numbers its rows."""
    from wfctl.files.reader import CsvInput

    with CsvInput(path) as source:
        if "id" not in source.header:
            return {}
        position = source.header.index("id")
        return {number: cell for number, _, cells, _ in source.records()
                if (cell := csvformat.strip_neutraliser(cells[position]).strip())}


class SourceCheck:
    """A copy's prune asks, for each record it would delete here: did an earlier copy make it (its source
    id journalled, `Entry.source`), and does the other profile still hold that record, read by its id
    under the copy's parent? Then the delete is the other listing's omission, and the record is kept.
    One request per delete; the earlier copies' journals are read on the first question only."""

    def __init__(self, source_api: Any, kind: str, source_parent: str | None, profile: str, source_profile: str,
                 target: str) -> None:
        import threading

        self.api, self.kind, self.parent = source_api, kind, source_parent
        self.profile, self.source_profile, self.target = profile, source_profile, target
        self._copied: dict[str, str] | None = None
        self._lock = threading.Lock()

    def __call__(self, record_id: str) -> str | None:
        """Why the record `record_id` (of this profile) must be kept, or None (no copy made it, or the other
        profile no longer holds its source)."""
        from wfctl.api.errors import NotFound
        from wfctl.api.records.resources import resource

        source_id = self.copied().get(record_id)
        if not source_id:
            return None
        try:
            source = self.api.get_record(self.kind, source_id)
        except NotFound:
            return None
        field = resource(self.kind).parent_field
        if field and self.parent is not None and str(source.get(field)) != str(self.parent):
            return None  # moved out of the copied scope there
        return (f"is the copy of {self.kind} {source_id}, which profile {self.source_profile} still holds "
                f"(read by its id; its listing left it out)")

    def copied(self) -> dict[str, str]:
        """Record id here -> the id of the record an earlier copy into this profile made it from."""
        with self._lock:
            if self._copied is None:
                from wfctl.runs.runlist import profile_runs

                found: dict[str, str] = {}
                for run in reversed(profile_runs(self.profile)):  # oldest first: a later copy's word wins
                    if run.kind != self.kind or run.undo_of or str(run.header.get("target") or "") != self.target:
                        continue
                    for entry in run.entries().values():
                        if entry.source and entry.id:
                            found[entry.id] = entry.source
                self._copied = found
            return self._copied
