"""wfctl logout (placeholder: replaced by the login work)."""

import typer


def logout(ctx: typer.Context) -> None:
    """Not yet written."""
    raise typer.Exit(1)
