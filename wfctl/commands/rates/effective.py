"""`rates set --effective DATE` and `--floor nlw`: the pay week a change lands in, the statutory rate of a date,
and the refusal to send before that week starts."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError

if TYPE_CHECKING:
    from wfctl.context import AppContext


def effective_change(app: AppContext, effective: str | None, floor: str | None, *, now: bool,
                     dry_run: bool, today: dt.date | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """(where the change lands, or None without --effective; the --floor amount, `nlw` made a number).

    Refuses (exit 2, nothing read or sent) a run before the week it lands in starts, unless `now` or
    `dry_run`; says on stderr which statutory rate `--floor nlw` is."""
    from wfctl.commands.calendar.common import parse_date
    from wfctl.payroll import statutory
    from wfctl.payroll.calendar import WEEKDAYS, effective_week

    today = today or dt.date.today()
    if now and effective is None:
        raise CliError("--now goes with --effective DATE (a change without a date is sent when it runs)")
    lands: dict[str, Any] | None = None
    day = today
    if effective is not None:
        from wfctl.commands.agencycalendar import calendar_for

        day = parse_date(effective, "--effective")
        week = effective_week(calendar_for(app), day)
        lands = {"effective": day.isoformat(), **{k: v for k, v in week.fields().items() if k != "holidayYear"},
                 "statement": f"lands in {week.describe()}"}
        if not dry_run and today < week.commencing:
            if not now:
                days = (week.commencing - today).days
                raise CliError(f"this change {lands['statement']}: it may be sent from {WEEKDAYS[week.commencing.weekday()]} "
                               f"{week.commencing} (in {days} day{'s' if days != 1 else ''}); run the same command then, "
                               "or add --now to send it now; nothing was sent")
            app.io.write_err(f"sending now (--now), before the week this change lands in: {week.describe()}\n")
    if floor is not None and statutory.is_statutory(floor):
        try:
            amount, since, band = statutory.rate_on(floor, day)
        except statutory.StatutoryError as exc:
            raise CliError(str(exc)) from None
        app.io.write_err(f"--floor {floor.strip()} is {amount} an hour: the statutory rate for those "
                         f"{statutory.BAND_NAMES[band]} in force on {day} (since {since}; `wfctl help rates`)\n")
        floor = str(amount)
        if lands is not None:
            lands["floor"] = {"band": band, "hourlyRate": float(amount), "since": since.isoformat()}
    return lands, floor
