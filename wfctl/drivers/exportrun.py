"""What the `export` commands of every group share: the import format (CSV or a workbook) to a file or
stdout with a progress line, or full records through -o and the query options."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.drivers.asked import OutputOptions


def run_export(app: AppContext, kind: str, *, parent_ids: list[str | None] | None, all_parents: bool,
               file: str | None, concurrency: int, output: OutputOptions | None = None) -> int:
    from wfctl.files.files import check_writable
    from wfctl.plans.kinds import KINDS
    from wfctl.render.output import TABLE_FORMATS
    from wfctl.render.progress import reading
    from wfctl.runs.exporter import export, export_to_file, full_records

    spec = KINDS[kind]
    to_file = bool(file and file != "-")
    queried = output is not None and (bool(output.shape) or output.format not in (None, "csv"))
    if queried and to_file:
        assert output is not None
        if app.output_format(output.format) in TABLE_FORMATS:
            raise CliError("--file writes the import format (CSV or a workbook), or -o json, jsonl or yaml; "
                           "a table prints to stdout: leave out --file, or give -o json, jsonl or yaml")
    if to_file:
        check_writable(str(file))  # before the first request, not after every record was read
    api: Any = app.client
    ids: Any = parent_ids if parent_ids else [None]
    if spec.parent and all_parents:
        ids = (str(p["id"]) for p in spec.iter_parents(api))
    if queried:  # full records, as -o renders them (after --jq ...), not the import format
        assert output is not None
        return _export_records(app, kind, output, full_records(api, kind, ids, concurrency), file if to_file else None)
    # on a terminal, the count so far on stderr (the total is known only at the end); never in a pipe,
    # where stderr may be a log (the closing note says how many were exported), nor while the CSV itself
    # goes to the same terminal, where the live line would break into it
    mode = app.io.csv_mode  # WFCTL_CSV=plain: a file as a pipe gets it (no BOM); spreadsheet: a pipe too gets one
    shown = app.io.stderr_is_tty and (to_file or not app.io.stdout_is_tty)
    with _said_if_interrupted(file if to_file else None), \
            reading(api, f"exporting {spec.plural}", spec.plural, shown=shown) as (reader, on_record):
        if to_file:
            count = export_to_file(reader, kind, str(file), parent_ids=ids, concurrency=concurrency,
                                   on_record=on_record, bom=mode != "plain")
        else:
            count = export(reader, kind, app.io.stdout, parent_ids=ids, concurrency=concurrency, on_record=on_record,
                           bom=None if mode is None else mode == "spreadsheet")
    app.io.note(f"exported {count} {spec.plural if count != 1 else kind}")
    return 0


def _export_records(app: AppContext, kind: str, output: OutputOptions, records: Any, file: str | None) -> int:
    """Full records as -o renders them, each written as it is read: to stdout, or to `file`, written under a
    temporary name in its folder and renamed when complete (Ctrl-C, a failure: no file that looks whole)."""
    if file is None:
        output.writer(app, kind).records(records, kind)
        return 0
    from wfctl.files.files import atomic_text_file
    from wfctl.plans.kinds import KINDS
    from wfctl.render.streams import FileIO

    with _said_if_interrupted(file), atomic_text_file(file, bom=False) as out:
        count = output.writer(app, kind, io=FileIO(app.io, out)).records(records, kind)
    spec = KINDS[kind]
    app.io.note(f"exported {count} {spec.plural if count != 1 else kind} to {file}")
    return 0


@contextlib.contextmanager
def _said_if_interrupted(file: str | None) -> Iterator[None]:
    """Ctrl-C while exporting to `file` says what became of it (issue 49: `interrupted` alone left a person
    to wonder whether a half-written file was there): the file is written under a temporary name and renamed
    only when complete, so there is none, or the one that was there is as it was."""
    existed = file is not None and os.path.exists(file)
    try:
        yield
    except KeyboardInterrupt:
        if file is None:
            raise
        what = "left as it was" if existed else "not written"
        raise CliError(f"interrupted: {file} was {what} (an export stopped part-way writes no file)",
                       ExitCode.INTERRUPTED) from None
