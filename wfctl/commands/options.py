"""Options shared by many commands, declared once (like gh's cmdutil.AddJSONFlags)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from wfctl.context import AppContext


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


OUTPUT_PANEL = "Output"

Output = Annotated[
    OutputFormat | None,
    typer.Option("--output", "-o", help="Output format: table, json, jsonl or csv.",
                 rich_help_panel=OUTPUT_PANEL, show_default=False),
]
Fields = Annotated[
    str | None,
    typer.Option("--fields", help="Comma-separated fields to show, e.g. id,name,email.",
                 rich_help_panel=OUTPUT_PANEL, metavar="<a,b,c>"),
]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and print what would be sent; send nothing.")]


def app_context(ctx: typer.Context) -> AppContext:
    """The AppContext built by the root callback."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):  # a command invoked without the root app (tests of one command)
        from wfctl.context import GlobalOptions

        obj = AppContext(GlobalOptions())
        ctx.find_root().obj = obj
    return obj


def fmt(output: OutputFormat | None) -> str | None:
    return output.value if output is not None else None
