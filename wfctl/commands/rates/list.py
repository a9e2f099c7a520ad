"""wfctl rates list and wfctl rates summary."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.rates import options as opt
from wfctl.commands.verbs import verb

LIST_COLUMNS = ["clientId", "client", "siteId", "site", "skill", "hourlyRate"]
#: A table on a terminal: what a person reads (the ids: -o wide, csv or json).
TERMINAL_COLUMNS = ["client", "site", "skill", "hourlyRate"]
SUMMARY_COLUMNS = ["skill", "sites", "minimum", "median", "maximum"]


@verb("list")
@takes_output()
def list_rates(ctx: typer.Context, client: opt.Client = None, branch: opt.Branch = None,
               all_clients: opt.AllClients = False, site: opt.Site = None, skill: opt.SkillFilter = None,
               concurrency: opt.ReadConcurrency = 16, file: bulk.ExportFile = None,
               output: OutputOptions = AS_CONFIGURED) -> None:
    """List the hourly rates of sites: one row per site and skill.

    Columns: clientId, client, siteId, site, skill, hourlyRate. Each site's full record is read (site
    lists carry no rates), 16 at once, in the service's order. --file FILE writes CSV, or a workbook
    when FILE ends in .xlsx (ids and names as text, hourlyRate as a number with two decimals); the
    file is written whole or not at all.

    Examples:
      $ wfctl rates list --client "Pennine Foods Ltd"
      $ wfctl rates list --all-clients --skill "forklift driver" -o csv > forklift.csv
      $ wfctl rates list --branch "Leeds Riverside" -o json
      $ wfctl rates list --all-clients -f rates.xlsx
    """
    from wfctl.api.domain import rates
    from wfctl.drivers.ratescommon import check_scope, read_scope, shown_amounts

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    if file and file != "-":
        with _unknown_skill():  # the file is not written
            _to_file(app_, file, output, rates.rate_rows(
                read_scope(app_, client, branch, all_clients, site, concurrency, output_to_terminal=False),
                skill or []))
        return
    out = output.writer(app_)
    sites = read_scope(app_, client, branch, all_clients, site, concurrency)
    with _unknown_skill():
        rows = list(rates.rate_rows(sites, skill or []))
    terminal = out.format == "table" and app_.io.stdout_is_tty
    out.records(shown_amounts(rows, out.format, ("hourlyRate",)), columns=TERMINAL_COLUMNS if terminal else LIST_COLUMNS)
    if terminal and rows:
        app_.io.note("ids of clients and sites: -o wide, csv or json")


@verb("summary")
@takes_output()
def summary(ctx: typer.Context, client: opt.Client = None, branch: opt.Branch = None,
            all_clients: opt.AllClients = False, site: opt.Site = None, skill: opt.SkillFilter = None,
            concurrency: opt.ReadConcurrency = 16, output: OutputOptions = AS_CONFIGURED) -> None:
    """Per skill: how many sites have a rate for it, and the minimum, median and maximum rate.

    Skills are grouped trimmed and case-insensitively, as the service compares them, and shown as most
    sites spell them.

    Examples:
      $ wfctl rates summary --all-clients
      $ wfctl rates summary --branch "Manchester Central" --skill "Picker Packer"
      $ wfctl rates summary --all-clients -o json
    """
    from wfctl.api.domain import rates
    from wfctl.drivers.ratescommon import check_scope, read_scope, shown_amounts

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    out = output.writer(app_)
    sites = read_scope(app_, client, branch, all_clients, site, concurrency)
    with _unknown_skill():
        rows = rates.summary(rates.rate_rows(sites, skill or []))
    out.records(shown_amounts(rows, out.format, ("minimum", "median", "maximum")), columns=SUMMARY_COLUMNS)


@contextlib.contextmanager
def _unknown_skill() -> Iterator[None]:
    """A --skill no site in scope has: the one line `rates set` gives (did you mean ...?), exit 2."""
    from wfctl.api.domain.rates import UnknownSkill
    from wfctl.drivers.ratescommon import rate_error

    try:
        yield
    except UnknownSkill as exc:
        raise rate_error(exc) from None


def _to_file(app: Any, path: str, options: OutputOptions, rows: Any) -> None:
    """The rows to `path`: a workbook when it ends in .xlsx (text columns as text, hourlyRate as a
    number), else CSV with a UTF-8 BOM; written whole or not at all (wfctl.files.files). --columns and
    --sort-by shape them (a rate column is money in the workbook too)."""
    from wfctl.drivers.ratescommon import shown_amounts
    from wfctl.errors import CliError
    from wfctl.files import workbook
    from wfctl.files.csvformat import neutralise
    from wfctl.files.files import atomic_binary_file, atomic_text_file, check_writable
    from wfctl.render.sortcolumns import parse_columns, parse_sort, shape_rows, sort_rows

    output, shape = options.format, options.shape
    if output and output != "csv":
        raise CliError("--file writes CSV, or a workbook when its name ends in .xlsx; leave out -o")
    if shape.jq is not None or shape.jq_each is not None:
        raise CliError("--file writes the rates as rows: --columns and --sort-by shape them; --jq prints to "
                       "stdout, leave out --file")
    columns, order = parse_columns(shape.columns), parse_sort(shape.sort_by)
    check_writable(path)  # before the first request, not after every site was read
    names = [column.header for column in columns] if columns else LIST_COLUMNS
    money = tuple(column.header for column in columns if column.money) if columns else ("hourlyRate",)
    if order:
        rows = sort_rows(list(rows), order)
    if columns:
        rows = (shaped for row in rows for shaped in shape_rows([row], columns))
    count = 0

    def cells(row: dict[str, Any], protect: Any = neutralise) -> list[str]:
        nonlocal count
        count += 1
        return [protect("" if row.get(name) is None else str(row[name])) for name in names]

    if workbook.is_workbook_name(path):
        with atomic_binary_file(path) as temporary:
            sheet = workbook.SheetWriter(temporary, names, money_columns=money)
            for row in rows:  # a workbook's text cell is never a formula: written as it is, as export does
                sheet.write(cells(shown_amounts([row], "xlsx", money)[0], protect=str))
            sheet.close()
    else:
        import csv

        with atomic_text_file(path, bom=True) as f:
            writer = csv.writer(f, lineterminator="\r\n")
            writer.writerow(names)
            for row in rows:
                writer.writerow(cells(shown_amounts([row], "csv", money)[0]))
    app.io.note(f"wrote {count} rate{'s' if count != 1 else ''} to {path}")
