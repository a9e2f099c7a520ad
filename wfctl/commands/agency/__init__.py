"""Show and update your agency."""

import typer

app = typer.Typer(help="Show and update your agency.", no_args_is_help=True, rich_markup_mode=None)

from wfctl.commands.agency import show, update  # noqa: E402,F401
