"""What the `export` commands of every group share: the import format (CSV or a workbook) to a file or
stdout with a progress line, or full records through -o and the query options."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError

if TYPE_CHECKING:
    from wfctl.commands.output_options import OutputOptions
    from wfctl.context import AppContext


def run_export(app: AppContext, kind: str, *, parent_ids: list[str | None] | None, all_parents: bool,
               file: str | None, concurrency: int, output: OutputOptions | None = None) -> int:
    from wfctl.bulk.exporter import export, export_to_file
    from wfctl.bulk.files import check_writable
    from wfctl.bulk.kinds import KINDS
    from wfctl.progress import reading

    spec = KINDS[kind]
    queried = output is not None and (bool(output.shape) or output.format not in (None, "csv"))
    if queried and file and file != "-":
        raise CliError("--file writes the import format (CSV or a workbook); -o, --jq, --sort-by and --columns "
                       "print to stdout: leave out --file")
    if file and file != "-":
        check_writable(file)  # before the first request, not after every record was read
    api: Any = app.client
    ids: Any = parent_ids if parent_ids else [None]
    if spec.parent and all_parents:
        ids = (str(p["id"]) for p in spec.iter_parents(api))
    if queried:  # full records, as -o renders them (after --jq ...), not the import format
        from wfctl.bulk.exporter import full_records

        assert output is not None
        output.writer(app, kind).records(full_records(api, kind, ids, concurrency), kind)
        return 0
    # on a terminal, the count so far on stderr (the total is known only at the end); never in a pipe,
    # where stderr may be a log (the closing note says how many were exported), nor while the CSV itself
    # goes to the same terminal, where the live line would break into it
    to_file = bool(file and file != "-")
    shown = app.io.stderr_is_tty and (to_file or not app.io.stdout_is_tty)
    with reading(api, f"exporting {spec.plural}", spec.plural, shown=shown) as (reader, on_record):
        if to_file:
            count = export_to_file(reader, kind, str(file), parent_ids=ids, concurrency=concurrency,
                                   on_record=on_record)
        else:
            count = export(reader, kind, sys.stdout, parent_ids=ids, concurrency=concurrency, on_record=on_record)
    app.io.note(f"exported {count} {spec.plural if count != 1 else kind}")
    return 0
