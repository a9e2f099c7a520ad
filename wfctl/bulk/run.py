"""What the `import` and `export` commands of every group share: run, show progress, report, exit code."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode

if TYPE_CHECKING:
    from wfctl.bulk.importer import Summary
    from wfctl.context import AppContext


def run_import(app: AppContext, kind: str, file: str, *, parent_id: str | None, dry_run: bool,
               on_existing: str, concurrency: int, report: str | None, journal: str | None,
               delimiter: str | None, skip_invalid: bool, output: str | None = None) -> int:
    """Import `file` (or stdin for '-'); returns the exit code (0, 10) or raises CliError (2)."""
    from wfctl.bulk.importer import Importer, Options, ValidationStopped
    from wfctl.bulk.progress import Progress
    from wfctl.bulk.reader import CsvInput
    from wfctl.bulk.report import write_report

    if concurrency < 1 or concurrency > 256:
        raise CliError("--concurrency must be between 1 and 256")
    if on_existing not in ("skip", "update", "fail"):
        raise CliError("--on-existing must be skip, update or fail")
    io = app.io
    with CsvInput(file, delimiter=delimiter) as source:
        api = app.client
        options = Options(kind=kind, parent_id=parent_id, on_existing=on_existing, concurrency=concurrency,
                          dry_run=dry_run, skip_invalid=skip_invalid, journal_path=journal,
                          target=str(getattr(api, "base_url", "") or ""))
        import os

        progress = Progress(f"{'planning' if dry_run else 'importing'} {os.path.basename(source.display)}",
                            terminal=io.stderr_is_tty)
        importer = Importer(api, source, options, progress=progress.advance, on_total=progress.start)
        try:
            summary = importer.validate()
        except ValidationStopped as stop:
            _list_problems(stop.summary)
            if report:
                write_report(report, source.header, importer.outcomes(), source.delimiter)
            invalid = stop.summary.invalid
            raise CliError(
                f"{invalid} of {stop.summary.rows} rows are invalid; nothing was sent "
                "(fix them, or use --skip-invalid to import the others)" if invalid else
                f"{source.display}: the columns are not right; nothing was sent") from None
        if summary.problems:
            _list_problems(summary)
        if summary.resumed:
            io.note(f"resuming: {summary.resumed} rows were done by an earlier run")
        try:
            summary = importer.run()
        finally:
            progress.stop()
        if report:
            write_report(report, source.header, importer.outcomes(), source.delimiter)
    if importer.journal and importer.summary.resumed:
        sys.stderr.write(f"resumed: {importer.summary.resumed} rows were done by an earlier run\n")
    _show_summary(app, summary, output)
    if summary.failed:
        if not dry_run:
            sys.stderr.write(f"{summary.failed} of {summary.rows} rows failed"
                             + (f"; see {report}" if report else "; use --report FILE for each row's error")
                             + "; run the same command again to retry them\n")
        return int(ExitCode.PARTIAL) if not dry_run else 0
    return 0


def run_export(app: AppContext, kind: str, *, parent_ids: list[str | None] | None, all_parents: bool,
               file: str | None, concurrency: int) -> int:
    from wfctl.bulk.exporter import export
    from wfctl.bulk.kinds import KINDS

    spec = KINDS[kind]
    api = app.client
    ids: Any = parent_ids if parent_ids else [None]
    if spec.parent and all_parents:
        ids = (str(p["id"]) for p in spec.iter_parents(api))
    if file and file != "-":
        with open(file, "w", encoding="utf-8", newline="") as out:
            count = export(api, kind, out, parent_ids=ids, concurrency=concurrency)
    else:
        count = export(api, kind, sys.stdout, parent_ids=ids, concurrency=concurrency)
    app.io.note(f"exported {count} {spec.plural if count != 1 else kind}")
    return 0


def _list_problems(summary: Summary) -> None:
    for problem in summary.problems:
        sys.stderr.write(f"invalid: {problem}\n")
    more = summary.invalid - len({p.row for p in summary.problems if p.row})
    if more > 0:
        sys.stderr.write(f"... and {more} more invalid rows (--report FILE lists every one)\n")


def _show_summary(app: AppContext, summary: Summary, output: str | None) -> None:
    from wfctl.bulk.report import summary_rows

    rows = summary_rows(summary)
    fmt = app.output_format(output)
    if fmt in ("json", "jsonl"):
        import json

        result: dict[str, Any] = {label: count for label, count in rows}
        result.update(rows=summary.rows, seconds=round(summary.seconds, 3), dryRun=summary.dry_run)
        app.io.write(json.dumps(result) + "\n")
        return
    rate = summary.rows / summary.seconds if summary.seconds > 0 else 0.0
    title = "plan" if summary.dry_run else f"{summary.rows} rows in {summary.seconds:.1f}s ({rate:.0f} rows/s)"
    if summary.dry_run:
        # A dry run's plan is its result: data, on stdout.
        app.io.write("".join(f"{label}\t{count}\n" for label, count in rows))
        return
    if app.io.stderr_is_tty:
        from rich.table import Table

        table = Table(title=title, show_header=False)
        for label, count in rows:
            if count:
                table.add_row(label, str(count))
        app.io.err_console.print(table)
    else:
        sys.stderr.write(title + ": " + ", ".join(f"{label} {count}" for label, count in rows if count) + "\n")
