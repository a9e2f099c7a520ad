"""`wfctl rates set`: plan, check, then a journalled bulk run like an import's.

The run is a plan of actions (`wfctl.plans.siteaction`: one a site) on the import's executor
(`wfctl.runs.engine`), and reuses the import's other pieces: its journal (`wfctl.runs.journal`: one
run id, a lock on the same change, resumable after Ctrl-C or kill -9, `wfctl imports list` lists it),
its progress line, its exit codes (0, 10, 130, 7, 11), and undo (`wfctl.runs.undo`): each site is
journalled as an `updated` row of kind site whose changes are `{"rates": [old, new]}`, which
`wfctl imports undo <run-id>` takes back entry by entry. What makes two runs the same change (the
resume and lock key): the options of the change and of the scope, the service and the profile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wfctl.drivers.siterun import SHOWN, Sending, confirmed, journalled
from wfctl.drivers.sitescope import Scope
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.api.domain.rates import Change, Plan, SitePlan
    from wfctl.context import AppContext
    from wfctl.runs.session import RunRecord

PLAN_COLUMNS = ["client", "site", "skill", "old", "new", "change"]
REPORT_COLUMNS = ["clientId", "client", "siteId", "site", "skill", "old", "new", "status", "error"]


def run_set(app: AppContext, change: Change, scope: Scope, *, dry_run: bool, concurrency: int,
            report: str | None, journal_path: str | None, output: str | None,
            lands: dict[str, Any] | None = None, yes: bool = False) -> int:
    """Plan `change` over `scope`, then show the plan (`dry_run`) or send it; `lands`: the pay week an
    --effective change lands in (wfctl.commands.rates.effective), named in the plan and the run."""
    from wfctl.api.domain.rates import RateError
    from wfctl.drivers.ratescommon import read_scope
    from wfctl.files.files import check_writable

    started = time.monotonic()
    if report:
        check_writable(report)  # before anything is read or sent
    api = app.client
    header = _header(app, change, scope, lands)
    with journalled(app, header, journal_path, dry_run=dry_run, what="rate change") as resumable:
        done_before = resumable.before
        sites = read_scope(app, scope.client, scope.branch, scope.all_clients, scope.site, 16,
                           "reading sites" if not dry_run else "planning",
                           output_to_terminal=app.io.stdout_is_tty and (dry_run or app.output_format(output) != "table"))
        try:
            plan = _plan(sites, change, done_before)
        except RateError as exc:
            raise CliError(f"{exc}; nothing was sent") from None
        too_large = _over_limit(app.io.write_err, plan, listed=not dry_run)
        if too_large is not None and not dry_run:
            raise too_large
        plan_seconds = time.monotonic() - started
        if dry_run:
            resumable.note_dry_run(app)
            _show_plan(app, plan, output, done_before, lands)
            if too_large is not None:  # the plan is shown, its changes over the limit marked; a run would stop
                raise too_large
            return 0
        changing = len(plan.to_change)
        go, asking = confirmed(app, changing, _count_lines(_plan_summary(plan)),
                               f"Change {one_line(change.describe())} at {changing} sites? [y/N] ", yes=yes)
        if not go:
            app.io.write_err("Nothing was sent.\n")
            return int(ExitCode.USAGE)
        if lands is not None:
            app.io.write_err(f"this change {lands['statement']} (effective {lands['effective']})\n")
        return _send(app, api, plan, change, resumable.sending(header, journal_path, "changing rates", "wfctl-rates-set"),
                     concurrency, report, output, started + asking, plan_seconds)


# -- planning --------------------------------------------------------------------------------------

def _header(app: AppContext, change: Change, scope: Scope, lands: dict[str, Any] | None = None) -> RunRecord:
    from wfctl.runs.session import RunRecord

    what = f"{change.describe()} {scope.describe()}" + (f" --effective {lands['effective']}" if lands else "")
    return RunRecord.of_command("rates set", what, kind="site", target=str(getattr(app.client, "base_url", "") or ""),
                                profile=app.settings.profile)


def _plan(sites: Any, change: Change, before: dict[str, str]) -> Plan:
    from wfctl.api.domain import rates
    from wfctl.runs.journal import DONE

    return rates.plan_change(sites, change, done=lambda site_id: before.get(site_id) in DONE)


def _over_limit(err: Callable[[str], None], plan: Plan, *, listed: bool) -> CliError | None:
    """The error of a plan with changes larger than --max-change (None when there are none); `listed`: each
    such change is written on stderr first (a dry run marks them in its plan instead)."""
    over = plan.over_limit()
    if not over:
        return None
    limit = plan.change.max_change
    for site, c, share in over[:SHOWN] if listed else ():
        shown = "from 0" if share.is_infinite() else f"{share:.1f}%"
        err(f"too large: {one_line(site.client_name)} / {one_line(site.site_name)} ({site.site_id}): "
                     f"{one_line(c.skill)} {c.old:.2f} -> {c.new:.2f} ({shown})\n")
    if listed and len(over) > SHOWN:
        err(f"... and {len(over) - SHOWN} more\n")
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
    if out.plan_document(rows, summary):
        return
    from wfctl.drivers.ratescommon import shown_amounts

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
        out.records(rows, "rate change", columns=columns)  # at 80 columns the change gives way, names stay whole
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

def _send(app: AppContext, api: Any, plan: Plan, change: Change, sending: Sending, concurrency: int,
          report: str | None, output: str | None, started: float, plan_seconds: float) -> int:
    from wfctl.drivers.siterun import send_sites
    from wfctl.plans.siteaction import rate_plan

    def reported(work: list[SitePlan], outcomes: dict[str, tuple[str, str, Any]]) -> None:
        if report:
            _write_report(report, work, outcomes)

    return send_sites(app, api, plan.sites, lambda work: rate_plan(work, change), sending,
                      concurrency=concurrency, output=output, started=started, plan_seconds=plan_seconds,
                      after=reported, failed_hint=(f"; see {report}" if report else
                                                   "; use --report FILE for each site's error"))


def _write_report(path: str, work: list[SitePlan], outcomes: dict[str, tuple[str, str, Any]]) -> None:
    """One line per rate of each site the run looked at: planned old and new, status and error."""
    import csv

    from wfctl.files.csvformat import neutralise
    from wfctl.files.files import atomic_text_file

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
