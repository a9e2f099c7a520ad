"""The options of the `bans` commands, declared once (typer only: `--help` stays fast); the scope options
are every site command's (wfctl.commands.scopeoptions)."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.scopeoptions import RUN_PANEL, Yes

__all__ = ["Concurrency", "DryRun", "Note", "Workers", "Yes"]

Workers = Annotated[list[str], typer.Argument(
    help="The worker ids, as the service holds them (W-20417); several at once.", metavar="<worker-id>...",
    show_default=False)]
Note = Annotated[str | None, typer.Option(
    "--note", help="Why, in your words: kept in the local journal only (`wfctl imports show <run-id>` shows "
    "it); the service has no field for it.", metavar="<text>", rich_help_panel=RUN_PANEL)]
DryRun = Annotated[bool, typer.Option(
    "--dry-run", help="Print the plan (each site and worker: add, remove, or held already); send nothing.",
    rich_help_panel=RUN_PANEL)]
Concurrency = Annotated[int, typer.Option(
    "--concurrency", "-j", help="Sites changed at once (each is read, written and read back).",
    rich_help_panel=RUN_PANEL, min=1, max=128)]
