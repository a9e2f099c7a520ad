"""wfctl imports list."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

COLUMNS = ["run", "kind", "file", "started", "counts", "state"]
# On a terminal (wfctl.render.output, kind "run"): one line a run; ids, times and states whole; file (its end
# kept) and counts shortened with '…', then kind and started left out, at 80 columns.


@verb("list")
@takes_output()
def list_runs(ctx: typer.Context, limit: Annotated[int | None, typer.Option(
        "--limit", min=1, help="Show only the newest N runs.", metavar="<n>")] = None,
        output: OutputOptions = AS_CONFIGURED) -> None:
    """List the recent runs of the profile, newest first.

    Each run: its id, kind, file, start time, row counts and state: complete, interrupted (stopped
    before the end: run the same import again to resume it), running, undone or partly undone
    (`wfctl imports undo` took all or some of it back). An undo run's file reads `undo of <run-id>`.

    Examples:
      $ wfctl imports list
      $ wfctl imports list --limit 5
      $ wfctl imports list -o json
    """
    from wfctl.runs.undo import profile_runs

    app_ = app_context(ctx)
    out = output.writer(app_)
    runs = profile_runs(app_.settings.profile)[:limit]
    if out.structured:
        out.records([run.summary() for run in runs])
        return
    profile = app_.settings.profile
    if not runs:
        app_.io.note(f"no runs yet in profile {profile}: `wfctl sites import FILE` makes one")
        return
    app_.io.note(f"runs of profile {profile}, newest first")
    rows = [_row(run.summary()) for run in runs]
    out.records(rows, "run", columns=COLUMNS)  # on a terminal one line a run, the file's end kept (output.py)


def _row(summary: dict[str, object]) -> dict[str, object]:
    counts = summary["counts"]
    assert isinstance(counts, dict)
    return {**summary, "file": f"undo of {summary['undo']}" if summary["undo"] else summary["file"] or "",
            "counts": ", ".join(f"{name} {count}" for name, count in counts.items() if count) or "-"}
