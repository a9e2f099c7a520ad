"""wfctl imports undo."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.commands.imports.runid import RunId
from wfctl.commands.options import Yes, app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.render.output import is_machine

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.runs.journal import Entry
    from wfctl.runs.undo import Run, Undoer, UndoPlan

DryRun = Annotated[bool, typer.Option("--dry-run", help="Check each row against the service and print what "
                                      "undo would do; change nothing.")]
Force = Annotated[bool, typer.Option("--force", help="Also delete or overwrite records that someone changed "
                                     "since the run.")]
Concurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Records taken back (or checked) at once; "
                                          "the rows of one record go in order.", min=1, max=128)]


@verb("undo")
@takes_output()
def undo(ctx: typer.Context, run_id: Annotated[str, RunId], dry_run: DryRun = False, yes: Yes = False,
         force: Force = False, concurrency: Concurrency = 16, output: OutputOptions = AS_CONFIGURED) -> int:
    """Take back a run: delete what it created, put back what it updated.

    Rows are taken back newest first. A record changed since the run is reported (`changed since the
    run`) and left as it is unless --force; one that cannot be deleted (a client that now has sites)
    is reported too; the exit code is then 10. Undo is journalled: a killed undo resumes when run
    again, and a run already undone is not undone twice. Asks on a terminal; elsewhere --yes is required.

    Examples:
      $ wfctl imports undo <run-id> --dry-run
      $ wfctl imports undo <run-id>
      $ wfctl imports undo <run-id> --yes --force -o json
    """
    from wfctl.runs import undo as runs

    app_ = app_context(ctx)
    out_format = app_.output_format(output.format)
    profile = app_.settings.profile
    every = runs.profile_runs(profile)
    run = runs.find_run(every, run_id)
    _check(run, str(app_.client.base_url))
    plan = runs.plan_undo(run, every, profile)
    if not plan.pending:
        _nothing_to_do(app_, plan, out_format)
        return 0
    undoer = runs.Undoer(app_.client, run.kind, force=force, header=run.header)
    if dry_run:
        outcomes = _preview(app_, plan, undoer, concurrency)
        counts = runs.count_outcomes(outcomes, run.entries())
        _write(app_, out_format, run.kind, outcomes, _summary(plan, counts, dry_run=True))
        if not is_machine(out_format):
            app_.io.write(runs.count_lines(counts, True, planned=True))
        return 0
    if not yes:
        if not app_.io.can_prompt:
            raise CliError("refusing to undo without confirmation: no terminal to ask on; pass --yes "
                           "(or --dry-run to see what undo would do)")
        from wfctl.drivers.prompts import confirm

        if not confirm(runs.question(plan, run.kind), app_.io):
            app_.io.write_err("Not undone.\n")
            return int(ExitCode.USAGE)
    if plan.resumed:
        app_.io.note(f"resuming undo run {plan.run_id}: {len(plan.resumed)} rows were done before it stopped")
    outcomes, counts = _run(app_, plan, undoer, out_format, concurrency)
    if out_format == "json":
        _write(app_, out_format, run.kind, outcomes, _summary(plan, counts, dry_run=False))
    else:
        app_.io.write_err(runs.summary_line(plan, counts, run.kind) + "\n")
    return int(ExitCode.PARTIAL) if runs.unsettled(counts) else 0


def _check(run: Run, base_url: str) -> None:
    if run.undo_of:
        raise CliError(f"run {run.id} is an undo (of run {run.undo_of}); an undo cannot be undone")
    if run.state == "running":
        raise CliError(f"run {run.id} is still running; wait for it to end (or stop it) before undoing it")
    target = str(run.header.get("target") or "").rstrip("/")
    if target and target != base_url.rstrip("/"):
        raise CliError(f"run {run.id} was made against {target}, but this profile uses {base_url}: "
                       "use the profile (or --base-url) of the run")


def _preview(app: AppContext, plan: UndoPlan, undoer: Undoer, concurrency: int) -> list[Entry]:
    """Check every pending row (`concurrency` at once), newest first; a progress line on a terminal."""
    import os

    from wfctl.render.progress import Progress
    from wfctl.runs.engine import Stopped
    from wfctl.runs.undo import preview_undo

    outcomes: list[Entry] = []
    source = os.path.basename(str(plan.run.header.get("path") or "")) or f"run {plan.run.id}"
    progress = Progress(f"checking {source}", terminal=app.io.stderr_is_tty, interval=float("inf"),
                        totals_only=True)  # a check has nothing to call failed

    def on_row(outcome: Entry) -> None:
        outcomes.append(outcome)
        progress.advance("created")

    progress.start(len(plan.pending))
    finished = False
    try:
        preview_undo(plan, undoer, on_row, concurrency=concurrency)
        finished = True
    except Stopped:  # Ctrl-C (a preview writes no journal)
        raise KeyboardInterrupt from None
    finally:
        progress.stop(clear=not finished)  # as the undo's own line: kept when done, erased when interrupted
    order = {entry.key: i for i, entry in enumerate(plan.pending)}
    return sorted(outcomes, key=lambda outcome: order.get(outcome.key, len(order)))


def _run(app: AppContext, plan: UndoPlan, undoer: Undoer, out_format: str,
         concurrency: int) -> tuple[list[Entry], dict[str, int]]:
    """Take the rows back (`concurrency` records at once), with the import's progress on stderr: a live line with
    done/total and the ETA on a terminal, a line every 5 s elsewhere."""
    import os

    from wfctl.drivers.bulkrun import write_plan_rows
    from wfctl.render.progress import Progress
    from wfctl.runs.engine import Stopped
    from wfctl.runs.journal import JournalError, RunLocked
    from wfctl.runs.undo import CHANGED, FAILED, run_undo
    from wfctl.views import planview as shapes

    out = app.output(out_format)
    outcomes: list[Entry] = []
    source = os.path.basename(str(plan.run.header.get("path") or "")) or f"run {plan.run.id}"
    progress = Progress(f"undoing {source}", terminal=app.io.stderr_is_tty, failed_word="not undone")

    def on_row(outcome: Entry) -> None:
        outcomes.append(outcome)
        if out_format == "jsonl" and not out.shaped:  # as they happen; a query reads the whole result
            write_plan_rows(out, shapes.changing([outcome]), None)
        elif out_format != "json" and outcome.status in (CHANGED, FAILED) and app.io.stderr_is_tty:
            progress.write(shapes.text_block(undoer.kind, outcome, shorten=True))  # as they happen
        progress.advance(outcome.status)

    progress.start(plan.undoable, plan.undoable - len(plan.pending))
    finished = False
    try:
        counts = run_undo(plan, undoer, on_row, concurrency=concurrency)
        finished = True
        order = {entry.key: i for i, entry in enumerate(plan.pending)}  # rows end in any order: shown newest first
        ordered = sorted(outcomes, key=lambda outcome: order.get(outcome.key, len(order)))
        if not is_machine(out_format) and not app.io.stderr_is_tty:  # a log: the same order every time
            for outcome in ordered:
                if outcome.status in (CHANGED, FAILED):
                    progress.write(shapes.text_block(undoer.kind, outcome, shorten=False))
        return ordered, counts
    except RunLocked as exc:
        raise CliError(f"run {plan.run.id}: another undo or import of it is in progress "
                       f"(pid {exc.pid or 'unknown'})", ExitCode.CONFLICT) from None
    except JournalError as exc:
        raise CliError(str(exc), ExitCode.FAILURE) from None
    except Stopped as stop:  # Ctrl-C, or the journal: rows in flight ended and were journalled
        if stop.cause == "interrupted":
            raise KeyboardInterrupt from None
        raise CliError(stop.message, ExitCode.FAILURE) from None
    finally:
        progress.stop(clear=not finished)


def _nothing_to_do(app: AppContext, plan: UndoPlan, out_format: str) -> None:
    if plan.undoable == 0:
        message = f"run {plan.run.id} changed nothing: nothing to undo"
    else:
        message = f"run {plan.run.id} is undone already (by run {', '.join(plan.undone_by)}): nothing to do"
    if out_format == "json":
        _write(app, out_format, plan.run.kind, [], {**_summary(plan, {}, dry_run=False), "run": None,
                                                    "message": message})
    else:
        app.io.write_err(message + "\n")


def _summary(plan: UndoPlan, counts: dict[str, int], *, dry_run: bool) -> dict[str, Any]:
    from wfctl.runs.undo import UNDO_COUNTS

    return {"run": plan.run_id, "undo": plan.run.id, "kind": plan.run.kind, "dryRun": dry_run,
            **{name: counts.get(name, 0) for name in UNDO_COUNTS if name != "recreated" or counts.get(name)}}


def _write(app: AppContext, out_format: str, kind: str, rows: list[Entry], summary: dict[str, Any]) -> None:
    from wfctl.views import planview as shapes

    if (out := app.output(out_format)).structured or out.shaped:
        from wfctl.drivers.bulkrun import write_plan_rows

        write_plan_rows(out, shapes.changing(rows), summary)
    elif not app.io.stdout_is_tty:
        shapes.write(app.io.write, kind, shapes.changing(rows), terminal=False)
    else:  # a terminal: the first rows, then the counts (as an import's plan); a pipe or -o jsonl gets every row
        from wfctl.views.shortview import write_rows

        write_rows(app.io.write, kind, shapes.changing(rows), terminal=True, shorten=True,
                   hint="`-o jsonl` shows every one, one per line; so does a pipe, e.g. `| less`")
