"""wfctl calendar check."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import agencycalendar as cal
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

WeekHours = Annotated[float, typer.Option("--week-hours", help="The hours of a standard full-time week, for the "
                                          "holiday cap's check.", metavar="<hours>", min=1, max=168)]


@verb("check")
@takes_output()
def check(ctx: typer.Context, week_hours: WeekHours = 40.0, week_start: cal.WeekStart = None,
          year_start: cal.YearStart = None, holiday_year_start: cal.HolidayYearStart = None,
          holiday_cap_hours: cal.HolidayCapHours = None, refresh: cal.Refresh = False,
          output: OutputOptions = AS_CONFIGURED) -> int:
    """Check the agency's calendar for what payroll would trip on; exit 1 when there is a warning.

    Warns when holidayYearStart is not the first day of a pay week (this year's or next year's: the
    week across it is split between two holiday years), when holidayCapHours is not a whole number
    of standard weeks of --week-hours (5.6 weeks, the statutory holiday, counts as whole) or is under
    5.6 weeks, and when calendarYearStart is a few days off the UK tax year (6 April).

    Examples:
      $ wfctl calendar check || echo "the calendar needs a look"
      $ wfctl calendar check --week-hours 37.5 -o json | jq -r '.[].message'
      $ wfctl calendar check --holiday-year-start 2026-04-06 || true
    """
    import datetime as dt

    from wfctl.payroll.calendar import check as findings

    app_ = app_context(ctx)
    calendar = cal.calendar_for(app_, week_start=week_start, year_start=year_start,
                                holiday_year_start=holiday_year_start, holiday_cap_hours=holiday_cap_hours,
                                refresh=refresh, need_cap=True)
    found = findings(calendar, dt.date.today(), week_hours)
    out = output.writer(app_)
    if out.machine or out.format == "csv":
        out.records([{"check": f.check, "message": f.message} for f in found], columns=["check", "message"])
    elif found:
        for f in found:
            app_.io.write(f"warning: {f.message}\n")
    else:
        app_.io.write(f"no warnings: {calendar.structure} weeks; holiday years and the holiday cap fit them\n")
    return 1 if found else 0
