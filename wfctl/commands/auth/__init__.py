"""Show and use the stored login."""

import typer

app = typer.Typer(help="Show and use the stored login.", no_args_is_help=True, rich_markup_mode=None)

# Verb modules register themselves on `app` when imported, e.g.:
# from wfctl.commands.auth import create, delete, get, list, update  # noqa: E402,F401
