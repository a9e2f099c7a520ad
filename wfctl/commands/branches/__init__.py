"""Manage branches of your agency."""

import typer

app = typer.Typer(help="Manage branches of your agency.", no_args_is_help=True, rich_markup_mode=None)

# Verb modules register themselves on `app` when imported, e.g.:
# from wfctl.commands.branches import create, delete, get, list, update  # noqa: E402,F401
