"""wfctl clients export."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context, resolve_refs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("export")
@takes_output()
def export_clients(
    ctx: typer.Context,
    branch: Annotated[list[str] | None, typer.Option(
        "--branch", help="Export the clients of this branch: its id, the beginning of the id, or its name "
        "(repeatable; default: every client).",
        metavar="<branch-id>", rich_help_panel=bulk.INPUT_PANEL, autocompletion=complete_branch_ids)] = None,
    file: bulk.ExportFile = None,
    concurrency: bulk.ExportConcurrency = 16,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Write clients as CSV in the import format, billing addresses included.

    List items carry no billing address, so each client is read in full (--concurrency at a time).
    The `branchId` column keeps each client's branch, so `wfctl clients import` reads the file back.

    Examples:
      $ wfctl clients export > clients.csv
      $ wfctl clients export --branch <branch-id> --file clients.csv
    """
    from wfctl.drivers.exportrun import run_export

    parents: list[str | None] = [*resolve_refs(ctx, "branch", branch, check=True)]
    return run_export(app_context(ctx), "client", parent_ids=parents, all_parents=False,
                      file=file, concurrency=concurrency, output=output)
