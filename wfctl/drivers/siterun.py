"""What the runs over many sites (`rates set`, `bans add|remove`) share on the CLI side: the journal of an
earlier run of the same change (found, its settled sites read), the sites skipped or failed listed on
stderr, and the run's last line."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.runs.journal import Journal
    from wfctl.runs.session import RunRecord

COUNTS = ("updated", "unchanged", "skipped", "failed")
#: Listed on stderr one by one, at most this many (the report has every one).
SHOWN = 50
#: A real run on a terminal asks first when it would change more sites than this (--yes: never asks).
ASK_OVER = 10


def confirmed(app: AppContext, changing: int, plan_lines: str, question: str, *, yes: bool) -> tuple[bool, float]:
    """Whether to send a run changing `changing` sites, and the seconds spent asking (a summary's rate leaves
    them out). More than ASK_OVER sites on a terminal: `plan_lines` (the plan's counts) on stderr, then
    `question`; --yes, or no terminal to ask on (a script), sends."""
    if yes or changing <= ASK_OVER or not app.io.can_prompt:
        return True, 0.0
    from wfctl.drivers.prompts import confirm

    asked = time.monotonic()
    app.io.write_err(plan_lines)
    answer = confirm(question, app.io)
    return answer, time.monotonic() - asked


def unfinished(directory: str, header: RunRecord, journal_path: str | None) -> str | None:
    """The journal of an earlier run of the same change that stopped before its end."""
    import os

    from wfctl.runs import journal as journals

    path = journal_path if journal_path and os.path.exists(journal_path) else None
    if path is not None:
        old = journals.header_of(path)
        if old is None:
            try:
                journals.read(path)
            except journals.JournalError as exc:
                raise CliError(f"{exc}; nothing was sent") from None
        if old is None or journals.is_finished(path) or journals.import_key(old) != journals.import_key(header):
            raise CliError(f"--journal {path} holds another run; name a new file")
        return path
    return journals.find_unfinished(directory, header)


def settled(path: str | None) -> dict[str, str]:
    """site id -> status of each site the earlier run (its journal `path`) journalled."""
    from wfctl.runs import journal as journals

    if path is None:
        return {}
    try:
        _, entries, _ = journals.read(path)
    except journals.JournalError as exc:
        raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
    return {entry.id: entry.status for entry in entries.values() if entry.id}


def list_outcomes(err: Callable[[str], None], outcomes: dict[str, tuple[str, str, Any]], names: dict[str, str]) -> None:
    """Each site skipped for a reason (changed since the plan, deleted) and each failed, on stderr."""
    shown = [(sid, status, error) for sid, (status, error, _) in outcomes.items() if error]
    for site_id, status, error in shown[:SHOWN]:
        where = f"site {one_line(names.get(site_id, ''))} ({one_line(site_id)})"
        err(f"{where}: {one_line(error)}\n" if status != "failed" else f"failed: {where}: {one_line(error)}\n")
    if len(shown) > SHOWN:
        err(f"... and {len(shown) - SHOWN} more (--report FILE lists every one)\n")


def summary_line(app: AppContext, run_id: str, counts: Counter[str], started: float, plan_seconds: float,
                  output: str | None) -> None:
    total = time.monotonic() - started
    sites = sum(counts[k] for k in COUNTS)
    out = app.output(app.output_format(output))
    if out.machine or out.structured or out.shaped:
        out.line({"run": run_id or None, "sites": sites, **{k: counts[k] for k in COUNTS},
                  "seconds": round(total, 3), "dryRun": False})
    parts = ", ".join(f"{k} {counts[k]}" for k in COUNTS if counts[k]) or "nothing to do"
    split = f" (plan {plan_seconds:.1f}s, send {total - plan_seconds:.1f}s)" if plan_seconds >= 0.5 else ""
    rate = sites / total if total > 0 else 0.0
    head = f"run {run_id}: " if run_id else "no run: "
    app.io.write_err(f"{head}{sites} sites in {total:.1f}s{split} ({rate:.0f} sites/s): {parts}\n")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Sending:
    """A run's journal and naming: its header, the profile's runs folder, the journal of the earlier run it
    resumes (or None), --journal, the sites that run settled, the progress line's label, the workers' name."""

    header: RunRecord
    directory: str
    earlier: Journal | None
    journal_path: str | None
    before: dict[str, str]
    label: str
    thread_name: str


def send_sites(app: AppContext, api: Any, planned: Sequence[Any], actions: Callable[[list[Any]], list[Any]],
               sending: Sending, *, concurrency: int, output: str | None, started: float, plan_seconds: float,
               after: Callable[[list[Any], dict[str, tuple[str, str, Any]]], None] | None = None,
               failed_hint: str = "") -> int:
    """Send the sites of a plan (`planned`: each with site_id, site_name and status) on the one executor:
    those the plan changes, and those an earlier run was sending when it stopped (it may have changed them:
    the worker finds out before anything is sent again); `actions(work)` makes their actions. Journalled
    (a new run, or the earlier one resumed), with the progress line, the sites skipped or failed listed,
    `after(work, outcomes)` (a report), the run's last line; the exit code (0, 10), or the error of a run
    stopped (interrupted, unreachable, the journal)."""
    import sys

    from wfctl.plans.siteaction import SiteOutcome
    from wfctl.render.progress import Progress
    from wfctl.runs import journal as journals
    from wfctl.runs.engine import Executor, RunContext, Stopped
    from wfctl.runs.journal import DONE, SENDING

    before = sending.before
    work = [site for site in planned
            if site.status == "change" or before.get(site.site_id) == SENDING]
    counts: Counter[str] = Counter()
    for status in before.values():
        if status in DONE:
            counts[status if status in COUNTS else "updated"] += 1
    in_work = {site.site_id for site in work}
    for site in planned:
        if site.site_id not in in_work:
            counts[site.status] += 1
    if sending.earlier is not None:
        log = sending.earlier
        app.io.note(f"resuming run {log.run_id}: {sum(1 for s in before.values() if s in DONE)} sites were done "
                    "before it stopped")
    else:
        if not work:
            summary_line(app, "", counts, started, plan_seconds, output)
            return 0
        run = journals.new_run_id()
        try:
            log = journals.Journal(sending.journal_path or journals.journal_path(sending.directory, run),
                                   sending.header.started_now(run))
        except journals.JournalError as exc:
            raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
    progress = Progress(sending.label, terminal=app.io.stderr_is_tty, unit="sites")
    already = sum(counts.values())
    progress.start(already + len(work), already)
    outcomes: dict[str, tuple[str, str, Any]] = {}  # site id -> (status, error, the SDK's outcome | None)

    def finished(site: SiteOutcome) -> None:
        counts[site.status] += 1
        outcomes[site.site.site_id] = (site.status, site.error, site.outcome)
        progress.advance("failed" if site.status == "failed" else "updated")

    stopped: Stopped | None = None
    try:
        Executor(RunContext(api, log, progress=finished, lean=True), concurrency,
                 name=sending.thread_name).run(actions(work))
    except Stopped as stop:
        stopped = stop
    finally:  # a run stopped leaves no stale count and ETA: its error says how far it got
        progress.stop(clear=stopped is not None or sys.exc_info()[0] is not None)
    list_outcomes(app.io.write_err, outcomes, {site.site_id: site.site_name for site in work})
    if after is not None:
        after(work, outcomes)
    complete = stopped is None and not counts["failed"]
    log.finish({k: counts[k] for k in COUNTS} if complete else None)
    if stopped is not None:
        done = f"{sum(counts.values())} of {len(planned) + len([s for s in before.values() if s in DONE])} sites done"
        from wfctl.drivers.bulkrun import stopped_error

        raise stopped_error(stopped.cause, stopped.message, done)
    summary_line(app, log.run_id, counts, started, plan_seconds, output)
    if counts["failed"]:
        app.io.write_err(f"{counts['failed']} of {len(work)} sites failed{failed_hint}; run the same command "
                         "again to retry them\n")
        return int(ExitCode.PARTIAL)
    return 0


@dataclass
class Resumable:
    """The journal side of a run about to start: the profile's runs folder, the earlier run of the same
    change that stopped before its end (its path, its journal reopened for a real run), the sites it settled."""

    directory: str
    earlier_path: str | None
    earlier: Journal | None
    before: dict[str, str]

    def sending(self, header: RunRecord, journal_path: str | None, label: str, thread_name: str) -> Sending:
        return Sending(header, self.directory, self.earlier, journal_path, self.before, label, thread_name)

    def note_dry_run(self, app: AppContext) -> None:
        """A dry run of a change an earlier run stopped in: say that the plan leaves out what it did."""
        from wfctl.runs import journal as journals

        if self.earlier_path is not None:
            earlier_id = (journals.header_of(self.earlier_path) or {}).get("run")
            app.io.note(f"run {earlier_id} of this change stopped before its end: this plan leaves out the "
                        f"{len(self.before)} sites it did (run the command without --dry-run to resume it)")


@contextlib.contextmanager
def journalled(app: AppContext, header: RunRecord, journal_path: str | None, *, dry_run: bool,
               what: str) -> Iterator[Resumable]:
    """The lock on `header`'s change (a real run: another run of `what` in progress is an error), and the
    earlier run of it that stopped before its end, resumed; both let go at the end."""
    from wfctl.runs import journal as journals

    directory = journals.runs_dir(app.settings.profile)
    lock: Any = None
    earlier: Journal | None = None
    try:
        if not dry_run:
            try:
                lock = journals.ImportLock(directory, header).__enter__()
            except journals.RunLocked as exc:
                raise CliError(f"another run of this {what} is in progress (pid {exc.pid or 'unknown'})",
                               ExitCode.CONFLICT) from None
        earlier_path = unfinished(directory, header, journal_path)
        before = settled(earlier_path)
        if earlier_path is not None and not dry_run:
            try:
                earlier = journals.Journal.resume(earlier_path)
            except journals.JournalError as exc:
                raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
        yield Resumable(directory, earlier_path, earlier, before)
    finally:
        if earlier is not None:
            earlier.finish(None)
        if lock is not None:
            lock.__exit__(None, None, None)
