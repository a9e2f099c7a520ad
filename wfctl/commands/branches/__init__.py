"""Manage branches of your agency."""

import typer

HELP = """Manage branches of your agency.

A branch groups clients for operations and reporting. Lists come a page at a time (--all for
every page); import and export use the CSV format of `wfctl sites import`.

Examples:
  $ wfctl branches list
  $ wfctl branches create --name "Leeds North" --email leeds-north@northwind.example
  $ wfctl branches export > branches.csv
"""

app = typer.Typer(help=HELP, short_help="Manage branches of your agency.", no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.branches import create, delete, diff, edit, export, get, import_, list, update  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, create, delete, diff, edit, export, get, import_, list, update)
