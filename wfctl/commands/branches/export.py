"""wfctl branches export."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("export")
@takes_output()
def export_branches(ctx: typer.Context, file: bulk.ExportFile = None,
                    output: OutputOptions = AS_CONFIGURED) -> int:
    """Write every branch as CSV in the import format.

    The columns are name, address, phone and email; `wfctl branches import` reads the file back.
    Cells a spreadsheet would run as a formula get a leading ', which import removes again.

    Examples:
      $ wfctl branches export > branches.csv
      $ wfctl branches export --file branches.csv
      $ wfctl branches export --jq '.[] | select(.email == "") | .name'
    """
    from wfctl.drivers.exportrun import run_export

    return run_export(app_context(ctx), "branch", parent_ids=None, all_parents=False, file=file,
                      concurrency=1, output=output)
