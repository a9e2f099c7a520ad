"""Which journal an import run writes: a plan's throwaway one, the unfinished run of the same import
(resumed), or a new run's, under the import's lock."""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import replace
from typing import Any

from wfctl.files.reader import CsvInput
from wfctl.plans.importtypes import Options
from wfctl.runs import journal as journals
from wfctl.runs.journal import Journal, JournalError
from wfctl.runs.runrecord import RunRecord, now


def header_of(options: Options, source: CsvInput) -> RunRecord:
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


def lock(options: Options, header: RunRecord) -> Any:
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
