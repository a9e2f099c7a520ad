"""Read and change settings in the config file."""

import typer

app = typer.Typer(help="Read and change settings in the config file.", no_args_is_help=True, rich_markup_mode=None)

# Verb modules register themselves on `app` when imported, e.g.:
# from wfctl.commands.config import create, delete, get, list, update  # noqa: E402,F401
