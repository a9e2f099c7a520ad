"""wfctl rates set."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_skills
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OUTPUT_PANEL, OutputOptions, takes_output
from wfctl.commands.rates import options as opt
from wfctl.commands.verbs import verb

Skill = Annotated[list[str], typer.Option(
    "--skill", help="The skill whose rate changes, matched trimmed and case-insensitively (repeatable).",
    metavar="<name>", show_default=False, autocompletion=complete_skills)]
To = Annotated[str | None, typer.Option("--to", help="Set the rate to this amount.", metavar="<amount>",
                                        rich_help_panel=opt.CHANGE_PANEL)]
By = Annotated[str | None, typer.Option(
    "--by", help="Change the rate by a percentage (+3%, -2%) or an amount (+0.25).", metavar="<change>",
    rich_help_panel=opt.CHANGE_PANEL)]
Floor = Annotated[str | None, typer.Option(
    "--floor", help="Raise every rate below this amount to it; leave the others. nlw[:21+|18-20|16-17|apprentice] "
    "is the statutory rate in force on the --effective date (today without it): `wfctl help rates` has the table.",
    metavar="<amount>", rich_help_panel=opt.CHANGE_PANEL)]
Ceiling = Annotated[str | None, typer.Option(
    "--ceiling", help="Lower every rate above this amount to it; leave the others.", metavar="<amount>",
    rich_help_panel=opt.CHANGE_PANEL)]
RoundTo = Annotated[str | None, typer.Option(
    "--round-to", help="Round what --by computes to the nearest step, halves up (default 0.01).",
    metavar="<step>", rich_help_panel=opt.CHANGE_PANEL)]
AddMissing = Annotated[bool, typer.Option(
    "--add-missing", help="Also add the skill at the new rate to sites in scope that lack it (with --to or "
    "--floor).", rich_help_panel=opt.CHANGE_PANEL)]
MaxChange = Annotated[str | None, typer.Option(
    "--max-change", help="Stop before sending when a rate would move by more than this share of its old "
    "value (default 25%).", metavar="<percent>", rich_help_panel=opt.CHANGE_PANEL)]
Effective = Annotated[str | None, typer.Option(
    "--effective", help="The date the change is effective from: it lands in the first pay week starting on or "
    "after it (`wfctl calendar effective DATE`), and is not sent before that week starts.", metavar="<YYYY-MM-DD>",
    rich_help_panel=opt.RUN_PANEL, show_default=False)]
Now = Annotated[bool, typer.Option(
    "--now", help="With --effective: send now, before the week the change lands in has started.",
    rich_help_panel=opt.RUN_PANEL)]
DryRun = Annotated[bool, typer.Option(
    "--dry-run", help="Print the plan (each site and skill old -> new, then the counts and the sum of the "
    "changes per skill); send nothing.", rich_help_panel=opt.RUN_PANEL)]
Concurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Sites changed at once (each is read, "
                                          "written and read back: one request in flight per site).",
                                          rich_help_panel=opt.RUN_PANEL, min=1, max=128)]
Report = Annotated[str | None, typer.Option(
    "--report", help="Write each site and skill with its old and new rate, status and error to this CSV file.",
    rich_help_panel=OUTPUT_PANEL, metavar="FILE")]


@verb("set")
@takes_output()
def set_rates(
    ctx: typer.Context,
    skill: Skill,
    to: To = None,
    by: By = None,
    floor: Floor = None,
    ceiling: Ceiling = None,
    round_to: RoundTo = None,
    add_missing: AddMissing = False,
    max_change: MaxChange = None,
    client: opt.Client = None,
    branch: opt.Branch = None,
    all_clients: opt.AllClients = False,
    site: opt.Site = None,
    effective: Effective = None,
    now: Now = False,
    dry_run: DryRun = False,
    yes: opt.Yes = False,
    concurrency: Concurrency = 64,
    report: Report = None,
    journal: bulk.Journal = None,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Change the hourly rate of skills across many sites at once.

    Every site in scope is read and the plan computed and checked before anything is sent: a skill
    no site has, a rate below 0, or a change larger than --max-change stops the run (exit 2). Each
    site is read again just before its update and its change recomputed: a rate someone changed
    since the plan is reported (`changed since the plan: skipped`) and left, unless a --floor or
    --ceiling still applies to it. Only the rates in question change; other skills and fields stay.

    A run is journalled like an import: `run <id>:` ends it, a killed run resumes when the same
    command runs again (no site is changed twice), exit 10 when some sites failed, and
    `wfctl imports undo <run-id>` puts every rate back. On a terminal a run changing more than 10
    sites shows the plan's counts and asks first (--yes does not). The how-to: docs/rates.md.

    --effective DATE names the pay week the change lands in (the first starting on or after DATE,
    in the agency's calendar) and refuses to send before that week starts (exit 2, saying when it
    may run; --now sends anyway): an April uplift sent on 1 April would charge clients the new rate
    for days of the week before. --floor nlw is the statutory rate in force on that date. The
    how-to for payroll and rates people: `wfctl help payroll`.

    Examples:
      $ wfctl rates set --all-clients --skill "Picker Packer" --floor 12.21 --dry-run
      $ wfctl rates set --client "Pennine Foods Ltd" --skill "Forklift Driver" --by 3% --round-to 0.05
      $ wfctl rates set --branch "Leeds Riverside" --skill Cleaner --to 12.60 --add-missing --dry-run -o json
      $ wfctl rates set --all-clients --skill "Registered Nurse" --by +0.50 --report nurse-uplift.csv
      $ wfctl rates set --all-clients --skill "Picker Packer" --floor nlw --effective 2026-04-01 --dry-run
    """
    from wfctl.api.domain.rates import Change, RateError
    from wfctl.commands.rates.effective import effective_change
    from wfctl.drivers.ratescommon import check_scope
    from wfctl.drivers.ratesrun import Scope, run_set
    from wfctl.errors import CliError

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    lands, floor = effective_change(app_, effective, floor, now=now, dry_run=dry_run)
    try:
        change = Change.build(skill, to=to, by=by, floor=floor, ceiling=ceiling, round_to=round_to,
                              add_missing=add_missing, max_change=max_change)
    except RateError as exc:
        raise CliError(str(exc)) from None
    scope = Scope(list(client or []), list(branch or []), all_clients, list(site or []))
    return run_set(app_, change, scope, dry_run=dry_run, concurrency=concurrency, report=report,
                   journal_path=journal, output=output.format, lands=lands, yes=yes)
