"""wfctl imports list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from wfctl.commands.imports import app
from wfctl.commands.options import Output, app_context, fmt

if TYPE_CHECKING:
    from wfctl.context import AppContext

COLUMNS = ["run", "kind", "file", "started", "counts", "state"]
#: Never wrapped on a terminal (ids, times and states are read and copied whole); file and counts give way.
WHOLE = ("run", "kind", "started", "state")


@app.command("list")
def list_runs(ctx: typer.Context, limit: Annotated[int | None, typer.Option(
        "--limit", min=1, help="Show only the newest N runs.", metavar="<n>")] = None,
        output: Output = None) -> None:
    """List the recent runs of the profile, newest first.

    Each run: its id, kind, file, start time, row counts and state: complete, interrupted (stopped
    before the end: run the same import again to resume it), running, undone or partly undone
    (`wfctl imports undo` took all or some of it back). An undo run's file reads `undo of <run-id>`.

    Examples:
      $ wfctl imports list
      $ wfctl imports list --limit 5
      $ wfctl imports list -o json
    """
    from wfctl.bulk.undo import profile_runs

    app_ = app_context(ctx)
    out = app_.output(fmt(output))
    runs = profile_runs(app_.settings.profile)[:limit]
    if out.format in ("json", "jsonl"):
        out.records([run.summary() for run in runs])
        return
    profile = app_.settings.profile
    if not runs:
        app_.io.note(f"no runs yet in profile {profile}: `wfctl sites import FILE` makes one")
        return
    app_.io.note(f"runs of profile {profile}, newest first")
    rows = [_row(run.summary()) for run in runs]
    if app_.io.stdout_is_tty and out.format == "table":
        _terminal_table(app_, rows)
    else:
        out.records(rows, columns=COLUMNS)


def _terminal_table(app_: AppContext, rows: list[dict[str, object]]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from wfctl.safetext import one_line

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold" if app_.io.color else None)
    for name in COLUMNS:
        table.add_column(name, no_wrap=name in WHOLE, overflow="fold")
    for row in rows:
        table.add_row(*(Text(one_line(str(row[name]))) for name in COLUMNS))
    console = app_.io.console
    with console.capture() as capture:
        console.print(table)
    app_.io.write("".join(line.rstrip() + "\n" for line in capture.get().splitlines()))


def _row(summary: dict[str, object]) -> dict[str, object]:
    counts = summary["counts"]
    assert isinstance(counts, dict)
    return {**summary, "file": f"undo of {summary['undo']}" if summary["undo"] else summary["file"] or "",
            "counts": ", ".join(f"{name} {count}" for name, count in counts.items() if count) or "-"}
