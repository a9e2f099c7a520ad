"""`wfctl bans add|remove`: plan, show or ask, then a journalled run on the one executor.

Each site whose banned workers change is one action (`wfctl.plans.siteaction`), journalled as an `updated` row
of kind site whose changes are `{"bannedWorkers": [old, new]}`: the list as read just before the write,
and that list with the run's own ids added or taken off. So `wfctl imports list|show|undo` know the run
as every other, and an undo takes back only the ids the run added or removed. What makes two runs the
same change (the resume and lock key): the verb, the ids and the scope, the service and the profile.
`--note` is kept in the journal's header only.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from wfctl.drivers.siterun import confirmed, journalled
from wfctl.drivers.sitescope import Scope, read_scope
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.api.domain.bans import BanPlan
    from wfctl.context import AppContext
    from wfctl.runs.session import RunRecord

PLAN_COLUMNS = ["client", "site", "worker", "change"]
CSV_COLUMNS = ["clientId", "client", "siteId", "site", "worker", "change"]


def checked_workers(workers: list[str]) -> list[str]:
    """The ids as the service keeps them (trimmed, each once); a bad one is a one-line error, exit 2."""
    from wfctl.api.domain.bans import BanError, worker_id

    try:
        return list(dict.fromkeys(worker_id(worker) for worker in workers))
    except BanError as exc:
        raise CliError(str(exc)) from None


def run_bans(app: AppContext, verb: str, workers: list[str], scope: Scope, *, dry_run: bool, yes: bool,
             concurrency: int, journal_path: str | None, note: str | None, output: str | None) -> int:
    """Plan `verb` (add or remove) of `workers` over `scope`, then show the plan (`dry_run`) or send it."""
    from wfctl.api.domain import bans
    from wfctl.drivers.siterun import send_sites
    from wfctl.plans.siteaction import ban_plan
    from wfctl.runs.journal import DONE

    started = time.monotonic()
    add, remove = (workers, []) if verb == "add" else ([], workers)
    header = _header(app, verb, workers, scope, note)
    with journalled(app, header, journal_path, dry_run=dry_run, what=f"bans {verb}") as resumable:
        before = resumable.before
        sites = read_scope(app, scope.client, scope.branch, scope.all_clients, scope.site, 16,
                           "planning" if dry_run else "reading sites",
                           output_to_terminal=app.io.stdout_is_tty and (dry_run or app.output_format(output) != "table"))
        try:
            plan = bans.plan_bans(sites, add=add, remove=remove,
                                  done=lambda site_id: before.get(site_id) in DONE)
        except bans.BanError as exc:
            raise CliError(f"{exc}; nothing was sent") from None
        plan_seconds = time.monotonic() - started
        if dry_run:
            resumable.note_dry_run(app)
            _show_plan(app, plan, output)
            return 0
        go, asking = _confirmed(app, verb, plan, yes=yes)
        if not go:
            app.io.write_err("Nothing was sent.\n")
            return int(ExitCode.USAGE)
        return send_sites(app, app.client, plan.sites, lambda work: ban_plan(work, add, remove),
                          resumable.sending(header, journal_path, "banning" if verb == "add" else "lifting bans",
                                            f"wfctl-bans-{verb}"),
                          concurrency=concurrency, output=output, started=started + asking,
                          plan_seconds=plan_seconds)


def _header(app: AppContext, verb: str, workers: list[str], scope: Scope, note: str | None) -> RunRecord:
    import shlex

    from wfctl.runs.session import RunRecord

    what = f"{' '.join(shlex.quote(w) for w in workers)} {scope.describe()}"
    return RunRecord.of_command(f"bans {verb}", what, kind="site", target=str(getattr(app.client, "base_url", "") or ""),
                                profile=app.settings.profile, note=note)


def _confirmed(app: AppContext, verb: str, plan: BanPlan, *, yes: bool) -> tuple[bool, float]:
    """A run changing more than ASK_OVER sites asks on a terminal first (wfctl.drivers.siterun.confirmed)."""
    changing = len(plan.to_change)
    asked = plan.add or plan.remove
    workers = asked[0] if len(asked) == 1 else f"{len(asked)} workers"
    counts = (f"bans {verb}: {changing} of {len(plan.sites)} sites to change "
              f"({len(plan.sites) - changing} unchanged)\n")
    question = (f"Ban {one_line(workers)} at {changing} sites? [y/N] " if verb == "add"
                else f"Lift the ban on {one_line(workers)} at {changing} sites? [y/N] ")
    return confirmed(app, changing, counts, question, yes=yes)


def _show_plan(app: AppContext, plan: BanPlan, output: str | None) -> None:
    fmt = app.output_format(output)
    rows = plan.rows()
    summary = {"sites": {"toChange": len(plan.to_change), "unchanged": len(plan.sites) - len(plan.to_change)},
               "add": list(plan.add), "remove": list(plan.remove), "dryRun": True}
    out = app.output(fmt)
    if out.plan_document(rows, summary):
        return
    if fmt == "csv":
        out.records(rows, columns=CSV_COLUMNS)
        return
    if rows:
        out.records(rows, columns=PLAN_COLUMNS if fmt == "table" else CSV_COLUMNS)
    else:
        app.io.note("no site in scope")
    lines = [("sites to change", len(plan.to_change)), ("unchanged", len(plan.sites) - len(plan.to_change))]
    width = max(len(label) for label, _ in lines)
    app.io.write("".join(f"{label.ljust(width)}  {count}\n" for label, count in lines))
