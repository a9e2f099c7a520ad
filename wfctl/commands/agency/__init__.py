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

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.agency import edit, show, update  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, edit, show, update)
