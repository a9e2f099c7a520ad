"""wfctl imports show."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.imports.runid import RunId
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("show")
@takes_output()
def show(ctx: typer.Context, run_id: Annotated[str, RunId],
         all_rows: Annotated[bool, typer.Option("--all", help="Every row on a terminal too (a terminal shows "
                                                "the first 10 and the counts).")] = False,
         output: OutputOptions = AS_CONFIGURED) -> None:
    """Show what each row of a run did.

    One block per row that changed something (or failed): its row number in the file, the action,
    the record's name and id, and each changed field's old and new value; unchanged and skipped rows
    are only counted, in the last lines. A terminal shows the first 10 rows and how many more (--all
    shows every one; a pipe gets every one). -o jsonl gives one object per row, -o json
    {"rows": [...], "summary": {...}}: the shapes of the import plan (docs/imports.md).

    Examples:
      $ wfctl imports show <run-id>
      $ wfctl imports show <run-id> -o jsonl
      $ wfctl imports show <run-id> -o json | jq '.rows[] | select(.action == "update")'
    """
    from wfctl.drivers.bulkrun import write_plan_rows
    from wfctl.runs.journal import iter_entries
    from wfctl.runs.undo import count_lines, find_profile_run, heading
    from wfctl.views import planview as plan

    app_ = app_context(ctx)
    out = output.writer(app_)
    run = find_profile_run(app_.settings.profile, run_id)
    io = app_.io
    rows = plan.changing(iter_entries(run.entries()))
    if out.structured or out.shaped:
        write_plan_rows(out, rows, run.summary())
        return
    from wfctl.views.shortview import write_rows

    io.write(heading(run))
    write_rows(io.write, run.kind, rows, terminal=io.stdout_is_tty, shorten=io.stdout_is_tty and not all_rows,
               hint=f"`wfctl imports show {run.id} --all` shows every one, `-o jsonl` one per line")
    io.write(count_lines(run.counts, run.undo_of is not None))
