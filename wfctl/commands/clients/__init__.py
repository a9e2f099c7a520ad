"""Manage clients."""

import typer

HELP = """Manage clients.

A client is a company that requests workers; it belongs to one branch and has sites.

Examples:
  $ wfctl clients list --branch <branch-id>
  $ wfctl clients create --name "Harbour Logistics" --branch <branch-id>
  $ wfctl clients get <client-id> -o json
"""

app = typer.Typer(help=HELP, short_help="Manage clients.", no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.clients import create, delete, diff, edit, export, get, import_, list, update  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, create, delete, diff, edit, export, get, import_, list, update)
