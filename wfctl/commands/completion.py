"""wfctl completion (placeholder)."""

import typer


def completion(ctx: typer.Context) -> None:
    """Not yet written."""
    raise typer.Exit(1)
