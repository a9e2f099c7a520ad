"""wfctl imports list."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.imports import app
from wfctl.commands.options import Output, app_context, fmt

COLUMNS = ["run", "kind", "file", "profile", "started", "counts", "state"]


@app.command("list")
def list_runs(ctx: typer.Context, limit: Annotated[int | None, typer.Option(
        "--limit", min=1, help="Show only the newest N runs.", metavar="<n>")] = None,
        output: Output = None) -> None:
    """List the recent runs of the profile, newest first.

    Each run: its id, kind, file, profile, start time, row counts and state: complete, interrupted (stopped
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
    out.records([_row(run.summary()) for run in runs], columns=COLUMNS)
    if not runs:
        app_.io.note("no runs yet in this profile: `wfctl sites import FILE` makes one")


def _row(summary: dict[str, object]) -> dict[str, object]:
    counts = summary["counts"]
    assert isinstance(counts, dict)
    return {**summary, "file": f"undo of {summary['undo']}" if summary["undo"] else summary["file"] or "",
            "counts": ", ".join(f"{name} {count}" for name, count in counts.items() if count) or "-"}
