"""wfctl sites list."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("list")
@takes_output(fields=True)
def list_(ctx: typer.Context, client: recordverbs.ClientOption = None, page: recordverbs.PageNumber = None,
          page_size: recordverbs.PageSize = None, all_pages: recordverbs.AllPages = False, limit: recordverbs.Limit = None,
          output: OutputOptions = AS_CONFIGURED) -> None:
    """List the sites of a client.

    List items carry the site's contact fields; `wfctl sites get` shows rates, departments,
    documents and banned workers.

    Examples:
      $ wfctl sites list --client <client-id>
      $ wfctl sites list --client <client-id> --all -o jsonl
      $ wfctl sites list --client <client-id> -o csv > sites.csv
    """
    recordverbs.list_records(ctx, "site", parent=client, page=page, page_size=page_size, all_pages=all_pages,
                         limit=limit, output=output)
