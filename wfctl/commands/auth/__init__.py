"""Show and use the stored login."""

import typer

app = typer.Typer(help="Show and use the stored login.", no_args_is_help=True, rich_markup_mode=None)

from wfctl.commands.auth import status, token  # noqa: E402,F401
