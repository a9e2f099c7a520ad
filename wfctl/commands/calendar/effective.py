"""wfctl calendar effective."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import agencycalendar as cal
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

Day = Annotated[str, typer.Argument(help="The date a change is effective from, YYYY-MM-DD.", metavar="DATE",
                                    show_default=False)]


@verb("effective")
@takes_output()
def effective(ctx: typer.Context, date: Day, week_start: cal.WeekStart = None, year_start: cal.YearStart = None,
              holiday_year_start: cal.HolidayYearStart = None, refresh: cal.Refresh = False,
              output: OutputOptions = AS_CONFIGURED) -> None:
    """Show the first pay week starting on or after a date: where a change effective then lands.

    A rise of the National Minimum Wage is due from the first pay week that starts on or after its
    date (National Minimum Wage Regulations 2015, reg. 4(2)): with Monday weeks, 1 April 2026 is a
    Wednesday and the new rate is due from Monday 6 April. `rates set --effective DATE` sends its
    change from that week. Fields: date, week, commencing, ending, year, holidayYear, workWeek.

    Examples:
      $ wfctl calendar effective 2026-04-01
      $ wfctl calendar effective 2026-04-01 --week-start Sunday
      $ wfctl calendar effective 2026-04-01 -o json | jq -r .commencing
    """
    from wfctl.commands.calendar.common import parse_date, week_fields

    app_ = app_context(ctx)
    day = parse_date(date, "DATE")
    calendar = cal.calendar_for(app_, week_start=week_start, year_start=year_start,
                                holiday_year_start=holiday_year_start, refresh=refresh)
    out = output.writer(app_)
    out.record(week_fields(calendar, day, out.tabular, effective=True))
