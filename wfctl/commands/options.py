"""Options shared by many commands, declared once (like gh's cmdutil.AddJSONFlags)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

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


def read_json_input(path: str, option: str) -> Any:
    """The JSON document in file `path` (`-` is stdin) given to `option`; a problem is one line, exit 2."""
    import json
    import sys

    from wfctl.errors import CliError

    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8-sig") as handle:
                text = handle.read()
    except OSError as exc:
        raise CliError(f"{option}: cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{option} {path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
