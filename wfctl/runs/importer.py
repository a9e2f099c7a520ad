"""A bulk import run: validate every row, resolve parents, plan by natural key, send concurrently.

Passes over the (streamed) file, so memory does not grow with its size beyond a few bytes a row:

1. parent references (`client` names, `clientId`s) are collected and resolved;
2. existing records of those parents are listed (natural key -> summary);
3. every row is decoded and validated with the write models; problems are listed with row and column
   and, unless `skip_invalid`, stop the run before anything is sent;
   a real run over existing records then plans once (`prepare`, readyplan.py): each update's record read,
   its changes reviewed for spreadsheet damage, the actions spooled, and pass 4 sends exactly those; a
   dry run prepares the same way and shows them;
4. rows are sent by a pool of threads sharing one Client, at most `concurrency` at a time; each row's
   intent is written to the run's journal before it is sent and its outcome (with the values it
   changed, for review and undo) after; 429/503 pause every worker together;
5. the report re-reads the file, with the plan (each invalid row's error) and the journal.

A run stops early, with every row it sent recorded, when the journal cannot be written, when the
service stays unreachable, or on Ctrl-C (`Stopped`); running the same command again resumes it.

One idea a module: `Importer` (here) holds one import's run together: its journal and lock, its plan, its
summary. Passes 1-3 are the planner, validation.py (passes 1-2 lookup.py), which returns the plan as a
value, importplan.py (what the service holds, read once, and each row's action, problems and facts); the
plan made ready to run (or shown, a dry run), or saved and run as reviewed, readyplan.py; the spool of checked rows spool.py; pass 4 sending.py (the rows' actions on the one
executor, engine.py); the plan view and the report importview.py; which journal the run writes (a plan's throwaway one, the
unfinished run of the same import resumed, or a new run's, under the import's lock) here too; and
the options, summary and problems importtypes.py.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from wfctl.api.net.retry import Pause
from wfctl.files.reader import CsvInput, Row
from wfctl.plans.importplan import ImportPlan, Inventory, Prepared
from wfctl.plans.importtypes import (
    DRY_STATUSES,
    STATUSES,
    UNSENT,
    Options,
    Problem,
    Stopped,
    Summary,
    ValidationStopped,
)
from wfctl.plans.kinds import KINDS, Kind
from wfctl.plans.validation import MAX_LISTED_COLUMNS, MAX_LISTED_PROBLEMS, Planner
from wfctl.runs import journal as journals
from wfctl.runs.engine import RunContext
from wfctl.runs.journal import Entry, Journal, JournalError
from wfctl.runs.sending import UNREACHABLE_SECONDS, RowWriter
from wfctl.runs.session import RunRecord, now
from wfctl.views import importview
from wfctl.views.planview import TYPED, Created

if TYPE_CHECKING:
    from wfctl.files.damage import Finding
    from wfctl.plans.prune import PrunePlan

__all__ = ["DRY_STATUSES", "MAX_LISTED_COLUMNS", "MAX_LISTED_PROBLEMS", "STATUSES",
           "UNREACHABLE_SECONDS", "UNSENT", "Importer", "Options", "Problem", "Stopped", "Summary",
           "ValidationStopped"]


class Importer:
    """One import: `open_journal`, `validate` (passes 1-3: its plan, `plan()`), `run` (pass 4), then
    `outcomes`/`changes` for the report and the result, and `release` at the end, whatever happened.
    `inventory`: what the service holds, read by an earlier planning (else validate reads it)."""

    def __init__(self, api: Any, source: CsvInput, options: Options,
                 progress: Callable[[str], None] | None = None,
                 on_total: Callable[[int, int], None] | None = None,
                 note: Callable[[str], None] | None = None, inventory: Inventory | None = None) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind: Kind = KINDS[options.kind]
        self.summary = Summary(dry_run=options.dry_run)
        self._progress = progress or (lambda status: None)
        self._on_total = on_total or (lambda total, done: None)
        self._note = note or (lambda text: None)
        #: What the service holds, read once by planning (given: read by an earlier planning of the same file).
        self.inventory = inventory if inventory is not None else Inventory()
        self._pause = Pause()  # the run's one pause (wfctl.runs.engine.RunContext), every worker's
        self.journal: Journal | None = None
        self._lock_held: Any = None
        self._plan: ImportPlan | None = None
        self._prepared: Prepared | None = None  # a real run's planned actions (readyplan.py), when it planned first
        self._typed: set[tuple[int, str]] | None = None  # (row, field) of the findings' cells typed as text
        self.pruning: PrunePlan | None = None  # --prune: the deletes (`plan_prune`), planned after validation
        self.summary.prune = options.prune

    def plan(self) -> ImportPlan:
        """The plan that validation made: each valid row's action, the problems, the inventory read once."""
        assert self._plan is not None and self._plan.spool is not None, "validate() first"
        return self._plan

    # -- the run -------------------------------------------------------------------------------

    def open_journal(self) -> Journal:
        """Start this run's journal, or resume the unfinished one of the same import; a real run also
        takes the import's lock. Raises RunLocked, JournalError."""
        header = import_record(self.options, self.source)
        if self.options.dry_run:
            self.journal = plan_journal(header)
            return self.journal
        self._lock_held = take_import_lock(self.options, header)
        try:
            self.journal = run_journal(self.options, header)
        except BaseException:
            self.release()
            raise
        self.summary.journal_path = self.journal.path
        self.summary.run_id = self.journal.run_id
        self.summary.resumed = self.journal.resumed
        return self.journal

    def release(self) -> None:
        """Close the journal (a run that validation stopped never finished it), give up the import's
        lock, and remove a plan's temporary journal and spool, and the journal of a run that sent
        nothing (validation stopped it), which `imports list` would show as interrupted."""
        if self.journal is not None:
            self.journal.finish(None)
        self._close_plans()
        if self._lock_held is not None:
            self._lock_held.__exit__(None, None, None)
            self._lock_held = None
        journal = self.journal
        if journal is not None and (self.options.dry_run or (not journal.resumed
                                                             and next(journal.rows(), None) is None)):
            with contextlib.suppress(OSError):  # a plan, or a run that sent nothing: no run to list
                os.unlink(journal.path)

    def validate(self) -> Summary:
        """Passes 1-3: the plan (`plan()`). Raises ValidationStopped when the columns are not right, or
        rows are invalid and skip_invalid is off."""
        started = time.monotonic()
        summary = self.summary
        plan = self._plan = Planner(self.api, self.source, self.options, self.inventory, self.journal).plan()
        summary.problems = plan.problems
        if not plan.checked:
            summary.invalid = 0
            raise ValidationStopped(summary)
        summary.rows = plan.rows_read
        summary.invalid = len(plan.invalid)
        summary.counts["invalid"] += summary.invalid
        summary.blank = getattr(self.source, "blank_rows", 0)
        summary.not_in_file = plan.not_in_file()
        summary.seconds = time.monotonic() - started
        if summary.invalid and not self.options.skip_invalid:
            raise ValidationStopped(summary)
        return summary

    def plan_prune(self) -> PrunePlan:
        """--prune: the deletes of the plan (prune.py), each whole record read; raises BulkError when the
        prune refuses (no scope, --skip-invalid, a parent in scope the file has no row for)."""
        from wfctl.plans.prune import plan_prune

        self.pruning = plan_prune(self.plan(), self.api, self.options, self.journal)
        return self.pruning

    def _close_plans(self) -> None:
        for held in (self._plan, self._prepared):
            if held is not None:
                held.close()
        self._prepared = None

    def prepare(self, progress: Callable[[str], None] | None = None,
                on_total: Callable[[int, int], None] | None = None) -> list[Finding]:
        """A real run's plan before anything is sent (readyplan.py): each update's record read once, its
        changes computed; `run` then executes exactly those actions. Returns its spreadsheet findings
        (damage.py). Raises Stopped (Ctrl-C: nothing was sent)."""
        from wfctl.plans.readyplan import prepare

        assert not self.options.dry_run
        if self.journal is None:
            self.open_journal()
        assert self.journal is not None
        self._prepared = prepare(self.plan(), self.api, self.journal, self.options, rows=self.summary.rows,
                                 pause=self._pause, note=self._note, progress=progress, on_total=on_total)
        return self._prepared.findings

    def run(self) -> Summary:
        """Pass 4: send (or, on a dry run, show) every valid row not done by an earlier run.
        Raises Stopped when the run ends early (every row it sent is recorded)."""
        started = time.monotonic()
        if self.journal is None:
            self.open_journal()
        journal = self.journal
        assert journal is not None
        self._count_earlier(journal, every=self.pruning is not None)
        if self.pruning is not None:  # a resumed prune's deletes include those the run it resumes did
            self.summary.deletes = self.pruning.total
        self._on_total(self.summary.units, self.summary.resumed)
        plan = self.plan()
        complete = False
        try:
            if self.options.dry_run:
                self._show_plan(plan, journal)  # raises Stopped (Ctrl-C)
            else:
                run = RunContext(self.api, journal, pause=self._pause, note=self._note, lean=True)
                writer = RowWriter(self.api, journal, self.options, self.inventory, self.summary, self._progress,
                                   self._pause)
                deletes: list[Any] = []
                if self.pruning is not None:
                    from wfctl.plans.prune import delete_actions

                    deletes = delete_actions(writer, self.pruning, journal)
                groups = []
                if self.options.on_existing == "update":  # issue 33 §3: renames that wait for one another
                    from wfctl.plans.renames import rename_groups

                    groups = rename_groups(plan, self.options.kind)
                # raises Stopped (Ctrl-C, the journal, an outage)
                writer.send_all(plan, self._prepared, run, deletes, groups)
            if self.summary.counts["skipped"] and self.options.on_existing == "skip":
                from wfctl.runs import skipped

                self.summary.skipped_differ, self.summary.skipped_unread = skipped.count(
                    plan, journal, self.api, self.options)
            complete = self.summary.counts["failed"] == 0 and self.summary.invalid == 0
        finally:
            journal.finish(self.summary.end_counts() if complete else None)
            if not self.options.dry_run:  # a plan reads its creates back; the report, its errors
                plan.drop_actions()
                if self._prepared is not None:
                    self._prepared.close()
                    self._prepared = None
            self.summary.seconds = time.monotonic() - started
        return self.summary

    def run_saved(self, saved: Any) -> Summary:
        """Run exactly a saved plan's actions (readyplan.py: checked beforehand), journalled as this
        file's import. Raises Stopped."""
        from wfctl.plans import readyplan as savedplan
        from wfctl.runs.engine import Executor

        started = time.monotonic()
        journal = self.journal if self.journal is not None else self.open_journal()
        summary = self.summary
        summary.prune = summary.prune or saved.data.get("scope") is not None  # a prune's plan: deletes counted
        creates, updates, deletes = saved.counts
        # what the plan sends: its rows that change (a row it leaves as it is is no part of the run), its deletes
        summary.rows, summary.deletes = creates + updates, deletes
        self._on_total(creates + updates + deletes, 0)
        self._count_earlier(journal, every=True)  # a stopped run of the plan, resumed: what it did counts
        run = RunContext(self.api, journal, pause=self._pause, note=self._note, lean=True)
        writer = RowWriter(self.api, journal, self.options, self.inventory, summary, self._progress, self._pause)
        complete = False
        try:
            Executor(run, self.options.concurrency, name="wfctl-import").run(savedplan.actions(saved, writer, journal))
            complete = summary.counts["failed"] == 0
        finally:
            journal.finish(summary.end_counts() if complete else None)
            summary.seconds = time.monotonic() - started
        return summary

    def _count_earlier(self, journal: Journal, *, every: bool) -> None:
        """Count the rows the run this one resumes did (`Summary.before`): the file's rows, and with `every`
        its other keys too (a prune's deletes)."""
        for row in journal.rows():
            if journal.done(row) and ((isinstance(row, int) and row <= self.summary.rows) or every):
                status = str(journal.status(row))
                self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
                self.summary.before[status] = self.summary.before.get(status, 0) + 1

    def _show_plan(self, plan: ImportPlan, journal: Journal) -> None:
        """A dry run: the plan prepared as a run prepares it (each update's record read once, what it
        changes), its creates counted from the plan (never journalled: the plan view reads them from its
        spool), the other rows' outcomes journalled in the plan's journal for the view and the report."""
        from wfctl.plans.readyplan import prepare

        counts = self.summary.counts
        if self.pruning is not None:
            counts["deleted"] = self.pruning.count
        creates = plan.create_count()
        for _ in range(creates):
            self._progress("created")
        counts["created"] += creates
        prepared = prepare(plan, self.api, journal, self.options, rows=self.summary.rows, pause=self._pause,
                           note=self._note, progress=self._progress, creates=False)
        try:
            for row, status, record_id, error, name, changes in prepared.outcomes():
                journal.record(row, status, record_id, error, name, changes)
                counts[status] = counts.get(status, 0) + 1
        except JournalError as exc:  # as the executor says it (engine.Stopped)
            raise Stopped("journal", str(exc)) from None
        except KeyboardInterrupt:
            raise Stopped("interrupted", "interrupted") from None
        finally:
            prepared.close()

    def outcomes(self) -> Iterator[tuple[Row, str, str, str, str]]:
        """Every input row with (status, id, error, changes), in file order, for the report (importview.py)."""
        return importview.outcomes(self.source, self._plan, self.journal, self.options.kind,
                                   dry_run=self.options.dry_run)

    def changes(self) -> Iterator[Entry | Created]:
        """The journal's entries in row order (each row's latest outcome, with its changes); a plan's
        with its creates (importview.py)."""
        return importview.changes(self._plan, self.journal, self.options.kind, dry_run=self.options.dry_run)

    def plan_findings(self) -> list[Finding]:
        """A dry run's spreadsheet findings (damage.py): its updates from the journal, its creates as
        planning found them (a suspect name), so the plan's creates are not walked for it."""
        from wfctl.files import damage

        plan = self.plan()
        updates = self.journal.iter_entries() if self.journal is not None else iter(())
        return damage.review(updates, self.inventory.existing, creates=plan.suspect_creates(), cut=plan.cut_creates)

    def sent_as_is(self, row: int, field: str) -> str | None:
        """Of `row`'s change of `field` that looks like a spreadsheet's doing (plan.Accepted): the option that
        sends it as it is, plan.TYPED when its workbook cell was typed as text, None when it stops a run."""
        option = self.options.accepted_by(row)
        if option is not None or not getattr(self.source, "book", None):
            return option
        if self._typed is None:  # once: the workbook's cells of every finding
            from wfctl.files.damage import ANY_CELL
            from wfctl.files.typedtext import typed_cells

            self._typed = typed_cells(self.source, {(f.row, f.field) for f in self.plan_findings()
                                                    if f.reason not in ANY_CELL})
        return TYPED if (row, field) in self._typed else None

    @property
    def parent_names(self) -> dict[str, str]:
        """The name of each parent the run looked up, by id (a plan names each row's)."""
        return self.inventory.parent_names


