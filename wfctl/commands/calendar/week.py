"""wfctl calendar week."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import agencycalendar as cal
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

Day = Annotated[str, typer.Argument(help="The date, YYYY-MM-DD (default: today).", metavar="[DATE]",
                                    show_default=False)]


@verb("week")
@takes_output()
def week(ctx: typer.Context, date: Day = "today", week_start: cal.WeekStart = None, year_start: cal.YearStart = None,
         holiday_year_start: cal.HolidayYearStart = None, refresh: cal.Refresh = False,
         output: OutputOptions = AS_CONFIGURED) -> None:
    """Show the pay week of a date: its number, first day and week-ending date, and its years.

    Fields: date, week (its number in the calendar year), commencing, ending (the week-ending date
    timesheets, invoices and payroll are keyed by), year and holidayYear (first/last day of each; a
    week belongs to the years of its ending date), workWeek (Monday-Sunday, ...).

    Examples:
      $ wfctl calendar week
      $ wfctl calendar week 2026-04-01
      $ wfctl calendar week 2026-04-01 --week-start Sunday -o json
    """
    from wfctl.commands.calendar.common import parse_date, week_fields

    app_ = app_context(ctx)
    day = parse_date(date, "DATE")
    calendar = cal.calendar_for(app_, week_start=week_start, year_start=year_start,
                                holiday_year_start=holiday_year_start, refresh=refresh)
    out = output.writer(app_)
    out.record(week_fields(calendar, day, out.tabular))
