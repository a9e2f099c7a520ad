"""wfctl api (placeholder)."""

import typer


def api(ctx: typer.Context) -> None:
    """Not yet written."""
    raise typer.Exit(1)