# -- which journal an import run writes ------------------------------------------------------------


def import_record(options: Options, source: CsvInput) -> RunRecord:
    """What makes two runs the same import (with the run's own fields added when it starts)."""
    return RunRecord(options.kind, options.file_path or source.display, options.target, options.profile,
                     file=source.sha256, parent=options.parent_id or "", on_existing=options.on_existing,
                     extra={"plan": options.plan} if options.plan else {})  # a saved plan's run (its digest)


def plan_journal(header: RunRecord) -> Journal:
    """A plan's journal: a temporary file, not durable, removed when the plan is shown."""
    try:
        fd, plan_path = tempfile.mkstemp(prefix="wfctl-plan-", suffix=".journal")
    except OSError as exc:
        from wfctl.files.spool import TemporaryFull

        raise TemporaryFull(exc) from None
    os.close(fd)
    try:
        return Journal(plan_path, replace(header, started=now()), durable=False)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(plan_path)  # nothing of a plan is left behind
        raise


def take_import_lock(options: Options, header: RunRecord) -> Any:
    """Take the import's lock (held until its `__exit__`). Raises RunLocked."""
    return journals.ImportLock(journals.runs_dir(options.profile), header).__enter__()


def run_journal(options: Options, header: RunRecord) -> Journal:
    """The journal named by --journal or the unfinished one of the same import, resumed; else a new run's.
    Raises JournalError."""
    directory = journals.runs_dir(options.profile)
    path: str | None = options.journal_path or journals.find_unfinished(directory, header)
    if path and os.path.exists(path):
        old = journals.header_of(path)
        if old is None:
            journals.read(path)  # raises: not a journal, or a corrupted one
        elif not journals.is_finished(path) and journals.import_key(old) == journals.import_key(header):
            return Journal.resume(path)
        else:  # a finished run, or another import's: its record is kept for `imports undo`
            raise JournalError(path, f"it holds run {old.get('run') or '?'} (another run); name a new file")
    run = journals.new_run_id()
    return Journal(options.journal_path or journals.journal_path(directory, run), header.started_now(run))
