"""wfctl login (placeholder: replaced by the login work)."""

import typer


def login(ctx: typer.Context) -> None:
    """Not yet written."""
    raise typer.Exit(1)
