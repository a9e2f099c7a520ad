"""What the calendar verbs share: dates from the command line, a week as fields, the pay calendar's rows."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError

if TYPE_CHECKING:
    from wfctl.payroll.calendar import AgencyCalendar, Week

WEEKS_COLUMNS = ["week", "commencing", "ending", "holidayYear", "bankHolidays"]


def parse_date(text: str, name: str) -> dt.date:
    from wfctl.payroll.calendar import CalendarError
    from wfctl.payroll.calendar import parse_date as parse

    try:
        return parse(text, name)
    except CalendarError as exc:
        raise CliError(str(exc)) from None


def day_text(day: dt.date, tabular: bool) -> str:
    """`2026-04-06`, and in a table for a person `2026-04-06 Mon`."""
    return f"{day.isoformat()} {day.strftime('%a')}" if tabular else day.isoformat()


def week_fields(calendar: AgencyCalendar, day: dt.date, tabular: bool, *, effective: bool = False) -> dict[str, Any]:
    """`calendar week` (the week of `day`) or `calendar effective` (the first week starting on or after it)."""
    from wfctl.payroll.calendar import effective_week, week_of

    week = effective_week(calendar, day) if effective else week_of(calendar, day)
    fields = {"date": day.isoformat(), **week.fields(), "workWeek": calendar.structure}
    if tabular:
        fields.update(date=day_text(day, True), commencing=day_text(week.commencing, True),
                      ending=day_text(week.ending, True))
    return fields


def year_label(span: tuple[dt.date, dt.date]) -> str:
    """A year as people name it: `2026` (1 January to 31 December) or `2026/27`."""
    first, last = span
    return str(first.year) if first.year == last.year else f"{first.year}/{str(last.year)[2:]}"


def week_rows(weeks: list[Week], holidays: Any, deadline: tuple[int, dt.time] | None, *, tabular: bool,
              machine: bool) -> list[dict[str, Any]]:
    """One row a week: number, commencing, ending, holiday year, the bank holidays in it, its deadline.
    A table shows a holiday year by its name (2026/27), a bank holiday by its name and a deadline as
    `Tue 07 Apr 12:00`; CSV and JSON each with its whole date."""
    from wfctl.payroll.calendar import deadline as deadline_of
    from wfctl.payroll.calendar import interval

    rows = []
    for week in weeks:
        days = holidays.between(week.commencing, week.ending)
        row: dict[str, Any] = {
            "week": week.number, "commencing": week.commencing.isoformat(), "ending": week.ending.isoformat(),
            "year": interval(week.year),
            "holidayYear": year_label(week.holiday_year) if tabular else interval(week.holiday_year)}
        if machine:
            row["bankHolidays"] = [{"date": day.isoformat(), "name": name} for day, name in days]
        else:
            # a table names them (it fits 80 columns); CSV and a workbook give each with its date
            row["bankHolidays"] = "; ".join(name if tabular else f"{day.isoformat()} {name}" for day, name in days)
        if deadline is not None:
            when, moved = deadline_of(week, deadline[0], deadline[1], holidays.is_holiday)
            row["deadline"] = f"{when:%a %d %b %H:%M}" if tabular else f"{when:%Y-%m-%d %H:%M}"
            if machine:
                row["deadlineMoved"] = moved
        rows.append(row)
    return rows
