"""wfctl branches diff."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("diff")
@takes_output()
def diff_branches(
    ctx: typer.Context,
    file: bulk.DiffFile = None,
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
    """Compare branches with a file or another profile, sending nothing.

    Works like `wfctl sites diff`: the file is planned as `wfctl branches import FILE --on-existing
    update --dry-run` plans it; branches only in the file, only in the service, and those that differ,
    field by field. Exit 0 when nothing differs, 1 when something does.

    Examples:
      $ wfctl branches diff branches.csv
      $ wfctl branches diff branches.csv --markdown
      $ wfctl branches diff --from-profile staging --map email:@staging.example=@example.com
    """
    from wfctl.commands.driftrun import ReadOptions, ScopeArgs, run_diff

    return run_diff(app_context(ctx), "branch", file, ScopeArgs(),
                    ReadOptions(delimiter, sheet, ignore_ids, ignore_fields, concurrency, list(field_map or ())),
                    from_profile=from_profile, output=output.format, markdown=markdown)
