"""wfctl branches list."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("list")
@takes_output(fields=True)
def list_(ctx: typer.Context, page: recordverbs.PageNumber = None, page_size: recordverbs.PageSize = None,
          all_pages: recordverbs.AllPages = False, limit: recordverbs.Limit = None,
          output: OutputOptions = AS_CONFIGURED) -> None:
    """List the branches of your agency.

    Shows one page (10 branches unless --page-size says otherwise); --all streams every page.

    Examples:
      $ wfctl branches list
      $ wfctl branches list --all -o jsonl
      $ wfctl branches list --page 2 --page-size 50 --fields id,name,email
    """
    recordverbs.list_records(ctx, "branch", page=page, page_size=page_size, all_pages=all_pages, limit=limit,
                         output=output)
