"""`wfctl calendar week|weeks|effective|check` against a real sandbox, whose two seeded agencies have the
two week structures the spec names: Northwind Staffing Monday-Sunday (holiday year from 1 April),
Southgate Recruitment Sunday-Saturday (from 1 January). Exact output on a terminal and in a pipe, CSV,
JSON and a workbook, the what-if options, the agency read once and kept, and one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import auth_headers
from tests.terminal.conftest import run_in_terminal


def northwind(cli: Any, sandbox: Any) -> Any:
    assert cli.login_as(sandbox.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    return cli


def southgate(cli: Any, sandbox: Any) -> Any:
    assert cli.login_as(sandbox.url, "admin@southgate.test", "sandbox-admin").exit_code == 0
    return cli


SIZES = [pytest.param((24, 80), id="80x24"), pytest.param((40, 120), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_week_and_weeks_on_a_terminal(cli: Any, sandbox: Any, size: tuple[int, int]) -> None:
    rows, columns = size
    northwind(cli, sandbox)
    screen = run_in_terminal(cli, "calendar", "week", "2026-04-01", columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    assert screen.lines == ["date          2026-04-01 Wed",
                            "week          14",
                            "commencing    2026-03-30 Mon",
                            "ending        2026-04-05 Sun",
                            "year          2026-01-01/2026-12-31",
                            "holiday year  2026-04-01/2027-03-31",
                            "work week     Monday-Sunday", ""]
    screen = run_in_terminal(cli, "calendar", "weeks", "--from", "2026-03-25", "--to", "2026-04-12", "--deadline",
                             "Mon 12:00", columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    assert screen.lines == [
        "week   commencing   ending       holidayYear   bankHolidays    deadline",
        "─" * 79,
        "13     2026-03-23   2026-03-29   2025/26                       Mon 30 Mar 12:00",
        "14     2026-03-30   2026-04-05   2026/27       Good Friday     Tue 07 Apr 12:00",
        "15     2026-04-06   2026-04-12   2026/27       Easter Monday   Mon 13 Apr 12:00", ""]


def test_week_in_a_pipe_and_as_json(cli: Any, sandbox: Any) -> None:
    northwind(cli, sandbox)
    r = cli("calendar", "week", "2026-04-01")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == ("date:        2026-04-01 Wed\n"
                        "week:        14\n"
                        "commencing:  2026-03-30 Mon\n"
                        "ending:      2026-04-05 Sun\n"
                        "year:        2026-01-01/2026-12-31\n"
                        "holidayYear: 2026-04-01/2027-03-31\n"
                        "workWeek:    Monday-Sunday\n")
    r = cli("calendar", "week", "2026-04-01", "-o", "json")
    assert json.loads(r.stdout) == {"date": "2026-04-01", "week": 14, "commencing": "2026-03-30",
                                    "ending": "2026-04-05", "year": "2026-01-01/2026-12-31",
                                    "holidayYear": "2026-04-01/2027-03-31", "workWeek": "Monday-Sunday"}


def test_the_second_agency_has_sunday_saturday_weeks(cli: Any, sandbox: Any) -> None:
    southgate(cli, sandbox)
    r = cli("calendar", "week", "2026-04-01", "-o", "json")
    assert json.loads(r.stdout) == {"date": "2026-04-01", "week": 14, "commencing": "2026-03-29",
                                    "ending": "2026-04-04", "year": "2026-01-01/2026-12-31",
                                    "holidayYear": "2026-01-01/2026-12-31", "workWeek": "Sunday-Saturday"}
    r = cli("calendar", "effective", "2026-04-01", "-o", "json")
    assert {k: json.loads(r.stdout)[k] for k in ("week", "commencing", "ending")} == {
        "week": 15, "commencing": "2026-04-05", "ending": "2026-04-11"}


def test_effective_names_the_first_week_starting_on_or_after_the_date(cli: Any, sandbox: Any) -> None:
    northwind(cli, sandbox)
    r = cli("calendar", "effective", "2026-04-01")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines()[:4] == ["date:        2026-04-01 Wed", "week:        15",
                                         "commencing:  2026-04-06 Mon", "ending:      2026-04-12 Sun"]
    r = cli("calendar", "effective", "2026-04-01", "--year-start", "2026-04-06", "-o", "json")
    assert {k: json.loads(r.stdout)[k] for k in ("week", "commencing", "ending", "year")} == {
        "week": 1, "commencing": "2026-04-06", "ending": "2026-04-12", "year": "2026-04-06/2027-04-05"}


WEEKS_PIPED = """\
week  commencing  ending      holidayYear  bankHolidays   deadline
13    2026-03-23  2026-03-29  2025/26                     Mon 30 Mar 12:00
14    2026-03-30  2026-04-05  2026/27      Good Friday    Tue 07 Apr 12:00
15    2026-04-06  2026-04-12  2026/27      Easter Monday  Mon 13 Apr 12:00
"""


def test_weeks_in_a_pipe_and_as_csv_and_json(cli: Any, sandbox: Any) -> None:
    northwind(cli, sandbox)
    args = ("calendar", "weeks", "--from", "2026-03-25", "--to", "2026-04-12", "--deadline", "Mon 12:00")
    piped = cli(*args)
    assert (piped.exit_code, piped.stdout, piped.stderr) == (0, WEEKS_PIPED, "")
    r = cli(*args, "-o", "csv")
    assert list(csv.reader(io.StringIO(r.stdout))) == [
        ["week", "commencing", "ending", "year", "holidayYear", "bankHolidays", "deadline"],
        ["13", "2026-03-23", "2026-03-29", "2026-01-01/2026-12-31", "2025-04-01/2026-03-31", "", "2026-03-30 12:00"],
        ["14", "2026-03-30", "2026-04-05", "2026-01-01/2026-12-31", "2026-04-01/2027-03-31", "2026-04-03 Good Friday",
         "2026-04-07 12:00"],
        ["15", "2026-04-06", "2026-04-12", "2026-01-01/2026-12-31", "2026-04-01/2027-03-31", "2026-04-06 Easter Monday",
         "2026-04-13 12:00"]]
    rows = json.loads(cli(*args, "-o", "json").stdout)
    assert rows[1] == {"week": 14, "commencing": "2026-03-30", "ending": "2026-04-05", "year": "2026-01-01/2026-12-31",
                       "holidayYear": "2026-04-01/2027-03-31",
                       "bankHolidays": [{"date": "2026-04-03", "name": "Good Friday"}],
                       "deadline": "2026-04-07 12:00", "deadlineMoved": True}
    assert rows[0]["deadlineMoved"] is False


def test_weeks_of_another_division_across_a_year_end(cli: Any, sandbox: Any) -> None:
    southgate(cli, sandbox)  # Sunday weeks: a Monday deadline is two days after the week ends
    r = cli("calendar", "weeks", "--from", "2026-12-27", "--to", "2027-01-09", "--division", "scotland",
            "--deadline", "mon 09:30", "-o", "csv")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines() == [
        "week,commencing,ending,year,holidayYear,bankHolidays,deadline",
        "1,2026-12-27,2027-01-02,2027-01-01/2027-12-31,2027-01-01/2027-12-31,2026-12-28 Boxing Day (observed); "
        "2027-01-01 New Year's Day; 2027-01-02 New Year Holiday,2027-01-05 09:30",
        "2,2027-01-03,2027-01-09,2027-01-01/2027-12-31,2027-01-01/2027-12-31,2027-01-04 New Year Holiday (observed),"
        "2027-01-11 09:30"]


def test_weeks_default_to_this_calendar_year_and_write_a_workbook(cli: Any, sandbox: Any) -> None:
    import datetime as dt

    openpyxl = pytest.importorskip("openpyxl")
    northwind(cli, sandbox)
    rows = json.loads(cli("calendar", "weeks", "-o", "json").stdout)
    assert rows[0]["week"] == 1 and rows[-1]["week"] == len(rows) and len(rows) in (52, 53)
    assert all(row["year"] == f"{dt.date.today().year}-01-01/{dt.date.today().year}-12-31" for row in rows)
    path = Path(cli.tmp_path) / "pay calendar.xlsx"
    r = cli("calendar", "weeks", "--from", "2026-04-01", "--to", "2027-03-31", "-f", str(path), tty=True)
    assert r.exit_code == 0, r
    assert r.stderr == f"wrote 53 weeks to {path}\n"
    sheet = openpyxl.load_workbook(path).active
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert values[0] == ["week", "commencing", "ending", "year", "holidayYear", "bankHolidays"]
    assert values[2] == ["15", "2026-04-06", "2026-04-12", "2026-01-01/2026-12-31", "2026-04-01/2027-03-31",
                         "2026-04-06 Easter Monday"]
    assert len(values) == 54 and values[-1][:3] == ["14", "2027-03-29", "2027-04-04"]


def test_check_warns_and_exits_1_and_what_if_options_need_no_login(cli: Any, sandbox: Any) -> None:
    northwind(cli, sandbox)
    r = cli("calendar", "check", "-o", "json")
    assert r.exit_code == 1, r
    assert [f["check"] for f in json.loads(r.stdout)] == ["holiday-year-split", "holiday-year-split"]
    r = cli("calendar", "check", "--holiday-year-start", "2026-01-05", "--week-start", "Monday",
            "--year-start", "2026-01-01", "--holiday-cap-hours", "224", "--base-url", "http://127.0.0.1:9")
    # a holiday year from the first Monday: whole weeks this year; next year's 5 January is a Tuesday
    assert r.exit_code == 1, r
    assert r.stdout.startswith("warning: holidayYearStart: the holiday year starting 2027-01-05 (Tuesday) begins "
                               "mid-week in a Monday-Sunday week")
    r = cli("calendar", "check", "--holiday-year-start", "2026-01-05", "--week-start", "Monday",
            "--year-start", "2026-04-06", "--holiday-cap-hours", "240", "--base-url", "http://127.0.0.1:9",
            "--week-hours", "40", "-o", "json")
    assert r.stdout.count('"check"') == 1  # no request was made (the URL answers nothing)


@pytest.mark.parametrize(("args", "message"), [
    (("calendar", "week", "2026-13-01"), "error: DATE '2026-13-01': not a date; write it YYYY-MM-DD, e.g. 2026-04-06\n"),
    (("calendar", "week", "--week-start", "Funday"),
     "error: --week-start 'Funday': not a weekday; one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, "
     "Sunday (or Mon, Tue, ...)\n"),
    (("calendar", "weeks", "--deadline", "Monday"),
     "error: --deadline 'Monday': write a weekday and a 24-hour time, e.g. 'Mon 12:00'\n"),
    (("calendar", "weeks", "--division", "wales"),
     "error: --division 'wales': one of england-and-wales, scotland, northern-ireland\n"),
    (("calendar", "weeks", "--from", "2026-05-01", "--to", "2026-04-01"), "error: --to 2026-04-01 is before --from 2026-05-01\n"),
])
def test_bad_input_is_one_line_exit_2(cli: Any, sandbox: Any, args: tuple[str, ...], message: str) -> None:
    northwind(cli, sandbox)
    r = cli(*args)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", message)


def test_the_agency_is_read_once_and_kept_until_refresh_or_update(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory()
    northwind(cli, server)
    assert json.loads(cli("calendar", "week", "2026-04-01", "-o", "json").stdout)["workWeek"] == "Monday-Sunday"
    headers = auth_headers(server, "admin@northwind.test", "sandbox-admin")
    answer = httpx.put(f"{server.url}/api/agency/", json={"workWeekStart": "Sunday"}, headers=headers)
    assert answer.status_code == 200, answer.text
    # another client changed the agency: the kept copy answers within the hour
    assert json.loads(cli("calendar", "week", "2026-04-01", "-o", "json").stdout)["workWeek"] == "Monday-Sunday"
    assert json.loads(cli("calendar", "week", "2026-04-01", "--refresh", "-o", "json").stdout)["workWeek"] == \
        "Sunday-Saturday"
    r = cli("agency", "update", "--work-week-start", "Wednesday")
    assert r.exit_code == 0, r
    assert json.loads(cli("calendar", "week", "2026-04-01", "-o", "json").stdout)["commencing"] == "2026-04-01"
    kept = list((Path(cli.tmp_path) / "cache" / "wfctl").glob("agency-*.json"))
    assert len(kept) == 1
    assert set(json.loads(kept[0].read_text())["fields"]) == {"workWeekStart", "calendarYearStart",
                                                               "holidayYearStart", "holidayCapHours"}
