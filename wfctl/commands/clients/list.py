"""wfctl clients list."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("list")
@takes_output(fields=True)
def list_(ctx: typer.Context, branch: recordverbs.BranchOption = None, page: recordverbs.PageNumber = None,
          page_size: recordverbs.PageSize = None, all_pages: recordverbs.AllPages = False, limit: recordverbs.Limit = None,
          output: OutputOptions = AS_CONFIGURED) -> None:
    """List clients, of every branch or of one.

    With --branch only that branch's clients are shown (checked on this side too, so it holds
    on deployments that ignore the filter).

    Examples:
      $ wfctl clients list
      $ wfctl clients list --branch <branch-id> --all
      $ wfctl clients list --limit 25 -o csv
    """
    recordverbs.list_records(ctx, "client", parent=branch, page=page, page_size=page_size, all_pages=all_pages,
                         limit=limit, output=output)
