"""Read and change settings in the config file."""

import typer

app = typer.Typer(help="Read and change settings in the config file.", no_args_is_help=True, rich_markup_mode=None)

from wfctl.commands.config import get, list, set, unset  # noqa: E402,F401
