"""The agency's calendar as the `calendar` commands and `rates set --effective` read it: the agency's
fields, cached for a session of work, and the what-if options that override them.

The agency's `workWeekStart`, `calendarYearStart`, `holidayYearStart` and `holidayCapHours` are read
once and kept for `AGENCY_TTL` seconds (an hour: a session of payroll work runs many calendar commands,
and the fields change once a year if ever) in $XDG_CACHE_HOME/wfctl/agency-<hash of profile and url>.json;
`wfctl agency show` and `agency update` write it afresh, `--refresh` reads the agency again. Options given
(`--week-start Sunday`) override the agency's fields for this run only (what if), and when every field a
command needs is given, the agency is not read at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.payroll.calendar import AgencyCalendar

#: How long the agency's calendar fields are kept (seconds).
AGENCY_TTL = 3600.0
FIELDS = ("workWeekStart", "calendarYearStart", "holidayYearStart", "holidayCapHours")
PANEL = "What if (instead of the agency's fields)"

WeekStart = Annotated[str | None, typer.Option(
    "--week-start", help="The weekday a pay week starts on (Monday, Sun, ...), instead of the agency's "
    "workWeekStart.", metavar="<weekday>", rich_help_panel=PANEL, show_default=False)]
YearStart = Annotated[str | None, typer.Option(
    "--year-start", help="The start of the calendar year (its day and month count), instead of the agency's "
    "calendarYearStart.", metavar="<YYYY-MM-DD>", rich_help_panel=PANEL, show_default=False)]
HolidayYearStart = Annotated[str | None, typer.Option(
    "--holiday-year-start", help="The start of the holiday year, instead of the agency's holidayYearStart.",
    metavar="<YYYY-MM-DD>", rich_help_panel=PANEL, show_default=False)]
HolidayCapHours = Annotated[float | None, typer.Option(
    "--holiday-cap-hours", help="The holiday cap in hours, instead of the agency's holidayCapHours.",
    metavar="<hours>", rich_help_panel=PANEL, show_default=False, min=0)]
Refresh = Annotated[bool, typer.Option(
    "--refresh", help=f"Read the agency now, not its copy of the last {AGENCY_TTL / 60:g} minutes.",
    rich_help_panel=PANEL)]


def calendar_for(app: AppContext, *, week_start: str | None = None, year_start: str | None = None,
                 holiday_year_start: str | None = None, holiday_cap_hours: float | None = None,
                 refresh: bool = False, need_cap: bool = False) -> AgencyCalendar:
    """The agency's calendar with the options given instead of its fields; a field the calendar cannot use
    is one line, exit 2."""
    from wfctl.errors import CliError
    from wfctl.payroll.calendar import AgencyCalendar, CalendarError

    given = {"workWeekStart": week_start, "calendarYearStart": year_start, "holidayYearStart": holiday_year_start,
             "holidayCapHours": holiday_cap_hours}
    options = {"workWeekStart": "--week-start", "calendarYearStart": "--year-start",
               "holidayYearStart": "--holiday-year-start", "holidayCapHours": "--holiday-cap-hours"}
    wanted = [name for name in FIELDS if name != "holidayCapHours" or need_cap]
    fields: dict[str, Any] = {}
    if any(given[name] is None for name in wanted):
        fields = agency_fields(app, refresh=refresh)
    fields.update({k: v for k, v in given.items() if v is not None})
    try:
        for name in ("workWeekStart", "calendarYearStart", "holidayYearStart"):
            if given[name] is not None:  # an option's mistake names the option
                AgencyCalendar.from_fields({**fields, name: given[name]})
        return AgencyCalendar.from_fields(fields)
    except CalendarError as exc:
        message = str(exc)
        for name, option in options.items():
            if given[name] is not None and message.startswith(name + " "):
                message = option + message[len(name):]
        raise CliError(message) from None


def agency_fields(app: AppContext, *, refresh: bool = False) -> dict[str, Any]:
    """The agency's calendar fields: from the cache when it is younger than AGENCY_TTL, else read."""
    path = cache_path(app)
    if not refresh and path is not None:
        kept = _read(path)
        if kept is not None:
            return kept
    record = app.client.get_agency()
    remember(app, record)
    return {name: record.get(name) for name in FIELDS}


def remember(app: AppContext, record: dict[str, Any]) -> None:
    """Keep the agency's calendar fields (only those: no contact details) for AGENCY_TTL; best effort."""
    path = cache_path(app)
    if path is None:
        return
    from wfctl.fsutil import LocalWriteError, write_private_file

    data = {"at": time.time(), "fields": {k: record.get(k) for k in FIELDS}}
    with contextlib.suppress(LocalWriteError, OSError):  # a cache: the next run reads the agency again
        write_private_file(path, json.dumps(data).encode("utf-8"))


def cache_path(app: AppContext) -> Path | None:
    """The cache file of this profile and service, or None when the settings name no service yet."""
    from wfctl.dirs import cache_dir

    try:
        settings = app.settings
    except Exception:  # a broken config is reported by the read that follows, not here
        return None
    base_url = getattr(settings, "base_url", None)
    if not base_url:
        return None
    key = f"{settings.profile}|{base_url}"
    return cache_dir() / f"agency-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def holidays_cache() -> Path:
    """Where the bank holidays computed by the `holidays` library are kept (wfctl.payroll.bankholidays)."""
    from wfctl.dirs import cache_dir

    return cache_dir() / "bank-holidays.json"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        at, fields = float(data["at"]), data["fields"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(fields, dict) or not 0 <= time.time() - at < AGENCY_TTL:
        return None
    return fields
