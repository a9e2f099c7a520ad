"""`wfctl rates set`: plan, check, then a journalled bulk run like an import's.

The run is a plan of actions (`wfctl.bulk.rateset`: one a site) on the import's executor
(`wfctl.bulk.engine`), and reuses the import's other pieces: its journal (`wfctl.bulk.journal`: one
run id, a lock on the same change, resumable after Ctrl-C or kill -9, `wfctl imports list` lists it),
its progress line, its exit codes (0, 10, 130, 7, 11), and undo (`wfctl.bulk.undo`): each site is
journalled as an `updated` row of kind site whose changes are `{"rates": [old, new]}`, which
`wfctl imports undo <run-id>` takes back entry by entry. What makes two runs the same change (the
resume and lock key): the options of the change and of the scope, the service and the profile.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.safetext import one_line
from wfctl.streams import IO

if TYPE_CHECKING:
    from wfctl.api.rates import Change, Plan, SitePlan
    from wfctl.bulk.journal import Journal
    from wfctl.context import AppContext

COUNTS = ("updated", "unchanged", "skipped", "failed")
#: Listed on stderr one by one, at most this many (the report has every one).
SHOWN = 50
PLAN_COLUMNS = ["client", "site", "skill", "old", "new", "change"]
REPORT_COLUMNS = ["clientId", "client", "siteId", "site", "skill", "old", "new", "status", "error"]


@dataclass
class Scope:
    client: list[str] = field(default_factory=list)
    branch: list[str] = field(default_factory=list)
    all_clients: bool = False
    site: list[str] = field(default_factory=list)

    def describe(self) -> str:
        import shlex

        if self.all_clients:
            return "--all-clients"
        return " ".join([*(f"--client {shlex.quote(c)}" for c in self.client),
                         *(f"--branch {shlex.quote(b)}" for b in self.branch),
                         *(f"--site {shlex.quote(s)}" for s in self.site)])


def run_set(app: AppContext, change: Change, scope: Scope, *, dry_run: bool, concurrency: int,
            report: str | None, journal_path: str | None, output: str | None,
            lands: dict[str, Any] | None = None) -> int:
    """Plan `change` over `scope`, then show the plan (`dry_run`) or send it; `lands`: the pay week an
    --effective change lands in (wfctl.commands.rates.effective), named in the plan and the run."""
    from wfctl.api.rates import RateError
    from wfctl.bulk import journal as journals
    from wfctl.bulk.files import check_writable
    from wfctl.commands.rates.common import read_scope

    started = time.monotonic()
    if report:
        check_writable(report)  # before anything is read or sent
    api = app.client
    header = _header(app, change, scope, lands)
    directory = journals.runs_dir(app.settings.profile)
    lock: Any = None
    earlier: Journal | None = None
    try:
        if not dry_run:
            try:
                lock = journals.ImportLock(directory, header).__enter__()
            except journals.RunLocked as exc:
                raise CliError(f"another run of this rate change is in progress (pid {exc.pid or 'unknown'})") from None
        earlier_path = _unfinished(directory, header, journal_path)
        done_before = _settled(earlier_path)
        if earlier_path is not None and not dry_run:
            try:
                earlier = journals.Journal.resume(earlier_path)
            except journals.JournalError as exc:
                raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
        sites = read_scope(app, scope.client, scope.branch, scope.all_clients, scope.site, 16,
                           "reading sites" if not dry_run else "planning",
                           output_to_terminal=app.io.stdout_is_tty and (dry_run or app.output_format(output) != "table"))
        try:
            plan = _plan(sites, change, done_before)
        except RateError as exc:
            raise CliError(f"{exc}; nothing was sent") from None
        too_large = _over_limit(plan, listed=not dry_run)
        if too_large is not None and not dry_run:
            raise too_large
        plan_seconds = time.monotonic() - started
        if dry_run:
            if earlier_path is not None:
                earlier_id = (journals.header_of(earlier_path) or {}).get("run")
                app.io.note(f"run {earlier_id} of this change stopped before its end: this plan leaves out the "
                            f"{len(done_before)} sites it did (run the command without --dry-run to resume it)")
            _show_plan(app, plan, output, done_before, lands)
            if too_large is not None:  # the plan is shown, its changes over the limit marked; a run would stop
                raise too_large
            return 0
        if lands is not None:
            app.io.write_err(f"this change {lands['statement']} (effective {lands['effective']})\n")
        return _send(app, api, plan, change, header, directory, earlier, journal_path, done_before,
                     concurrency, report, output, started, plan_seconds)
    finally:
        if earlier is not None:
            earlier.finish(None)
        if lock is not None:
            lock.__exit__(None, None, None)


# -- planning --------------------------------------------------------------------------------------

def _header(app: AppContext, change: Change, scope: Scope, lands: dict[str, Any] | None = None) -> dict[str, Any]:
    what = f"{change.describe()} {scope.describe()}" + (f" --effective {lands['effective']}" if lands else "")
    return {"kind": "site", "file": "rates:" + hashlib.sha256(what.encode()).hexdigest()[:40],
            "path": f"rates set {what}", "target": str(getattr(app.client, "base_url", "") or ""),
            "profile": app.settings.profile, "parent": "", "onExisting": "update", "undo": None,
            "command": "rates set"}


def _unfinished(directory: str, header: dict[str, Any], journal_path: str | None) -> str | None:
    """The journal of an earlier run of the same change that stopped before its end."""
    import os

    from wfctl.bulk import journal as journals

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


def _settled(path: str | None) -> dict[str, tuple[int, str]]:
    """site id -> (row, status) of each site the earlier run (its journal `path`) journalled."""
    from wfctl.bulk import journal as journals

    if path is None:
        return {}
    try:
        _, entries, _ = journals.read(path)
    except journals.JournalError as exc:
        raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
    return {entry.id: (entry.row, entry.status) for entry in entries.values() if entry.id}


def _plan(sites: Any, change: Change, before: dict[str, tuple[int, str]]) -> Plan:
    from wfctl.api import rates
    from wfctl.bulk.journal import DONE

    return rates.plan_change(sites, change, done=lambda site_id: site_id in before and before[site_id][1] in DONE)


def _over_limit(plan: Plan, *, listed: bool) -> CliError | None:
    """The error of a plan with changes larger than --max-change (None when there are none); `listed`: each
    such change is written on stderr first (a dry run marks them in its plan instead)."""
    over = plan.over_limit()
    if not over:
        return None
    limit = plan.change.max_change
    for site, c, share in over[:SHOWN] if listed else ():
        shown = "from 0" if share.is_infinite() else f"{share:.1f}%"
        IO.write_err(f"too large: {one_line(site.client_name)} / {one_line(site.site_name)} ({site.site_id}): "
                     f"{one_line(c.skill)} {c.old:.2f} -> {c.new:.2f} ({shown})\n")
    if listed and len(over) > SHOWN:
        IO.write_err(f"... and {len(over) - SHOWN} more\n")
    import math

    finite = [share for _, _, share in over if share.is_finite()]
    needed = f"--max-change {math.ceil(max(finite))}%" if len(finite) == len(over) else "a larger --max-change"
    where = "marked in the plan" if not listed else "check the plan with --dry-run"
    return CliError(f"{len(over)} change{'s' if len(over) != 1 else ''} would move a rate by more than "
                    f"{limit:g}% of its old value; nothing was sent ({where}; {needed} allows them on purpose)")


def _show_plan(app: AppContext, plan: Plan, output: str | None, done_before: dict[str, Any],
               lands: dict[str, Any] | None = None) -> None:
    fmt = app.output_format(output)
    over = {(site.site_id, c.skill): share for site, c, share in plan.over_limit()}
    rows = [{**row, "overLimit": True} if (row["siteId"], row["skill"]) in over else row
            for site in plan.to_change for row in site.rows()]
    summary = _plan_summary(plan)
    if lands is not None:
        summary["effective"] = lands
    out = app.output(fmt)
    if out.shaped or (out.structured and fmt != "jsonl"):  # the document (json, yaml), which a query reads whole
        out.value({"rows": rows, "summary": summary})
        return
    if fmt == "jsonl":
        out.run_rows(rows)
        out.line({"summary": summary})
        return
    from wfctl.commands.rates.common import shown_amounts

    rows = shown_amounts(rows, fmt, ("old", "new", "change"), ("change",))
    if lands is not None and fmt != "csv":
        app.io.write(f"{lands['statement']} (effective {lands['effective']})\n")
    elif lands is not None:
        app.io.write_err(f"{lands['statement']} (effective {lands['effective']})\n")
    if fmt == "csv":
        out.records(rows, columns=["clientId", "client", "siteId", "site", "skill", "old", "new", "change"])
        return
    if rows:
        if over:  # a change over --max-change: marked where a person reads the plan
            rows = [{**row, "limit": f"over {plan.change.max_change:g}%" if row.get("overLimit") else ""} for row in rows]
        columns = PLAN_COLUMNS + (["limit"] if over else [])
        clients = {row["client"] for row in rows}
        if app.io.stdout_is_tty and len(clients) == 1:  # one client: said once, its column left for the names
            app.io.write(f"client {one_line(clients.pop())}\n")  # (at 80 columns they wrapped onto a 2nd line)
            columns = [name for name in columns if name != "client"]
        out.records(rows, columns=columns)
    else:
        app.io.note("no rate would change")
    app.io.write(_count_lines(summary))


def _plan_summary(plan: Plan) -> dict[str, Any]:
    counts = plan.counts()
    return {"sites": {"toChange": counts["change"], "unchanged": counts["unchanged"], "skipped": counts["skipped"]},
            "skills": plan.sums(), "change": plan.change.describe(), "dryRun": True}


def _count_lines(summary: dict[str, Any]) -> str:
    sites = summary["sites"]
    lines = [("sites to change", str(sites["toChange"])), ("unchanged", str(sites["unchanged"])),
             ("skipped (no rate for the skill)", str(sites["skipped"]))]
    for skill, sums in summary["skills"].items():
        added = f", {sums['added']} added" if sums["added"] else ""
        total = sums["sum"] or 0.0
        lines.append((one_line(skill), f"{sums['changed']} changed{added}, sum {total:+.2f}"))
    width = max(len(label) for label, _ in lines)
    return "".join(f"{label.ljust(width)}  {value}\n" for label, value in lines)


# -- sending ---------------------------------------------------------------------------------------

def _send(app: AppContext, api: Any, plan: Plan, change: Change, header: dict[str, Any], directory: str,
          earlier: Journal | None, journal_path: str | None, before: dict[str, tuple[int, str]],
          concurrency: int, report: str | None, output: str | None, started: float, plan_seconds: float) -> int:
    import secrets

    from wfctl.bulk import journal as journals
    from wfctl.bulk.engine import Executor, RunContext, Stopped
    from wfctl.bulk.journal import DONE, SENDING
    from wfctl.bulk.rateset import SiteOutcome, rate_plan
    from wfctl.progress import Progress

    # the sites to send: those the plan changes, and those an earlier run was sending when it stopped
    # (it may have changed them: the worker finds out before anything is sent again)
    work = [site for site in plan.sites
            if site.status == "change" or before.get(site.site_id, (0, ""))[1] == SENDING]
    counts: Counter[str] = Counter()
    for _, status in before.values():
        if status in DONE:
            counts[status if status in COUNTS else "updated"] += 1
    sending = {site.site_id for site in work}
    for site in plan.sites:
        if site.site_id not in sending:
            counts[site.status] += 1
    if earlier is not None:
        log = earlier
        app.io.note(f"resuming run {log.run_id}: {sum(1 for _, s in before.values() if s in DONE)} sites were done "
                    "before it stopped")
    else:
        if not work:
            _summary_line(app, "", counts, started, plan_seconds, output)
            return 0
        run = journals.new_run_id()
        try:
            log = journals.Journal(journal_path or journals.journal_path(directory, run),
                                   {**header, "run": run, "nonce": secrets.token_hex(8), "started": _now()})
        except journals.JournalError as exc:
            raise CliError(f"{exc}; nothing was sent", ExitCode.LOCAL_FAULT) from None
    progress = Progress("changing rates", terminal=app.io.stderr_is_tty, unit="sites")
    already = sum(counts.values())
    progress.start(already + len(work), already)
    outcomes: dict[str, tuple[str, str, Any]] = {}  # site id -> (status, error, Outcome | None)

    def finished(site: SiteOutcome) -> None:
        counts[site.status] += 1
        outcomes[site.site.site_id] = (site.status, site.error, site.outcome)
        progress.advance("failed" if site.status == "failed" else "updated")

    stopped: Stopped | None = None
    try:
        Executor(RunContext(api, log, progress=finished, lean=True), concurrency,
                 name="wfctl-rates-set").run(rate_plan(work, change, before))
    except Stopped as stop:
        stopped = stop
    finally:  # a run stopped leaves no stale rate and ETA: its error says how far it got
        progress.stop(clear=stopped is not None or sys.exc_info()[0] is not None)
    _list_outcomes(outcomes, {site.site_id: site.site_name for site in work})
    if report:
        _write_report(report, work, outcomes)
    complete = stopped is None and not counts["failed"]
    log.finish({k: counts[k] for k in COUNTS} if complete else None)
    if stopped is not None:
        done = f"{sum(counts.values())} of {len(plan.sites) + len([s for s in before.values() if s[1] in DONE])} sites done"
        from wfctl.commands.bulkrun import stopped_error

        raise stopped_error(stopped.cause, stopped.message, done)
    _summary_line(app, log.run_id, counts, started, plan_seconds, output)
    if counts["failed"]:
        app.io.write_err(f"{counts['failed']} of {len(work)} sites failed"
                         + (f"; see {report}" if report else "; use --report FILE for each site's error")
                         + "; run the same command again to retry them\n")
        return int(ExitCode.PARTIAL)
    return 0


def _list_outcomes(outcomes: dict[str, tuple[str, str, Any]], names: dict[str, str]) -> None:
    """Each site skipped for a reason (changed since the plan, deleted) and each failed, on stderr."""
    shown = [(sid, status, error) for sid, (status, error, _) in outcomes.items() if error]
    for site_id, status, error in shown[:SHOWN]:
        where = f"site {one_line(names.get(site_id, ''))} ({one_line(site_id)})"
        IO.write_err(f"{where}: {one_line(error)}\n" if status != "failed" else f"failed: {where}: {one_line(error)}\n")
    if len(shown) > SHOWN:
        IO.write_err(f"... and {len(shown) - SHOWN} more (--report FILE lists every one)\n")


def _summary_line(app: AppContext, run_id: str, counts: Counter[str], started: float, plan_seconds: float,
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


def _write_report(path: str, work: list[SitePlan], outcomes: dict[str, tuple[str, str, Any]]) -> None:
    """One line per rate of each site the run looked at: planned old and new, status and error."""
    import csv

    from wfctl.bulk.files import atomic_text_file
    from wfctl.csvformat import neutralise

    with atomic_text_file(path, bom=True) as f:
        writer = csv.writer(f)
        writer.writerow(REPORT_COLUMNS)
        for site in work:
            status, error, outcome = outcomes.get(site.site_id, ("not sent", "", None))
            changes = outcome.changes if outcome is not None and outcome.changes else site.changes
            for c in changes or [None]:
                writer.writerow([neutralise(str(x)) for x in (
                    site.client_id, site.client_name, site.site_id, site.site_name,
                    c.skill if c else "", "" if c is None or c.old is None else c.old, c.new if c else "",
                    status, error)])


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
