"""The pay calendar's arithmetic (wfctl.payroll.calendar), no server: weeks across year ends and leap
years, both week structures the spec names and every other weekday, the week a change lands in, timesheet
deadlines moved past bank holidays (the holidays library, offline), the checks, and the statutory rates."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from wfctl.payroll import statutory
from wfctl.payroll.bankholidays import BankHolidays
from wfctl.payroll.calendar import (
    WEEKDAYS,
    AgencyCalendar,
    CalendarError,
    check,
    deadline,
    effective_week,
    parse_deadline,
    week_of,
    weeks,
    year_of,
    year_range,
)

D = dt.date


def cal(week_start: str = "Monday", year: str = "2026-01-01", holiday: str = "2026-04-01",
        cap: float | None = 224.0) -> AgencyCalendar:
    return AgencyCalendar.from_fields({"workWeekStart": week_start, "calendarYearStart": year,
                                       "holidayYearStart": holiday, "holidayCapHours": cap})


MONDAY = cal()
SUNDAY = cal("Sunday", holiday="2026-01-01", cap=196.0)


def test_the_issue_s_example_a_wednesday_rise_lands_on_the_monday_after() -> None:
    week = effective_week(MONDAY, D(2026, 4, 1))
    assert (week.number, week.commencing, week.ending) == (15, D(2026, 4, 6), D(2026, 4, 12))
    assert week.describe() == "week 15, commencing 2026-04-06, ending 2026-04-12"
    tax_year = cal(year="2026-04-06")
    assert effective_week(tax_year, D(2026, 4, 1)).describe() == "week 1, commencing 2026-04-06, ending 2026-04-12"
    assert effective_week(SUNDAY, D(2026, 4, 1)).describe() == "week 15, commencing 2026-04-05, ending 2026-04-11"


def test_a_date_that_starts_a_week_is_its_own_effective_week() -> None:
    assert effective_week(MONDAY, D(2026, 4, 6)).commencing == D(2026, 4, 6)
    assert effective_week(SUNDAY, D(2026, 4, 5)).commencing == D(2026, 4, 5)
    assert effective_week(MONDAY, D(2026, 4, 7)).commencing == D(2026, 4, 13)


@pytest.mark.parametrize("start", range(7), ids=WEEKDAYS)
def test_every_weekday_gives_seven_day_weeks_starting_on_it(start: int) -> None:
    c = cal(WEEKDAYS[start])
    for offset in range(800):  # two years and more, day by day
        day = D(2025, 11, 1) + dt.timedelta(days=offset)
        week = week_of(c, day)
        assert week.commencing <= day <= week.ending
        assert week.commencing.weekday() == start and (week.ending - week.commencing).days == 6
        effective = effective_week(c, day)
        assert effective.commencing >= day and (effective.commencing - day).days < 7
        assert effective.commencing.weekday() == start


def test_across_a_year_end_weeks_are_numbered_by_their_ending_date() -> None:
    rows = [(w.number, w.commencing, w.ending, w.year[0].year) for w in weeks(MONDAY, D(2026, 12, 20), D(2027, 1, 10))]
    assert rows == [(51, D(2026, 12, 14), D(2026, 12, 20), 2026), (52, D(2026, 12, 21), D(2026, 12, 27), 2026),
                    (1, D(2026, 12, 28), D(2027, 1, 3), 2027), (2, D(2027, 1, 4), D(2027, 1, 10), 2027)]
    rows = [(w.number, w.commencing, w.ending) for w in weeks(SUNDAY, D(2026, 12, 27), D(2027, 1, 9))]
    assert rows == [(1, D(2026, 12, 27), D(2027, 1, 2)), (2, D(2027, 1, 3), D(2027, 1, 9))]


@pytest.mark.parametrize("c", [MONDAY, SUNDAY, cal("Wednesday", year="2024-04-06")], ids=["Mon", "Sun", "Wed-tax"])
def test_a_year_has_52_or_53_weeks_numbered_from_1_without_a_gap(c: AgencyCalendar) -> None:
    for year in range(2020, 2035):
        first, last = year_range(c, D(year, 7, 1))
        numbers = [w.number for w in weeks(c, first, last)]
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) in (52, 53), (year, numbers)
        assert week_of(c, first - dt.timedelta(days=1)).number in (52, 53)


def test_a_53_week_year_when_the_year_holds_53_week_ending_days() -> None:
    # 2026 begins on a Thursday: 53 Sundays (Monday weeks) and 53 Thursdays, 52 Saturdays (Sunday weeks)
    assert [len(list(weeks(c, *year_range(c, D(2026, 6, 1))))) for c in (MONDAY, SUNDAY, cal("Friday"))] == [52, 52, 53]


def test_leap_years_29_february_and_a_year_that_starts_on_it() -> None:
    assert week_of(MONDAY, D(2028, 2, 29)).describe() == "week 10, commencing 2028-02-28, ending 2028-03-05"
    assert effective_week(MONDAY, D(2028, 2, 29)).commencing == D(2028, 3, 6)
    leap = cal(year="2024-02-29", holiday="2024-02-29")
    assert week_of(leap, D(2025, 3, 1)).year == (D(2025, 2, 28), D(2026, 2, 27))
    assert week_of(leap, D(2028, 3, 12)).year == (D(2028, 2, 29), D(2029, 2, 27))
    assert week_of(leap, D(2028, 3, 12)).holiday_year == (D(2028, 2, 29), D(2029, 2, 27))
    # a year from 1 March holds the 29th of February of the leap year it ends in
    assert year_of((3, 1), D(2024, 2, 29)) == (D(2023, 3, 1), D(2024, 2, 29))
    assert year_of((3, 1), D(2023, 2, 28)) == (D(2022, 3, 1), D(2023, 2, 28))


def test_the_holiday_year_is_that_of_the_week_ending_date() -> None:
    split = week_of(MONDAY, D(2026, 3, 31))  # Mon 30 March - Sun 5 April, across 1 April
    assert split.holiday_year == (D(2026, 4, 1), D(2027, 3, 31))
    assert week_of(MONDAY, D(2026, 3, 29)).holiday_year == (D(2025, 4, 1), D(2026, 3, 31))
    assert split.fields() == {"week": 14, "commencing": "2026-03-30", "ending": "2026-04-05",
                              "year": "2026-01-01/2026-12-31", "holidayYear": "2026-04-01/2027-03-31"}


def test_timesheet_deadlines_move_past_bank_holidays(tmp_path: Path) -> None:
    england = BankHolidays("england-and-wales", range(2026, 2028), tmp_path / "bank-holidays.json")
    monday, noon = parse_deadline("Mon 12:00")
    assert (monday, noon) == (0, dt.time(12, 0))

    def due(c: AgencyCalendar, day: dt.date, weekday: int = monday, holidays: BankHolidays = england) -> tuple[str, bool]:
        when, moved = deadline(week_of(c, day), weekday, noon, holidays.is_holiday)
        return f"{when:%a %Y-%m-%d %H:%M}", moved

    assert due(MONDAY, D(2026, 3, 25)) == ("Mon 2026-03-30 12:00", False)
    assert due(MONDAY, D(2026, 4, 1)) == ("Tue 2026-04-07 12:00", True)  # Easter Monday
    assert due(MONDAY, D(2026, 12, 23)) == ("Tue 2026-12-29 12:00", True)  # Boxing Day observed on the 28th
    assert due(SUNDAY, D(2026, 3, 30)) == ("Tue 2026-04-07 12:00", True)  # week ends Saturday 4 April
    assert due(MONDAY, D(2026, 3, 25), weekday=4) == ("Tue 2026-04-07 12:00", True)  # Good Friday, then Easter Monday
    scotland = BankHolidays("scotland", range(2026, 2028), tmp_path / "bank-holidays.json")
    assert due(MONDAY, D(2026, 12, 30), holidays=scotland) == ("Tue 2027-01-05 12:00", True)  # 2 January observed
    assert due(MONDAY, D(2026, 12, 30)) == ("Mon 2027-01-04 12:00", False)


def test_bank_holidays_per_division_from_the_library_and_its_cache(tmp_path: Path) -> None:
    cache = tmp_path / "bank-holidays.json"
    england = BankHolidays("england-and-wales", [2026], cache)
    assert england.between(D(2026, 1, 1), D(2026, 12, 31)) == [
        (D(2026, 1, 1), "New Year's Day"), (D(2026, 4, 3), "Good Friday"), (D(2026, 4, 6), "Easter Monday"),
        (D(2026, 5, 4), "May Day"), (D(2026, 5, 25), "Spring Bank Holiday"),
        (D(2026, 8, 31), "Late Summer Bank Holiday"), (D(2026, 12, 25), "Christmas Day"),
        (D(2026, 12, 26), "Boxing Day"), (D(2026, 12, 28), "Boxing Day (observed)")]
    assert cache.exists()
    again = BankHolidays("england-and-wales", [2026], cache)  # from the cache file
    assert again.between(D(2026, 1, 1), D(2026, 12, 31)) == england.between(D(2026, 1, 1), D(2026, 12, 31))
    scotland = BankHolidays("scotland", [2026], cache).between(D(2026, 1, 1), D(2026, 12, 31))
    assert (D(2026, 1, 2), "New Year Holiday") in scotland and (D(2026, 11, 30), "Saint Andrew's Day") in scotland
    assert not any(name == "Easter Monday" for _, name in scotland)
    ireland = BankHolidays("northern-ireland", [2026], cache).between(D(2026, 1, 1), D(2026, 12, 31))
    assert (D(2026, 3, 17), "Saint Patrick's Day") in ireland
    assert any("Battle of the Boyne" in name for _, name in ireland)
    with pytest.raises(CalendarError, match=r"^--division 'wales': one of england-and-wales, scotland, northern-ireland$"):
        BankHolidays("wales", [2026], cache)


def test_checks_a_payroll_person_wants() -> None:
    found = check(MONDAY, D(2026, 11, 27), 40.0)
    assert [f.check for f in found] == ["holiday-year-split", "holiday-year-split"]  # 224 h = 5.6 weeks of 40
    assert found[0].message.startswith("holidayYearStart: the holiday year starting 2026-04-01 (Wednesday) begins "
                                       "mid-week in a Monday-Sunday week: the week 2026-03-30 to 2026-04-05 is split")
    whole = cal(holiday="2024-04-01", year="2026-04-01", cap=187.5)  # 1 April 2024 and 2025: Monday, Tuesday
    found = check(whole, D(2024, 6, 1), 37.5)
    assert [f.check for f in found] == ["holiday-year-split", "holiday-cap-weeks", "near-tax-year"]
    assert found[1].message == ("holidayCapHours 187.5 is under the statutory 5.6 weeks' holiday of a worker on "
                                "37.5 hours a week (210 hours)")
    assert found[2].message.startswith("calendarYearStart: the calendar year starts 5 days before the UK tax year")
    found = check(SUNDAY, D(2026, 11, 27), 37.5)
    assert [f.check for f in found] == ["holiday-year-split"] * 2 + ["holiday-cap-weeks"] * 2
    assert found[2].message.startswith("holidayCapHours 196 is 5.23 weeks of 37.5 hours, not a whole number of weeks")
    clean = cal(holiday="2029-01-01", year="2026-04-06", cap=240.0)  # 1 January 2029 and 2030: Monday, Tuesday
    assert [f.check for f in check(clean, D(2029, 6, 1), 40.0)] == ["holiday-year-split"]
    tuesday = check(cal("Tuesday", holiday="2030-01-01", year="2026-04-06", cap=240.0), D(2029, 6, 1), 40.0)
    assert [f.message[:75] for f in tuesday] == [
        "holidayYearStart: the holiday year starting 2029-01-01 (Monday) begins mid-"]  # 2030's is a Tuesday
    assert check(cal(holiday="2029-01-01", year="2026-04-06", cap=240.0), D(2028, 6, 1), 40.0)[0].message \
        .startswith("holidayYearStart: the holiday year starting 2028-01-01 (Saturday)")


@pytest.mark.parametrize(("fields", "message"), [
    ({"workWeekStart": "Someday"}, "workWeekStart 'Someday': not a weekday; one of Monday, Tuesday"),
    ({"calendarYearStart": "2026-02-30"}, "calendarYearStart '2026-02-30': not a date; write it YYYY-MM-DD"),
    ({"holidayYearStart": None}, "the agency has no holidayYearStart"),
    ({"holidayCapHours": -1}, "holidayCapHours -1: not a number of hours"),
])
def test_an_agency_field_the_calendar_cannot_use_is_named(fields: dict[str, object], message: str) -> None:
    with pytest.raises(CalendarError) as caught:
        AgencyCalendar.from_fields({"workWeekStart": "Monday", "calendarYearStart": "2026-01-01",
                                    "holidayYearStart": "2026-04-01", **fields})
    assert str(caught.value).startswith(message)


def test_weekday_names_and_deadlines_as_typed() -> None:
    assert cal("sun").week_start == 6 and cal("THURSDAY").structure == "Thursday-Wednesday"
    assert parse_deadline("friday 17:30") == (4, dt.time(17, 30))
    for bad in ("Mon", "Mon 25:00", "12:00 Mon", "Mo 12:00"):
        with pytest.raises(CalendarError):
            parse_deadline(bad)
    with pytest.raises(CalendarError, match="is 6,575 weeks; one answer holds at most 5,300"):
        list(weeks(MONDAY, D(1900, 1, 1), D(2026, 1, 1)))


def test_the_statutory_rates_of_each_april_and_band() -> None:
    assert statutory.rate_on("nlw", D(2026, 4, 1)) == (Decimal("12.71"), D(2026, 4, 1), "21+")
    assert statutory.rate_on("nlw", D(2026, 3, 31)) == (Decimal("12.21"), D(2025, 4, 1), "21+")
    assert statutory.rate_on("NLW:18-20", D(2025, 4, 1))[0] == Decimal("10.00")
    assert statutory.rate_on("nlw:16-17", D(2024, 4, 1))[0] == Decimal("6.40")
    assert statutory.rate_on("nlw:apprentice", D(2027, 3, 31))[0] == Decimal("8.00")
    with pytest.raises(statutory.StatutoryError, match="the rates from 2027-04-01 are not in it"):
        statutory.rate_on("nlw", D(2027, 4, 1))
    with pytest.raises(statutory.StatutoryError, match="starts on 2024-04-01"):
        statutory.rate_on("nlw", D(2024, 3, 31))
    with pytest.raises(statutory.StatutoryError, match="unknown band '21'; nlw takes one of 21\\+, 18-20"):
        statutory.rate_on("nlw:21", D(2026, 4, 1))
    assert statutory.is_statutory("nlw:18-20") and not statutory.is_statutory("12.71")
