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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wfctl import csvformat


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
    from wfctl.api.resources import resource

    spec = resource(kind)
    return {"id", *([spec.parent_id_column] if spec.parent_id_column else [])}


def export_scope(api: Any, kind: str, parent_ids: Iterable[str | None], folder: str, label: str, *,
                 maps: Sequence[FieldMap] = (), concurrency: int = 16) -> tuple[str, int]:
    """Write the records of `parent_ids` (None: a kind without a parent) as `export` writes them, each map
    applied, to `<folder>/<label>.csv`; returns (the path, the count of records)."""
    from wfctl.bulk.exporter import export

    buffer = io.StringIO()
    # proven whole: a copy's rows decide its prune's deletes, so a source listing that lies stops it here
    count = export(api, kind, buffer, parent_ids=parent_ids, concurrency=concurrency, bom=False, proven=True)
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
