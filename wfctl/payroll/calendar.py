"""Pay weeks of an agency's calendar: the week of a date, the weeks of a range, the week a change lands in.

The rules (docs/payroll.md says them for people):

- A pay week starts on the agency's `workWeekStart` (any weekday: the spec's Monday-Sunday and
  Sunday-Saturday structures are two of the seven) and ends six days later, on its week-ending date.
- A week belongs to the calendar year, and to the holiday year, that holds its week-ending date, as the
  week's timesheet, invoice and payroll are keyed by that date. Week 1 of a calendar year is the first
  week ending on or after the year's start; a year has 52 or 53 weeks.
- `calendarYearStart` and `holidayYearStart` are read as the day and month each year starts on (the
  agency record holds one date); a year starting on 29 February starts on 28 February in other years.
- A change effective on a date lands in the first pay week starting on or after it (the National
  Minimum Wage Regulations 2015, reg. 4(2), for a rise of the statutory rate).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: The most weeks one `weeks` answer holds (about 100 years): a typo in a year is an error, not a hang.
MAX_WEEKS = 5_300
#: The UK tax year starts on 6 April.
TAX_YEAR = (4, 6)
#: How near 6 April (in days, either side) a calendar year start must be to be taken for the tax year.
TAX_YEAR_NEAR = 14
#: The statutory paid holiday, in weeks (Working Time Regulations 1998, regs. 13 and 13A).
STATUTORY_WEEKS = 5.6


class CalendarError(ValueError):
    """Input the calendar cannot use: its message is one line naming the option or field."""


@dataclass(frozen=True)
class AgencyCalendar:
    """The agency fields the calendar reads: the weekday a week starts on (0 Monday .. 6 Sunday), the
    (month, day) of the calendar and holiday years' starts, and the holiday cap (None when unset)."""

    week_start: int
    year_start: tuple[int, int]
    holiday_year_start: tuple[int, int]
    holiday_cap_hours: float | None = None

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> AgencyCalendar:
        """From the agency record's fields (`workWeekStart`, `calendarYearStart`, `holidayYearStart`,
        `holidayCapHours`); CalendarError naming a field the calendar cannot use."""
        def need(name: str) -> Any:
            value = fields.get(name)
            if value in (None, ""):
                raise CalendarError(f"the agency has no {name}; give it with its option (see --help)")
            return value

        week = parse_weekday(str(need("workWeekStart")), "workWeekStart")
        year = parse_date(str(need("calendarYearStart")), "calendarYearStart")
        holiday = parse_date(str(need("holidayYearStart")), "holidayYearStart")
        cap = fields.get("holidayCapHours")
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int | float) or cap < 0):
            raise CalendarError(f"holidayCapHours {cap!r}: not a number of hours")
        return cls(week, (year.month, year.day), (holiday.month, holiday.day),
                   None if cap is None else float(cap))

    @property
    def structure(self) -> str:
        """`Monday-Sunday`, `Sunday-Saturday`, ..."""
        return f"{WEEKDAYS[self.week_start]}-{WEEKDAYS[(self.week_start + 6) % 7]}"


@dataclass(frozen=True)
class Week:
    """One pay week: its number in its calendar year, first and last day, and the years holding it."""

    number: int
    commencing: dt.date
    ending: dt.date
    year: tuple[dt.date, dt.date]  # the calendar year (first day, last day)
    holiday_year: tuple[dt.date, dt.date]

    def describe(self) -> str:
        """`week 15, commencing 2026-04-06, ending 2026-04-12`."""
        return f"week {self.number}, commencing {self.commencing}, ending {self.ending}"

    def fields(self) -> dict[str, Any]:
        """The week as output fields (dates in ISO 8601; a year as `first/last`)."""
        return {"week": self.number, "commencing": self.commencing.isoformat(), "ending": self.ending.isoformat(),
                "year": interval(self.year), "holidayYear": interval(self.holiday_year)}


def interval(span: tuple[dt.date, dt.date]) -> str:
    """`2026-04-01/2027-03-31` (ISO 8601's interval of two dates)."""
    return f"{span[0].isoformat()}/{span[1].isoformat()}"


