"""wfctl audit: a read-only check of the agency's sites (the judgement: wfctl.payroll.audit)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.cmdline.completion_cache import complete_audit_checks
from wfctl.commands import scopeoptions as opt
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output

if TYPE_CHECKING:
    from wfctl.payroll.audit import Audit

CHECKS_PANEL = "Checks"
Floor = Annotated[str | None, typer.Option(
    "--floor", help="Run under-floor: a rate under this amount is a finding. nlw[:21+|18-20|16-17|apprentice] "
    "is the statutory rate in force on the --on date (`wfctl help rates` has the table).", metavar="<amount>",
    rich_help_panel=CHECKS_PANEL)]
ChargeFloor = Annotated[str | None, typer.Option(
    "--charge-floor", help="Run under-charge-floor: a rate under the charge floor built from these parts is a "
    "finding: pay (an amount or nlw) and any of holiday, ni, pension, levy (percentages of pay and holiday pay) "
    "and overhead (an amount an hour). `wfctl help payroll` has the formula.", metavar="<parts>",
    rich_help_panel=CHECKS_PANEL)]
On = Annotated[str | None, typer.Option(
    "--on", help="The date whose statutory rate nlw is (default today).", metavar="<YYYY-MM-DD>",
    rich_help_panel=CHECKS_PANEL, show_default=False)]
Only = Annotated[list[str] | None, typer.Option(
    "--only", help="Run only this check (repeatable).", metavar="<check>", rich_help_panel=CHECKS_PANEL,
    autocompletion=complete_audit_checks)]
Skip = Annotated[list[str] | None, typer.Option(
    "--skip", help="Leave out this check (repeatable).", metavar="<check>", rich_help_panel=CHECKS_PANEL,
    autocompletion=complete_audit_checks)]


@takes_output()
def audit(ctx: typer.Context, client: opt.Client = None, branch: opt.Branch = None,
          all_clients: opt.AllClients = False, site: opt.Site = None, floor: Floor = None,
          charge_floor: ChargeFloor = None, on: On = None, only: Only = None, skip: Skip = None,
          concurrency: opt.ReadConcurrency = 16, output: OutputOptions = AS_CONFIGURED) -> int:
    """Check the agency's sites and say what to mend: rates, floors, records, bans, names.

    Reads every site in scope (its full record, 16 at once) and changes nothing. One finding per
    record and problem: the check, the record (kind, id, name, client, branch), what was found, and what to
    do (the wfctl command that mends it, where there is one). Exits 0 when nothing was found, 1 when
    something was, 2 on bad usage or a failed read (never 1: a CI job reads 1 as findings).

    The checks: no-rates, under-floor (with --floor), under-charge-floor (with --charge-floor),
    skill-spelling (a client's skills that differ only by case or spacing), department-email,
    assessment-document (assessmentRequired, no document), inconsistent-bans (a worker banned at
    some of a client's sites), look-alike-sites (names of different clients' sites that look
    alike). The checks across a client's sites see the sites in scope. `wfctl help payroll` says
    each rule and the charge floor's formula, with worked examples.

    Examples:
      $ wfctl audit --all-clients
      $ wfctl audit --client "Pennine Foods Ltd" --floor nlw --skip look-alike-sites
      $ wfctl audit --branch "Leeds Riverside" --only department-email --only assessment-document
      $ wfctl audit --all-clients --charge-floor 'pay=nlw,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60'
      $ wfctl audit --all-clients --floor nlw:18-20 --on 2026-04-06 -o json
    """
    from concurrent.futures import ThreadPoolExecutor

    from wfctl.api.domain.banreads import client_branches
    from wfctl.drivers.findings import one_means_found
    from wfctl.drivers.sitescope import check_scope, read_scope

    check_scope(client, branch, all_clients, site)
    with one_means_found():
        report = _prepared(floor, charge_floor, on, only or [], skip or [])
        app_ = app_context(ctx)
        out = output.writer(app_)
        if report.charge_floor is not None:
            app_.io.note(f"--charge-floor is {report.charge_floor.describe()}")
        with ThreadPoolExecutor(1, thread_name_prefix="wfctl-branches") as pool:
            branches = pool.submit(client_branches, app_.client)  # each client's branch, beside the sites
            for record, client_name in read_scope(app_, client, branch, all_clients, site, concurrency,
                                                  label="auditing sites"):
                report.add(record, client_name)
            of_client = branches.result()
        findings = [finding.row(of_client.get(finding.clientId, ("", ""))) for finding in report.findings()]
    from wfctl.payroll.audit import FIELDS, NEEDS

    if out.format == "table" and app_.io.stdout_is_tty and not out.shaped:
        app_.io.write(render(findings))
    elif findings or not out.tabular:
        out.records(findings, columns=FIELDS)

    count, sites = len(findings), report.sites
    app_.io.note(f"{count or 'no'} finding{'s' if count != 1 else ''} in {sites} site{'s' if sites != 1 else ''}")
    left = [f"{name} ({NEEDS[name]})" for name in NEEDS if name not in report.checks and name not in (skip or [])]
    if left and not only:
        app_.io.note(f"not checked: {', '.join(left)}")
    return 1 if findings else 0


def _prepared(floor: str | None, charge_floor: str | None, on: str | None, only: list[str], skip: list[str]) -> Audit:
    """The Audit the options ask for, every option checked before the first request (exit 2)."""
    import datetime as dt

    from wfctl.commands.calendar.common import parse_date
    from wfctl.errors import CliError
    from wfctl.payroll import audit, floors

    day = parse_date(on, "--on") if on is not None else dt.date.today()
    try:
        checks = audit.choose(only, skip, floors=[name for name, value in (("--floor", floor),
                                                  ("--charge-floor", charge_floor)) if value is not None])
        return audit.Audit(checks, floors.pay_floor(floor, day) if floor is not None else None,
                           floors.charge_floor(charge_floor, day) if charge_floor is not None else None)
    except (audit.AuditError, floors.FloorError) as exc:
        raise CliError(str(exc)) from None


def render(findings: list[dict[str, Any]], width: int | None = None) -> str:
    """The findings for a person at a terminal: under each check's line, each record (its name and client;
    its id is in the fix), what was found (wrapped to the terminal, names and ids whole) and what to do
    (each command on a line of its own, to copy whole)."""
    import shutil
    import textwrap

    from wfctl.payroll.audit import CHECKS
    from wfctl.text.safetext import one_line

    width = width or shutil.get_terminal_size().columns
    lines: list[str] = []
    check = None
    for finding in findings:
        if finding["check"] != check:
            check = finding["check"]
            count = sum(1 for f in findings if f["check"] == check)
            lines += [*([""] if lines else []), *textwrap.wrap(f"{check} ({count}): {CHECKS[check]}", width,
                                                               subsequent_indent="  ")]
        where = "client" if finding["kind"] == "client" else f"site of {one_line(finding['client'])}"
        lines.append(f"  {one_line(finding['name'])} ({where})")  # its id: in the fix
        lines += textwrap.wrap(one_line(finding["found"]), max(width - 4, 40), initial_indent="    ",
                               subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)
        first, *others = one_line(finding["fix"]).split("; or ")  # each command on a line of its own, to copy
        lines += [f"    fix: {first}", *(f"    or:  {other}" for other in others)]
    return "\n".join(lines) + "\n" if lines else ""
