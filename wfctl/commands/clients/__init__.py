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

# Each verb module registers its command on `app` when imported.
from wfctl.commands.clients import create, delete, export, get, import_, list, update  # noqa: E402,F401
