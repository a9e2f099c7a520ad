"""wfctl doctor (placeholder)."""

import typer


def doctor(ctx: typer.Context) -> None:
    """Not yet written."""
    raise typer.Exit(1)
