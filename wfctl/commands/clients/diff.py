"""wfctl clients diff."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.completion_cache import complete_branch_ids


@verb("diff")
@takes_output()
def diff_clients(
    ctx: typer.Context,
    file: bulk.DiffFile = None,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="Compare the clients of this branch: its id, the beginning of the id, or its name "
        "(default: every client).", metavar="<branch-id>", rich_help_panel=bulk.INPUT_PANEL,
        autocompletion=complete_branch_ids)] = None,
    from_profile: bulk.FromProfile = None,
    field_map: bulk.Map = None,
    ignore_fields: bulk.IgnoreFields = None,
    ignore_ids: bulk.IgnoreIds = False,
    delimiter: bulk.Delimiter = None,
    sheet: bulk.Sheet = None,
    concurrency: bulk.DiffConcurrency = 16,
    markdown: bulk.Markdown = False,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Compare clients with a file or another profile, sending nothing.

    Works like `wfctl sites diff`: the file is planned as `wfctl clients import FILE --on-existing
    update --dry-run` plans it; clients only in the file, only in the service (of --branch, or of every
    branch), and those that differ, field by field. Exit 0 when nothing differs, 1 when something does.

    Examples:
      $ wfctl clients diff clients.csv
      $ wfctl clients diff clients.csv --branch "Leeds Riverside" -o json
      $ wfctl clients diff --from-profile staging --branch "Leeds Riverside"
    """
    from wfctl.commands.driftrun import ReadOptions, ScopeArgs, run_diff

    return run_diff(app_context(ctx), "client", file, ScopeArgs(branch=branch),
                    ReadOptions(delimiter, sheet, ignore_ids, ignore_fields, concurrency, list(field_map or ())),
                    from_profile=from_profile, output=output.format, markdown=markdown)
