"""Manage clients."""

import typer

app = typer.Typer(help="Manage clients.", no_args_is_help=True, rich_markup_mode=None)

# Verb modules register themselves on `app` when imported, e.g.:
# from wfctl.commands.clients import create, delete, get, list, update  # noqa: E402,F401
