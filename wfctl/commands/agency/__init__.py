"""Show and update your agency."""

import typer

HELP = """Show and update your agency.

The agency is set up by the service operator; you can read its work week, holiday year and
calendar year, and an administrator can change them where the deployment offers it.

Examples:
  $ wfctl agency show
  $ wfctl agency show -o json | jq .holidayYearStart
  $ wfctl agency update --holiday-cap-hours 224
"""

app = typer.Typer(help=HELP, short_help="Show and update your agency.", no_args_is_help=True, rich_markup_mode=None)

from wfctl.commands.agency import show, update  # noqa: E402,F401
