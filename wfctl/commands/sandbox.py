"""wfctl sandbox (placeholder)."""

import typer

app = typer.Typer(help="Not yet written.", no_args_is_help=True, rich_markup_mode=None)
