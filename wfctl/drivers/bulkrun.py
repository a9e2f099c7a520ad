"""What the `import` commands of every group share: run, show progress, report, exit code (`export`:
exportrun.py)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.render.output import Output
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.runs.importer import Summary


def run_import(app: AppContext, kind: str, file: str, *, parent_id: str | None, dry_run: bool,
               on_existing: str, concurrency: int, report: str | None, journal: str | None,
               delimiter: str | None, skip_invalid: bool, output: str | None = None, sheet: str | None = None,
               accept_spreadsheet_changes: bool = False, ignore_ids: bool = False, ignore_columns: str | None = None,
               prune: dict[str, Any] | None = None, accept_rows: list[int] | None = None,
               named: str | None = None) -> int:
    """Import `file` (or stdin for '-'); returns the exit code (0, 10) or raises CliError (2, 7, 11, 12, 130).
    `prune`: the Options of --prune (scope, prune, max_deletes, ...) and `yes` (prunerun.py); `accept_rows`:
    the rows whose spreadsheet-like changes are sent as they are (--accept-row); `named`: what `imports list`
    calls the run (a copy's: `staging-sites-Pennine-Foods-Ltd.csv`, not its temporary file)."""
    from wfctl.api.records.resources import resource
    from wfctl.files.files import check_writable
    from wfctl.files.reader import CsvInput
    from wfctl.plans.importtypes import column_names
    from wfctl.render.progress import Progress
    from wfctl.runs.importer import Importer, Options, Stopped
    from wfctl.runs.journal import JournalError, RunLocked

    if concurrency < 1 or concurrency > 256:
        raise CliError("--concurrency must be between 1 and 256")
    if on_existing not in ("skip", "update", "fail"):
        raise CliError("--on-existing must be skip, update or fail")
    _refuse_overwriting_input(file, report, journal)
    if report:
        check_writable(report)  # before anything is sent, not after every row was
    io = app.io
    with CsvInput(file, delimiter=delimiter, sheet=sheet, plural=resource(kind).plural) as source:
        for note in source.notes:
            _say(io.write_err, note)
        api = app.client
        options = Options(kind=kind, parent_id=parent_id, on_existing=on_existing, concurrency=concurrency,
                          dry_run=dry_run, skip_invalid=skip_invalid, journal_path=journal,
                          target=str(getattr(api, "base_url", "") or ""), profile=app.settings.profile,
                          file_path=named or (source.display if file == "-" else os.path.abspath(file)),
                          ignore_ids=ignore_ids, accept_spreadsheet_changes=accept_spreadsheet_changes,
                          ignore_columns=column_names(ignore_columns),
                          accept_rows=frozenset(accept_rows or ()), plan=_digest((prune or {}).get("plan_in")),
                          **{k: v for k, v in (prune or {}).items() if k not in ("yes", "plan_out", "plan_in")})
        progress = Progress(f"{'planning' if dry_run else 'importing'} {os.path.basename(source.display)}",
                            terminal=io.stderr_is_tty)
        importer = Importer(api, source, options, progress=progress.advance,
                            on_total=lambda total, done: progress.start(total, done),
                            note=lambda text: _say(io.write_err, text))
        if options.prune:  # before the journal is opened: a refusal leaves nothing open
            from wfctl.drivers.prunerun import check_options

            check_options(options)
        try:
            importer.open_journal()
        except RunLocked as exc:  # docs/imports.md: a second run of the same import refuses, exit 5
            raise CliError(str(exc), ExitCode.CONFLICT) from None
        except JournalError as exc:
            raise CliError(f"{exc}; nothing was sent") from None
        settings = prune or {}
        try:
            if settings.get("plan_in"):
                return _run_saved(app, importer, str(settings["plan_in"]), output, progress, yes=bool(settings["yes"]))
            return _validate_and_run(app, importer, source, report, output, progress, accept_spreadsheet_changes,
                                     yes=bool(settings.get("yes")), plan_out=settings.get("plan_out"),
                                     accept_rows=set(accept_rows or ()))
        except Stopped as stop:
            return _stopped(importer, stop, report, source)
        finally:
            importer.release()


def _digest(path: str | None) -> str:
    """A saved plan's SHA-256 (`--plan FILE`; "" without one, or when it cannot be read: loading it says why)."""
    if not path:
        return ""
    import hashlib

    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def _run_saved(app: AppContext, importer: Any, path: str, output: str | None, progress: Any, *, yes: bool) -> int:
    """`import FILE --plan plan.json` (prunerun.run_saved): the saved plan run exactly, its result shown; a
    plan a run of this profile has done already sends nothing (exit 0)."""
    from wfctl.drivers.prunerun import ran_before, run_saved

    if ran_before(app, importer, path):
        return 0

    finished = False
    try:
        summary = run_saved(app, importer, path, yes=yes)
        finished = True
    finally:
        progress.stop(clear=not finished)
    if summary is None:  # not confirmed
        return int(ExitCode.USAGE)
    _show_result(app, importer, output)
    return int(ExitCode.PARTIAL) if summary.counts["failed"] else 0


def _validate_and_run(app: AppContext, importer: Any, source: Any, report: str | None, output: str | None,
                      progress: Any, accept_spreadsheet_changes: bool = False, *, yes: bool = False,
                      plan_out: str | None = None, accept_rows: set[int] | frozenset[int] = frozenset()) -> int:
    from wfctl.runs.importer import ValidationStopped

    try:
        summary = importer.validate()
    except ValidationStopped as stop:
        app.output_format(output)  # the import's own -o counts as the command line's
        json_errors = app.json_errors()  # -o json: the problems go in the one error object, not before it
        if not json_errors:
            _list_problems(app.io.write_err, stop.summary)
        if report:
            _write_report(report, importer, source)
        invalid = stop.summary.invalid
        problems = [{"row": p.row or None, "line": p.line, "column": p.column or None, "message": p.message}
                    for p in stop.summary.problems] if json_errors else None
        raise CliError(
            f"{invalid} of {stop.summary.rows} rows {'is' if invalid == 1 else 'are'} invalid; nothing was sent "
            f"(fix {'it' if invalid == 1 else 'them'} in the file and run again, or use --skip-invalid to import "
            "the others)" if invalid else
            f"{source.display}: the columns are not right; nothing was sent", errors=problems) from None
    if summary.problems:
        _list_problems(app.io.write_err, summary)
    if not (accept_spreadsheet_changes or summary.resumed):
        _warn_of_suspect_creates(app.io.write_err, importer)
    from wfctl.drivers import renamecheck

    cycles = renamecheck.cycles_of(app.io.write_err, importer)  # issue 33 §3: said, and sent through a temporary name
    pruning = None
    if importer.options.prune:  # issue 32 §2: the deletes planned (each record read), or refused
        from wfctl.drivers import prunerun

        pruning = prunerun.plan(app, importer)
    if summary.resumed:  # a prune's deletes counted as its progress line counts them
        units = summary.rows + (pruning.total if pruning is not None else 0)
        app.io.write_err(f"resuming run {summary.run_id}: {min(summary.resumed, units)} of {units} rows already "
                         "done\n")
    # issue 21 §3: a real run plans first when records exist that a spreadsheet's changes could reach (a
    # prune, whatever --accept-spreadsheet-changes says: a mangled name would make its record look absent)
    if (not ((accept_spreadsheet_changes and pruning is None) or summary.dry_run or summary.resumed)
            and importer.inventory.existing):
        from wfctl.files.typedtext import trusted

        _stop_on_spreadsheet_damage(app.io.write_err, trusted(_plan_of(importer, terminal=app.io.stderr_is_tty), source, accept_rows),
                                    dry_run=False, prune=pruning is not None)
    if pruning is not None and not summary.dry_run and not prunerun.confirm_run(app, importer, pruning, yes=yes):
        return int(ExitCode.USAGE)
    finished = False
    try:
        summary = importer.run()
        finished = True
    finally:  # a run stopped (Ctrl-C, an outage) leaves no stale rate and ETA: its error says how far it got
        progress.stop(clear=not finished)
    if summary.dry_run and (not accept_spreadsheet_changes or pruning is not None):
        from wfctl.files.typedtext import trusted

        if findings := trusted(importer.plan_findings(), source, accept_rows):
            _show_result(app, importer, output)
            _stop_on_spreadsheet_damage(app.io.write_err, findings, dry_run=True, prune=pruning is not None)
    if report:
        _write_report(report, importer, source)
    dry_run = summary.dry_run
    _show_result(app, importer, output)
    if pruning is not None and dry_run:  # the plan is shown; past the limits, a run would send nothing
        from wfctl.drivers.prunerun import check_limits

        check_limits(importer, pruning)
    if plan_out:
        if cycles:
            renamecheck.refuse_saving(importer, cycles)
        if summary.invalid:
            raise CliError("--plan-out writes only a plan with no invalid rows; nothing was written")
        from wfctl.plans.readyplan import write_plan

        write_plan(plan_out, importer, pruning)
        app.io.write_err(f"plan written to {plan_out}: run it with --plan {plan_out}\n")
    failed = summary.counts["failed"]
    if dry_run and summary.invalid:  # --skip-invalid: as the run it plans, which sends the others and exits 10
        rows = "invalid row" if summary.invalid == 1 else "invalid rows"
        app.io.write_err(f"{summary.invalid} {rows} would not be sent (the run exits 10 for them)\n")
        return int(ExitCode.PARTIAL)
    if summary.failed and not dry_run:
        if failed:
            app.io.write_err(f"{failed} of {summary.rows} rows failed"
                             + (f"; see {report}" if report else "; use --report FILE for each row's error")
                             + "; run the same command again to retry them\n")
        if summary.invalid:
            rows = "invalid row was" if summary.invalid == 1 else "invalid rows were"
            app.io.write_err(f"{summary.invalid} {rows} not sent: fix {'it' if summary.invalid == 1 else 'them'} "
                             f"in {source.display} "
                             "and run again\n")
        return int(ExitCode.PARTIAL)
    return 0


def _plan_of(importer: Any, *, terminal: bool) -> list[Any]:
    """The real run's own plan (nothing is sent; `importer.run()` then executes exactly its actions) and
    its spreadsheet findings, with a progress line of its own on a terminal (`planning sites.csv 496/3000`:
    3,000 existing sites took 12-16 s, which looked like a hang); a Ctrl-C meanwhile says that nothing was
    sent."""
    from wfctl.render.progress import Progress
    from wfctl.runs.importer import Stopped

    progress = Progress(f"planning {os.path.basename(importer.source.display)}", terminal=terminal)
    planned = False
    try:
        findings: list[Any] = importer.prepare(progress=progress.advance,
                                                on_total=lambda total, done: progress.start(total, done))
        planned = True
    except Stopped as stop:
        if stop.cause == "interrupted":
            raise CliError("interrupted while planning: nothing was sent", ExitCode.INTERRUPTED) from None
        raise
    finally:
        progress.stop(clear=not planned)  # kept when done, as a dry run's; erased when interrupted
    return findings


def _warn_of_suspect_creates(err: Callable[[str], None], importer: Any) -> None:
    """Name each new record's cell that looks converted by a spreadsheet (issue 33 §1): a warning on
    stderr, in a plan and before a run; nothing is stopped."""
    plan = importer.plan()
    from wfctl.files import createdamage as suspects

    if not (suspects.in_file(importer.source.path) and plan.create_count()):  # most files: no row read again
        return
    import itertools

    records = importer.inventory.existing.values()
    found = suspects.find(plan.create_bodies(), lambda: itertools.chain((row.body for row in plan.rows()), records))
    for suspect in found[:50]:
        err(f"suspect: {suspect}\n")
    if len(found) > 50:
        err(f"... and {len(found) - 50} more suspect cells\n")


def _stop_on_spreadsheet_damage(err: Callable[[str], None], findings: list[Any], *, dry_run: bool, prune: bool = False) -> None:
    """Exit 2 naming each change that looks like a spreadsheet's, when there are any."""
    if not findings:
        return
    for finding in findings[:50]:
        err(f"spreadsheet: {finding}\n")
    if len(findings) > 50:
        err(f"... and {len(findings) - 50} more\n")
    rows = len({f.row for f in findings})
    if prune:
        raise CliError(f"--prune refuses a file that shows spreadsheet damage ({rows} row{'s' if rows != 1 else ''}): "
                       f"a changed name makes its record look absent; {'a run would send nothing' if dry_run else 'nothing was sent'} "
                       "(export the records as .xlsx and edit that)")
    raise CliError(f"{rows} row{'s' if rows != 1 else ''} would change records only the way a spreadsheet changes "
                   f"text; {'a run would send nothing' if dry_run else 'nothing was sent'} (export the records "
                   "as .xlsx and edit that, or open the CSV as UTF-8 with text columns as text; "
                   "--accept-spreadsheet-changes sends these changes as they are)")


def _stopped(importer: Any, stop: Any, report: str | None, source: Any) -> int:
    """A run that ended early: say why and how far it got, write the report of the rows done."""
    summary = importer.summary
    if report:
        _write_report(report, importer, source)
    deletes = f" (the file's {summary.rows} and {summary.deletes} deletes)" if summary.deletes else ""
    done = f"{summary.done} of {summary.units} rows done{deletes}"
    if stop.cause == "interrupted" and summary.dry_run:
        raise CliError("interrupted: nothing was sent (a plan)", ExitCode.INTERRUPTED)
    raise stopped_error(stop.cause, stop.message, done)


def stopped_error(cause: str, message: str, done: str) -> CliError:
    """The error a bulk run (import, rates) stopped by `cause` ends with: what was done, how to resume."""
    if cause == "interrupted":
        return CliError(f"interrupted: {done}; run the same command again to resume", ExitCode.INTERRUPTED)
    if cause == "journal":
        return CliError(f"stopped: {message}; {done}; free some space and run again to resume", ExitCode.LOCAL_FAULT)
    return CliError(f"stopped: {message}; {done}; run the same command again to resume", ExitCode.NETWORK)


def _say(err: Callable[[str], None], text: str) -> None:
    err(f"{one_line(text)}\n")


def _write_report(report: str, importer: Any, source: Any) -> None:
    import itertools

    from wfctl.views.report import write_report

    outcomes = importer.outcomes()
    if getattr(importer, "pruning", None) is not None:  # a prune's deletes, after the file's rows
        from wfctl.plans.prune import report_rows

        outcomes = itertools.chain(outcomes, report_rows(importer.pruning, importer.journal,
                                                         dry_run=importer.options.dry_run))
    write_report(report, source.header, outcomes, source.delimiter)


def _refuse_overwriting_input(file: str, report: str | None, journal: str | None) -> None:
    """--report and --journal never replace the input file (nor each other)."""
    def same(a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:
            return os.path.abspath(a) == os.path.abspath(b)

    for option, path in (("--report", report), ("--journal", journal)):
        if path and file != "-" and same(path, file):
            raise CliError(f"{option} {path} is the input file; name another file")
    if report and journal and same(report, journal):
        raise CliError(f"--report and --journal name the same file ({report})")


def write_plan_rows(out: Output, rows: Iterable[Any], summary: dict[str, Any] | None,
                    parents: Mapping[str, str] | None = None) -> int:
    """A plan's or a run's rows (wfctl.views.planview's entries) for a program, as `out` writes every run's rows."""
    from wfctl.views import planview as plan

    return out.run_rows(rows, summary, as_json=functools.partial(plan.row_object, parents=parents),
                        as_text=functools.partial(plan.row_json, parents=parents))


def _show_result(app: AppContext, importer: Any, output: str | None) -> None:
    """A plan prints each row it would change, then the counts, on stdout (the plan is its result); a
    run prints its counts on stderr, and with --verbose each row it changed. Under -o json/jsonl the
    counts are one object with the same keys for a plan and a run; a plan's -o json is one document
    `{"rows": [...], "summary": {...}}`."""
    from wfctl.views import planview as plan

    summary = importer.summary.timed()
    fmt = app.output_format(output)
    out = app.output(fmt)
    kind = importer.options.kind
    if summary.dry_run:
        rows = plan.changing(importer.changes())
        parents = importer.parent_names if importer.kind.parent else None  # each row's target
        if importer.pruning is not None:  # every delete first
            import itertools

            from wfctl.plans.prune import delete_entries

            deletes = delete_entries(importer.pruning)
            if out.machine or not app.io.stdout_is_tty:
                rows = itertools.chain(deletes, rows)
            else:
                from wfctl.drivers.prunerun import show_deletes

                show_deletes(app.io.write, importer.pruning, parents, terminal=True)
        if out.structured or out.shaped:
            write_plan_rows(out, rows, summary.as_json(), parents)
            if fmt == "json" or not out.machine:
                return
        elif not app.io.stdout_is_tty:
            plan.write(app.io.write, kind, rows, terminal=False, parents=parents, accepted=importer.sent_as_is)
        else:  # a terminal: the first rows and the counts; a pipe or -o jsonl gets every row
            from wfctl.views.shortview import write_rows

            write_rows(app.io.write, kind, rows, terminal=True, shorten=True, accepted=importer.sent_as_is,
                       hint="`-o jsonl` shows every one, one per line; so does a pipe, e.g. `| less`", parents=parents)
    elif app.options.verbose:
        plan.write(app.io.write_err, kind, plan.changing(importer.changes()), terminal=app.io.stderr_is_tty,
                   accepted=importer.sent_as_is)
    if out.machine or out.structured or out.shaped:
        out.line(summary.as_json())
        return
    labels = _labels(summary)
    if summary.dry_run:
        width = max(len(label) for label, _ in labels)
        app.io.write("".join(f"{label.ljust(width)}  {count}\n" for label, count in labels))
        _say_skipped_differ(app.io.write_err, summary)
        _say_not_in_file(app.io.write_err, summary, importer.kind)
        return
    total, plan_share = summary.seconds, summary.plan_seconds
    # this run's rows (a prune's deletes among them, as its progress line counts them): a resumed run's
    # earlier rows took no time here
    before = min(summary.resumed, summary.units)
    sent = summary.units - before
    rate = sent / total if total > 0 else 0.0
    earlier = f" (of {summary.units}; {before} done before)" if before else ""
    counts = ", ".join(f"{label} {count}" for label, count in labels if count)
    # the plan (reading what exists) is shown apart when it is a good part of the time
    split = (f"plan {plan_share:.1f}s, send {total - plan_share:.1f}s; "
             if plan_share >= 0.5 and plan_share >= total / 5 else "")
    line = (f"run {summary.run_id}: {sent} row{'' if sent == 1 else 's'}{earlier} in {total:.1f}s "
            f"({split}{rate:.0f} rows/s): {counts or 'nothing to do'}")
    app.io.write_err(_folded(line, app.io.stderr_is_tty) + "\n")
    _say_skipped_differ(app.io.write_err, summary)


def _folded(line: str, terminal: bool) -> str:
    """`line` broken between words at the terminal's width, the next lines indented (the terminal broke it
    mid-word: `upda` / `ted 3000`); a pipe gets one line."""
    import shutil
    import textwrap

    width = shutil.get_terminal_size((80, 24)).columns - 1
    if not terminal or len(line) <= width:
        return line
    return "\n".join(textwrap.wrap(line, width=width, subsequent_indent="  ", break_long_words=False,
                                    break_on_hyphens=False))


def _say_skipped_differ(err: Callable[[str], None], summary: Summary) -> None:
    """Rows skipped because their record exists, whose values differ from it: their edits are not sent
    (an edited export imported without --on-existing update), said, never dropped in silence."""
    differ, unread = summary.skipped_differ, summary.skipped_unread
    if not differ and not unread:
        return
    skipped = summary.counts["skipped"]
    unsent = "a run would not send their changes" if summary.dry_run else "their changes were not sent"
    text = (f"{differ} of the {skipped} rows skipped (exist) differ from the service: {unsent}; "
            "--on-existing update sends them")
    if unread:
        text += f" ({unread} more could not be read to compare)"
    err(text + "\n")


def _say_not_in_file(err: Callable[[str], None], summary: Summary, kind: Any) -> None:
    """The records the file could reach that no row keeps (issue 33 §3): a deleted row deletes nothing,
    said in a plan; a prune's plan lists its deletes instead."""
    from wfctl.api.records.resources import RESOURCES, counted

    if summary.not_in_file and not summary.prune:
        have = "has" if summary.not_in_file == 1 else "have"
        of = f" of the file's {RESOURCES[kind.parent].plural}" if kind.parent else ""
        err(f"{counted(kind.name, summary.not_in_file)}{of} {have} no row in it: kept, as a row deleted "
                     "from the file deletes nothing (--prune deletes them)\n")


def list_problems(err: Callable[[str], None], problems: list[Any]) -> None:
    """A file's invalid rows on stderr: each cause once, with the rows it holds for (wfctl.plans.importtypes)."""
    from wfctl.plans.importtypes import grouped_problems

    for line in grouped_problems(problems):
        err(f"invalid: {one_line(line)}\n")


def _labels(summary: Summary) -> list[tuple[str, int]]:
    """(label, count): a plan and a run use the same words, a plan in the future tense."""
    # a resumed run's line says what this run did: the rows done before are counted apart ("done before")
    counts = {status: count - summary.before.get(status, 0) for status, count in summary.counts.items()}
    counts.setdefault("deleted", 0)
    done = [("created", "to create"), ("updated", "to update"), ("unchanged", "unchanged"),
            ("skipped (exist)", "skipped (exist)")]
    rows = [(plan if summary.dry_run else label, counts[status])
            for status, (label, plan) in zip(("created", "updated", "unchanged", "skipped"), done, strict=True)]
    if summary.prune:  # a prune's deletes, first; one someone else deleted since the plan (404) counts too
        rows.insert(0, ("to delete" if summary.dry_run else "deleted", counts.get("deleted", 0)))
        if not summary.dry_run:
            rows.insert(1, ("already gone", counts.get("gone", 0)))
    if not summary.dry_run:
        rows.append(("failed", counts["failed"]))
    rows.append(("invalid", counts["invalid"]))
    if summary.blank:
        rows.append(("blank (skipped)", summary.blank))
    return rows


def _list_problems(err: Callable[[str], None], summary: Summary) -> None:
    list_problems(err, summary.problems)
    more = summary.invalid - len({p.row for p in summary.problems if p.row})
    if more > 0:
        err(f"... and {more} more invalid row{'s' if more != 1 else ''} (--report FILE lists every one)\n")
