"""Manage client sites: rates, departments, banned workers."""

import typer

app = typer.Typer(help="Manage client sites: rates, departments, banned workers.", no_args_is_help=True, rich_markup_mode=None)

# Verb modules register themselves on `app` when imported, e.g.:
# from wfctl.commands.sites import create, delete, get, list, update  # noqa: E402,F401
