"""wfctl rates list and wfctl rates summary."""

from __future__ import annotations

import typer

from wfctl.commands.options import Output, app_context, fmt
from wfctl.commands.rates import options as opt
from wfctl.commands.verbs import verb

LIST_COLUMNS = ["clientId", "client", "siteId", "site", "skill", "hourlyRate"]
#: A table on a terminal: what a person reads (the ids: -o wide, csv or json).
TERMINAL_COLUMNS = ["client", "site", "skill", "hourlyRate"]
SUMMARY_COLUMNS = ["skill", "sites", "minimum", "median", "maximum"]


@verb("list")
def list_rates(ctx: typer.Context, client: opt.Client = None, branch: opt.Branch = None,
               all_clients: opt.AllClients = False, site: opt.Site = None, skill: opt.SkillFilter = None,
               concurrency: opt.ReadConcurrency = 16, output: Output = None) -> None:
    """List the hourly rates of sites: one row per site and skill.

    Columns: clientId, client, siteId, site, skill, hourlyRate. Each site's full record is read (site
    lists carry no rates), 16 at once, in the service's order.

    Examples:
      $ wfctl rates list --client "Pennine Foods Ltd"
      $ wfctl rates list --all-clients --skill "forklift driver" -o csv > forklift.csv
      $ wfctl rates list --branch "Leeds Riverside" -o json
    """
    from wfctl.api import rates
    from wfctl.commands.rates.common import check_scope, read_scope, shown_amounts

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    out = app_.output(fmt(output))
    sites = read_scope(app_, client, branch, all_clients, site, concurrency)
    rows = list(rates.rate_rows(sites, skill or []))
    terminal = out.format == "table" and app_.io.stdout_is_tty
    out.records(shown_amounts(rows, out.format, ("hourlyRate",)), columns=TERMINAL_COLUMNS if terminal else LIST_COLUMNS)
    if terminal and rows:
        app_.io.note("ids of clients and sites: -o wide, csv or json")


@verb("summary")
def summary(ctx: typer.Context, client: opt.Client = None, branch: opt.Branch = None,
            all_clients: opt.AllClients = False, site: opt.Site = None, skill: opt.SkillFilter = None,
            concurrency: opt.ReadConcurrency = 16, output: Output = None) -> None:
    """Per skill: how many sites have a rate for it, and the minimum, median and maximum rate.

    Skills are grouped trimmed and case-insensitively, as the service compares them, and shown as most
    sites spell them.

    Examples:
      $ wfctl rates summary --all-clients
      $ wfctl rates summary --branch "Manchester Central" --skill "Picker Packer"
      $ wfctl rates summary --all-clients -o json
    """
    from wfctl.api import rates
    from wfctl.commands.rates.common import check_scope, read_scope, shown_amounts

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    out = app_.output(fmt(output))
    sites = read_scope(app_, client, branch, all_clients, site, concurrency)
    rows = rates.summary(rates.rate_rows(sites, skill or []))
    out.records(shown_amounts(rows, out.format, ("minimum", "median", "maximum")), columns=SUMMARY_COLUMNS)
