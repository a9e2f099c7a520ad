"""The agency's pay calendar: pay weeks, week-ending dates, bank holidays and timesheet deadlines."""

import typer

HELP = """The agency's pay calendar: pay weeks, week-ending dates, bank holidays and timesheet deadlines.

Weeks start on the agency's workWeekStart (Monday-Sunday, Sunday-Saturday or any weekday) and are
numbered in its calendar year; a week belongs to the calendar and holiday year of its week-ending
date. The agency is read once and kept for an hour (--refresh reads it again); --week-start,
--year-start and --holiday-year-start ask "what if" without changing it. The how-to for payroll and
rates people: `wfctl help payroll`.

Examples:
  $ wfctl calendar week
  $ wfctl calendar weeks --from 2026-04-01 --to 2027-03-31 --deadline 'Mon 12:00' -f pay-calendar.xlsx
  $ wfctl calendar effective 2026-04-01
  $ wfctl calendar check || echo "the calendar needs a look"
"""

app = typer.Typer(help=HELP, short_help="The agency's pay calendar: pay weeks, bank holidays, deadlines.",
                  no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.calendar import check, effective, week, weeks  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, week, weeks, effective, check)
