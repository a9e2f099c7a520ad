"""A bulk import run: validate every row, resolve parents, plan by natural key, send concurrently.

Passes over the (streamed) file, so memory does not grow with its size beyond a few bytes a row:

1. parent references (`client` names, `clientId`s) are collected and resolved;
2. existing records of those parents are listed (natural key -> summary);
3. every row is decoded and validated with the write models; problems are listed with row and column
   and, unless `skip_invalid`, stop the run before anything is sent;
   a real run over existing records then plans once (`prepare`, prepare.py): each update's record read,
   its changes reviewed for spreadsheet damage, the actions spooled, and pass 4 sends exactly those;
4. rows are sent by a pool of threads sharing one Client, at most `concurrency` at a time; each row's
   intent is written to the run's journal before it is sent and its outcome (with the values it
   changed, for review and undo) after; 429/503 pause every worker together;
5. the report re-reads the file and the journal.

A run stops early, with every row it sent recorded, when the journal cannot be written, when the
service stays unreachable, or on Ctrl-C (`Stopped`); running the same command again resumes it.

One idea a module: `Importer` (here) runs the passes and reports; passes 1-3 are validation.py, their
value (what the service holds, read once, and each row's planned action) planning.py, a real run's plan
made before it sends prepare.py, the spool of checked rows spool.py, pass 4 sending.py (the rows'
actions on the one executor, engine.py), the run's journal runjournal.py, the state they share
importstate.py, and the options, summary and problems importtypes.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import marshal
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from wfctl.bulk import runjournal
from wfctl.bulk.importtypes import (
    DRY_STATUSES,
    STATUSES,
    UNSENT,
    Options,
    Problem,
    Stopped,
    Summary,
    ValidationStopped,
)
from wfctl.bulk.journal import Entry, Journal
from wfctl.bulk.plan import Created
from wfctl.bulk.reader import Row
from wfctl.bulk.sending import UNREACHABLE_SECONDS, Sending
from wfctl.bulk.validation import MAX_LISTED_COLUMNS, MAX_LISTED_PROBLEMS, RowValidation

if TYPE_CHECKING:
    from wfctl.bulk.damage import Finding

__all__ = ["DRY_STATUSES", "MAX_LISTED_COLUMNS", "MAX_LISTED_PROBLEMS", "STATUSES",
           "UNREACHABLE_SECONDS", "UNSENT", "Importer", "Options", "Problem", "Stopped", "Summary",
           "ValidationStopped"]


class Importer(RowValidation, Sending):
    """One import: `open_journal`, `validate` (passes 1-3), `run` (pass 4), then `outcomes`/`changes` for
    the report and the result, and `release` at the end, whatever happened."""

    # -- the run -------------------------------------------------------------------------------

    def open_journal(self) -> Journal:
        """Start this run's journal, or resume the unfinished one of the same import; a real run also
        takes the import's lock. Raises RunLocked, JournalError."""
        header = runjournal.header_of(self.options, self.source)
        if self.options.dry_run:
            self.journal = runjournal.plan_journal(header)
            return self.journal
        self._lock_held = runjournal.lock(self.options, header)
        try:
            self.journal = runjournal.run_journal(self.options, header)
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
        self._close_spools()
        if self._lock_held is not None:
            self._lock_held.__exit__(None, None, None)
            self._lock_held = None
        journal = self.journal
        if journal is not None and (self.options.dry_run or (not journal.resumed
                                                             and next(journal.rows(), None) is None)):
            with contextlib.suppress(OSError):  # a plan, or a run that sent nothing: no run to list
                os.unlink(journal.path)
    def validate(self) -> Summary:
        """Passes 1-3. Raises ValidationStopped when rows are invalid and skip_invalid is off."""
        started = time.monotonic()
        self._check_columns()
        if not self.inventory.read:  # else read by an earlier planning of the same file and options
            self._resolve_parents()
            self._load_existing()
        self._validate_rows()
        self.summary.blank = getattr(self.source, "blank_rows", 0)
        self.summary.seconds = time.monotonic() - started
        if self.summary.invalid and not self.options.skip_invalid:
            raise ValidationStopped(self.summary)
        return self.summary

    def _close_spools(self) -> None:
        for spool in (self._spool, self._prepared):
            if spool is not None:
                spool.close()
        self._spool = self._prepared = None

    def prepare(self, progress: Callable[[str], None] | None = None,
                on_total: Callable[[int, int], None] | None = None) -> list[Finding]:
        """A real run's plan before anything is sent (prepare.py): each update's record read once, its
        changes computed; `run` then executes exactly those actions. Returns its spreadsheet findings
        (damage.py). Raises Stopped (Ctrl-C: nothing was sent)."""
        from wfctl.bulk.prepare import prepare

        assert not self.options.dry_run
        if self.journal is None:
            self.open_journal()
        return prepare(self, progress, on_total)

    def run(self) -> Summary:
        """Pass 4: send (or, on a dry run, plan) every valid row not done by an earlier run.
        Raises Stopped when the run ends early (every row it sent is recorded)."""
        started = time.monotonic()
        if self.journal is None:
            self.open_journal()
        journal = self.journal
        assert journal is not None
        for row in journal.rows():
            if journal.done(row) and row <= self.summary.rows:
                status = str(journal.status(row))
                self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
                self.summary.before[status] = self.summary.before.get(status, 0) + 1
        self._on_total(self.summary.rows, self.summary.resumed)
        complete = False
        try:
            self._send_all()  # raises Stopped (Ctrl-C, the journal, an outage)
            if self.summary.counts["skipped"] and self.options.on_existing == "skip":
                from wfctl.bulk import skipped

                self.summary.skipped_differ, self.summary.skipped_unread = skipped.count(self)
            complete = self.summary.counts["failed"] == 0 and self.summary.invalid == 0
        finally:
            journal.finish({s: self.summary.counts[s] for s in STATUSES} if complete else None)
            if not self.options.dry_run:  # a plan reads its creates back
                self._close_spools()
            self.summary.seconds = time.monotonic() - started
        return self.summary

    def outcomes(self) -> Iterator[tuple[Row, str, str, str, str]]:
        """Every input row with (status, id, error, changes), in file order, for the report; changes
        as one line (`address: 1 High St -> 2 High St; + banned worker W-2`)."""
        from wfctl.changes import compact

        kind = self.options.kind
        for row, status, entry in self._row_outcomes():
            if entry is None:
                yield row, status, "", "", ""
                continue
            pairs = {name: (pair[0], pair[1]) for name, pair in entry.changes.items()}
            yield row, status, entry.id, entry.error, compact(kind, pairs)

    def changes(self) -> Iterator[Entry | Created]:
        """The journal's entries in row order (each row's latest outcome, with its changes)."""
        if self.journal is None:
            return iter(())
        if self.options.dry_run and self._spool is not None:
            return self._planned_entries()
        return self.journal.iter_entries()

    def _planned_entries(self) -> Iterator[Entry | Created]:
        """A plan's entries in row order: its creates from the spool (they are not journaled: most of the
        cost of planning a large file), the rows that exist from the journal; each with the parent it is
        under (`parent_names` names it)."""
        assert self.journal is not None and self._spool is not None
        spool = self._spool
        logged = self.journal.iter_entries()
        following = next(logged, None)
        creates, invalid = self._creates, self._invalid_rows
        for (number, parent, name, fields_json), body in spool.planned_rows():
            while following is not None and following.row < number:
                yield following
                following = next(logged, None)
            if following is not None and following.row == number:  # an update, or a row left as it is
                yield dataclasses.replace(following, parent=following.parent or parent or "")
                following = next(logged, None)
                continue
            if not creates[number] or number in invalid:  # not a create (see _planned)
                continue
            yield Created(number, name, fields_json, functools.partial(self._given, body), parent or "")
        while following is not None:
            yield following
            following = next(logged, None)

    @property
    def parent_names(self) -> dict[str, str]:
        """The name of each parent the run looked up, by id (a plan names each row's)."""
        return self.inventory.parent_names

    def _given(self, body: bytes) -> dict[str, list[Any]]:
        """A create's changes: each field of its body but the parent, as [old, new]."""
        parent_column = self.kind.parent_id_column
        return {k: [None, v] for k, v in marshal.loads(body).items() if k != parent_column}

    def _row_outcomes(self) -> Iterator[tuple[Row, str, Entry | None]]:
        journal = self.journal
        for row in self.source.rows():
            problems, _, _ = self._check(row)
            if problems:
                error = "; ".join(f"{p.column}: {p.message}" if p.column else p.message for p in problems)
                yield row, "invalid", Entry(row.number, "invalid", error=error)
                continue
            entry = journal.entry(row.number) if journal else None
            if entry is None and self._planned(row.number):
                entry = Entry(row.number, "created")
            if entry is None or entry.status == UNSENT:
                yield row, "not sent", None
                continue
            if entry.status == "sending":  # sent when the run stopped: running it again finds out
                yield row, "no answer", entry
                continue
            status = DRY_STATUSES.get(entry.status, entry.status) if self.options.dry_run else entry.status
            yield row, status, entry
