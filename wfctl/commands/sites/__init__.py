"""Manage client sites: rates, departments, banned workers."""

import typer

app = typer.Typer(help="Manage client sites: rates, departments, banned workers.", no_args_is_help=True, rich_markup_mode=None)

# Each verb module registers its command on `app` when imported.
from wfctl.commands.sites import create, delete, export, get, import_, list, update  # noqa: E402,F401