# -- input -----------------------------------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(text: str, name: str = "date") -> dt.date:
    """A date written YYYY-MM-DD (`today` for today); CalendarError naming `name`."""
    text = text.strip()
    if text.lower() == "today":
        return dt.date.today()
    if _DATE.fullmatch(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
    raise CalendarError(f"{name} {text!r}: not a date; write it YYYY-MM-DD, e.g. 2026-04-06")


def parse_weekday(text: str, name: str = "weekday") -> int:
    """0 (Monday) .. 6 (Sunday) from a weekday's name or its first three letters, any case."""
    word = text.strip().lower()
    for number, day in enumerate(WEEKDAYS):
        if len(word) >= 3 and day.lower().startswith(word):
            return number
    raise CalendarError(f"{name} {text!r}: not a weekday; one of {', '.join(WEEKDAYS)} (or Mon, Tue, ...)")


def parse_deadline(text: str) -> tuple[int, dt.time]:
    """`Mon 12:00` -> (0, 12:00): the weekday after a week ends, and the time, of a timesheet deadline."""
    parts = text.split()
    if len(parts) == 2 and re.fullmatch(r"\d{1,2}:\d{2}", parts[1]):
        hours, minutes = (int(p) for p in parts[1].split(":"))
        if hours < 24 and minutes < 60:
            return parse_weekday(parts[0], "--deadline"), dt.time(hours, minutes)
    raise CalendarError(f"--deadline {text!r}: write a weekday and a 24-hour time, e.g. 'Mon 12:00'")


# -- years -----------------------------------------------------------------------------------------

def _anniversary(month_day: tuple[int, int], year: int) -> dt.date:
    month, day = month_day
    if (month, day) == (2, 29) and not _leap(year):
        return dt.date(year, 2, 28)
    return dt.date(year, month, day)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def year_of(month_day: tuple[int, int], day: dt.date) -> tuple[dt.date, dt.date]:
    """The year (first day, last day) starting each year on `month_day` that holds `day`."""
    start = _anniversary(month_day, day.year)
    if start > day:
        start = _anniversary(month_day, day.year - 1)
    return start, _anniversary(month_day, start.year + 1) - dt.timedelta(days=1)


# -- weeks -----------------------------------------------------------------------------------------

def week_commencing(cal: AgencyCalendar, day: dt.date) -> dt.date:
    """The first day of the pay week holding `day`."""
    return day - dt.timedelta(days=(day.weekday() - cal.week_start) % 7)


def week_of(cal: AgencyCalendar, day: dt.date) -> Week:
    """The pay week holding `day`."""
    commencing = week_commencing(cal, day)
    ending = commencing + dt.timedelta(days=6)
    year = year_of(cal.year_start, ending)
    first_ending = year[0] + dt.timedelta(days=(ending.weekday() - year[0].weekday()) % 7)
    number = (ending - first_ending).days // 7 + 1
    return Week(number, commencing, ending, year, year_of(cal.holiday_year_start, ending))


def effective_week(cal: AgencyCalendar, day: dt.date) -> Week:
    """The first pay week starting on or after `day`: where a change effective on `day` lands."""
    commencing = week_commencing(cal, day)
    if commencing < day:
        commencing += dt.timedelta(days=7)
    return week_of(cal, commencing)


def weeks(cal: AgencyCalendar, start: dt.date, end: dt.date) -> Iterator[Week]:
    """Every pay week holding a day from `start` to `end` (both included), in order."""
    if end < start:
        raise CalendarError(f"--to {end} is before --from {start}")
    first = week_commencing(cal, start)
    count = (end - first).days // 7 + 1
    if count > MAX_WEEKS:
        raise CalendarError(f"--from {start} --to {end} is {count:,} weeks; one answer holds at most {MAX_WEEKS:,}")
    for n in range(count):
        yield week_of(cal, first + dt.timedelta(days=7 * n))


def year_range(cal: AgencyCalendar, day: dt.date) -> tuple[dt.date, dt.date]:
    """The first and last day of the weeks of the calendar year holding `day`'s week (the weeks whose
    week-ending date is in that year)."""
    year = week_of(cal, day).year
    last = week_of(cal, year[1])
    end = last.ending if last.ending <= year[1] else last.commencing - dt.timedelta(days=1)
    return week_of(cal, year[0]).commencing, end


def deadline(week: Week, weekday: int, at: dt.time, is_holiday: Callable[[dt.date], bool]) -> tuple[dt.datetime, bool]:
    """The timesheet deadline of `week`: the first `weekday` after the week ends, at `at`; a bank holiday
    moves it to the next working day (Monday to Friday, not a bank holiday). Returns (deadline, moved)."""
    day = week.ending + dt.timedelta(days=(weekday - week.ending.weekday()) % 7 or 7)
    moved = False
    while is_holiday(day) or (moved and day.weekday() >= 5):
        moved = True
        day += dt.timedelta(days=1)
    return dt.datetime.combine(day, at), moved


# -- checks ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    check: str  # holiday-year-split, holiday-cap-weeks, near-tax-year
    message: str


def check(cal: AgencyCalendar, today: dt.date, week_hours: float) -> list[Finding]:
    """What a payroll person would want to know about the agency's calendar: a holiday year that starts
    mid-week (this year's or next year's start), a holiday cap that is not a whole number of standard weeks
    of `week_hours` (5.6 weeks, the statutory holiday, is taken as whole), a calendar year a few days off
    the UK tax year."""
    found: list[Finding] = []
    this_year = year_of(cal.holiday_year_start, today)[0]
    for start in (this_year, _anniversary(cal.holiday_year_start, this_year.year + 1)):
        if start.weekday() != cal.week_start:
            split = week_of(cal, start)
            found.append(Finding("holiday-year-split", (
                f"holidayYearStart: the holiday year starting {start} ({WEEKDAYS[start.weekday()]}) begins mid-week "
                f"in a {cal.structure} week: the week {split.commencing} to {split.ending} is split between two "
                f"holiday years, its days before {start} accruing in the earlier one; a holiday year starting on "
                f"a {WEEKDAYS[cal.week_start]} ({split.commencing} or {split.commencing + dt.timedelta(days=7)}) "
                "keeps every week whole")))
    cap = cal.holiday_cap_hours
    if cap is not None and week_hours > 0:
        in_weeks = cap / week_hours
        whole = abs(in_weeks - round(in_weeks)) < 1e-9 or abs(in_weeks - STATUTORY_WEEKS) < 1e-9
        if not whole:
            found.append(Finding("holiday-cap-weeks", (
                f"holidayCapHours {cap:g} is {in_weeks:.2f} weeks of {week_hours:g} hours, not a whole number "
                f"of weeks ({round(in_weeks) * week_hours:g} hours is {round(in_weeks)} weeks; the statutory "
                f"{STATUTORY_WEEKS:g} weeks is {STATUTORY_WEEKS * week_hours:g} hours; --week-hours sets the "
                "standard week)")))
        if in_weeks < STATUTORY_WEEKS - 1e-9:
            found.append(Finding("holiday-cap-weeks", (
                f"holidayCapHours {cap:g} is under the statutory {STATUTORY_WEEKS:g} weeks' holiday of a worker "
                f"on {week_hours:g} hours a week ({STATUTORY_WEEKS * week_hours:g} hours)")))
    year_start = _anniversary(cal.year_start, today.year)
    tax = dt.date(today.year, *TAX_YEAR)
    off = (year_start - tax).days
    if off and abs(off) <= TAX_YEAR_NEAR:
        found.append(Finding("near-tax-year", (
            f"calendarYearStart: the calendar year starts {abs(off)} day{'s' if abs(off) != 1 else ''} "
            f"{'before' if off < 0 else 'after'} the UK tax year (6 April): its week numbers are not HMRC's tax "
            "weeks; a calendar year starting on 6 April numbers weeks as payroll does")))
    return found
