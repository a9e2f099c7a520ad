"""wfctl imports prune."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.errors import CliError


@verb("prune")
@takes_output()
def prune(ctx: typer.Context, older_than: Annotated[str, typer.Option(
        "--older-than", help="Remove the runs that started longer ago than this: 30d, 12h, 90m, 2w.",
        metavar="<age>")],
        dry_run: Annotated[bool, typer.Option("--dry-run", help="List the runs it would remove; remove nothing.")]
        = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Remove the journals of old runs.

    A run's age is its start time (the journal's mtime when that is missing). A running run is never
    removed. Once removed, a run can no longer be shown, resumed or undone.

    Examples:
      $ wfctl imports prune --older-than 30d --dry-run
      $ wfctl imports prune --older-than 30d
    """
    import os
    import time

    from wfctl.runs.undo import parse_age, profile_runs, prunable

    try:
        age = parse_age(older_than)
    except ValueError as exc:
        raise CliError(f"--older-than: {exc}") from None
    app_ = app_context(ctx)
    out = output.writer(app_)
    runs = profile_runs(app_.settings.profile)
    old = prunable(runs, age, time.time())
    removed = []
    for run in old:
        if not dry_run:
            try:
                os.unlink(run.path)
            except FileNotFoundError:
                continue
        removed.append({"run": run.id, "kind": run.kind, "started": run.started or None, "file": run.path})
    if removed or out.structured:
        out.records(removed, columns=["run", "kind", "started", "file"])
    verb = "would remove" if dry_run else "removed"
    if not removed:
        kept = len(runs)
        app_.io.note(f"no run of profile {app_.settings.profile} started more than {older_than} ago: nothing "
                     f"{'would be removed' if dry_run else 'removed'} ({kept} run{'s' if kept != 1 else ''} kept)")
        return
    app_.io.note(f"{verb} {len(removed)} run{'s' if len(removed) != 1 else ''} older than {older_than}")
