"""Manage branches of your agency."""

import typer

app = typer.Typer(help="Manage branches of your agency.", no_args_is_help=True, rich_markup_mode=None)

# Each verb module registers its command on `app` when imported.
from wfctl.commands.branches import create, delete, export, get, import_, list, update  # noqa: E402,F401
