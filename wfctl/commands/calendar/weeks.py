"""wfctl calendar weeks."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from wfctl.cmdline.completion_cache import complete_divisions
from wfctl.commands import agencycalendar as cal
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.payroll.bankholidays import DEFAULT_DIVISION, DIVISIONS

From = Annotated[str | None, typer.Option("--from", help="The first day (its week is the first row); default: "
                                          "the first week of this calendar year.", metavar="<YYYY-MM-DD>",
                                          show_default=False)]
To = Annotated[str | None, typer.Option("--to", help="The last day (its week is the last row); default: the "
                                        "last week of the calendar year of --from.", metavar="<YYYY-MM-DD>",
                                        show_default=False)]
Division = Annotated[str, typer.Option("--division", help=f"Whose bank holidays: {', '.join(DIVISIONS)}.",
                                       metavar="<division>", autocompletion=complete_divisions)]
Deadline = Annotated[str | None, typer.Option(
    "--deadline", help="Add each week's timesheet deadline: this weekday after the week ends, at this time "
    "('Mon 12:00'); a bank holiday moves it to the next working day.", metavar="<day HH:MM>", show_default=False)]


@verb("weeks")
@takes_output()
def weeks(ctx: typer.Context, from_: From = None, to: To = None, division: Division = DEFAULT_DIVISION,
          deadline: Deadline = None, week_start: cal.WeekStart = None, year_start: cal.YearStart = None,
          holiday_year_start: cal.HolidayYearStart = None, refresh: cal.Refresh = False,
          file: bulk.ExportFile = None, output: OutputOptions = AS_CONFIGURED) -> None:
    """List the pay calendar: one row a week, with its bank holidays and timesheet deadline.

    Columns: week (its number in the calendar year), commencing, ending (the week-ending date),
    holidayYear, bankHolidays (those of --division in the week, from the holidays library: no
    network needed), deadline (with --deadline). A table shows a holiday year as 2026/27, a bank
    holiday by its name; CSV and JSON add year, give each year as its first/last day and each bank
    holiday and deadline with its date. --file FILE writes CSV, or a workbook when FILE ends in .xlsx.

    Examples:
      $ wfctl calendar weeks
      $ wfctl calendar weeks --from 2026-04-01 --to 2027-03-31 --deadline 'Mon 12:00'
      $ wfctl calendar weeks --division scotland --from 2026-12-01 --to 2027-01-31 -o csv
      $ wfctl calendar weeks --from 2026-04-06 --to 2027-04-04 -f pay-calendar-2026.xlsx
    """
    import datetime as dt

    from wfctl.commands.calendar.common import parse_date, week_rows
    from wfctl.errors import CliError
    from wfctl.payroll import calendar as pay
    from wfctl.payroll.bankholidays import BankHolidays

    app_ = app_context(ctx)
    if not cal.holidays_cache().exists():  # a first run: the library's import overlaps the agency's read
        import threading

        from wfctl.payroll.bankholidays import preload

        threading.Thread(target=preload, name="wfctl-holidays", daemon=True).start()
    first = parse_date(from_, "--from") if from_ else None
    last = parse_date(to, "--to") if to else None
    try:
        when = pay.parse_deadline(deadline) if deadline else None
        if division not in DIVISIONS:
            raise pay.CalendarError(f"--division {division!r}: one of {', '.join(DIVISIONS)}")
        if file and file != "-" and output.format is not None and output.format != "csv":
            raise pay.CalendarError("--file writes CSV, or a workbook when its name ends in .xlsx; leave out -o")
        calendar = cal.calendar_for(app_, week_start=week_start, year_start=year_start,
                                    holiday_year_start=holiday_year_start, refresh=refresh)
        if first is None:
            first = pay.year_range(calendar, last or dt.date.today())[0]
        if last is None:
            last = pay.year_range(calendar, first)[1]
        found = list(pay.weeks(calendar, first, last))
        years = range(found[0].commencing.year, found[-1].ending.year + 2)  # a deadline may fall in the next year
        holidays = BankHolidays(division, years, cal.holidays_cache())
    except pay.CalendarError as exc:
        raise CliError(str(exc)) from None
    if file and file != "-":
        _to_file(app_, file, week_rows(found, holidays, when, tabular=False, machine=False), when is not None)
        return
    out = output.writer(app_)
    rows = week_rows(found, holidays, when, tabular=out.tabular, machine=out.machine)
    columns = ["week", "commencing", "ending", "year", "holidayYear", "bankHolidays"] if not out.tabular else \
        ["week", "commencing", "ending", "holidayYear", "bankHolidays"]
    if when is not None:
        columns.append("deadline")
    out.records(rows, columns=columns if not out.machine else None)


def _to_file(app: Any, path: str, rows: list[dict[str, Any]], deadline: bool) -> None:
    """The rows to `path`: a workbook when it ends in .xlsx (every cell text), else CSV with a UTF-8 BOM;
    written whole or not at all."""
    from wfctl.files import workbook
    from wfctl.files.csvformat import neutralise
    from wfctl.files.files import atomic_binary_file, atomic_text_file, check_writable

    columns = ["week", "commencing", "ending", "year", "holidayYear", "bankHolidays"] + (["deadline"] if deadline else [])
    check_writable(path)
    cells = [[neutralise(str(row.get(name, ""))) for name in columns] for row in rows]
    if workbook.is_workbook_name(path):
        with atomic_binary_file(path) as temporary:
            sheet = workbook.SheetWriter(temporary, columns, record="week")
            for line in cells:
                sheet.write(line)
            sheet.close()
    else:
        import csv

        with atomic_text_file(path, bom=True) as f:
            writer = csv.writer(f, lineterminator="\r\n")
            writer.writerow(columns)
            writer.writerows(cells)
    app.io.note(f"wrote {len(rows)} week{'s' if len(rows) != 1 else ''} to {path}")
