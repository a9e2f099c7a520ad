"""`wfctl sites edit --client`: the changed sites sent as one journalled run (wfctl.editor.editrun's actions on
the one executor), said as `rates set` says its run: `run <id>: ...` on stderr, a JSON summary for a program.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.editor.editdoc import Shape

COUNTS = ("updated", "unchanged", "skipped", "failed")


def run_stream(app: AppContext, out: Any, shape: Shape, merges: list[Any], *, key: str, command: str,
               force: bool) -> int:
    """Send each (base, mine, current, merge) of `merges` (the sites of one client) as one journalled run;
    `key` names the edit (`client-<id>`), `command` is how the person ran it. Returns the exit code."""
    from wfctl.editor.editrun import EditOutcome, EditRecord
    from wfctl.runs import journal as journals
    from wfctl.runs.engine import Executor, RunContext, Stopped
    from wfctl.runs.session import RunRecord

    started = time.monotonic()
    run_id = journals.new_run_id()
    header = RunRecord("site", command.removeprefix("wfctl "), str(getattr(app.client, "base_url", "") or ""),
                       app.settings.profile, change=f"{key}:{run_id}", command="sites edit").started_now(run_id)
    directory = journals.runs_dir(app.settings.profile)
    try:
        log = journals.Journal(journals.journal_path(directory, run_id), header)
    except journals.JournalError as exc:
        raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
    counts: Counter[str] = Counter()
    said: list[EditOutcome] = []

    def finished(outcome: EditOutcome) -> None:
        counts[outcome.status] += 1
        if outcome.error:
            said.append(outcome)

    actions = [EditRecord("site", str(base["id"]), str(current.get("name") or ""), shape.writable, base, mine,
                          force)
               for base, mine, current, _ in merges]
    stopped: Stopped | None = None
    try:
        Executor(RunContext(app.client, log, progress=finished), 4, name="wfctl-sites-edit").run(actions)
    except Stopped as stop:
        stopped = stop
    for outcome in said:
        prefix = "failed: " if outcome.status == "failed" else ""
        app.io.write_err(f"{prefix}site {one_line(outcome.name)} ({outcome.record_id}): {one_line(outcome.error)}\n")
    complete = stopped is None and not counts["failed"]
    log.finish({k: counts[k] for k in COUNTS} if complete else None)
    if stopped is not None:
        from wfctl.drivers.bulkrun import stopped_error

        raise stopped_error(stopped.cause, stopped.message, f"{sum(counts.values())} of {len(actions)} sites done")
    seconds = time.monotonic() - started
    if out.machine or out.structured or out.shaped:
        out.line({"run": run_id, "sites": len(actions), **{k: counts[k] for k in COUNTS}, "seconds": round(seconds, 3)})
    parts = ", ".join(f"{k} {counts[k]}" for k in COUNTS if counts[k])
    app.io.write_err(f"run {run_id}: {len(actions)} site{'s' if len(actions) != 1 else ''} in {seconds:.1f}s: {parts}"
                     f" (undo: wfctl imports undo {run_id})\n")
    return int(ExitCode.PARTIAL) if counts["failed"] else 0
