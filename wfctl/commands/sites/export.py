"""wfctl sites export."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_client_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context, resolve_refs
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb
from wfctl.errors import CliError


@verb("export")
@takes_output()
def export_sites(
    ctx: typer.Context,
    client: Annotated[list[str] | None, typer.Option(
        "--client", help="Export the sites of this client: its id, the beginning of the id, or its name "
        "(repeatable).", metavar="<client-id>", rich_help_panel=bulk.INPUT_PANEL,
        autocompletion=complete_client_ids)] = None,
    all_clients: Annotated[bool, typer.Option("--all-clients", help="Export the sites of every client.",
                                              rich_help_panel=bulk.INPUT_PANEL)] = False,
    file: bulk.ExportFile = None,
    concurrency: bulk.ExportConcurrency = 16,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Write sites as CSV in the import format, with rates, departments and banned workers.

    Each site's full record is read (list items lack rates, departments and banned workers).
    Cells a spreadsheet would run as a formula get a leading ' that import removes again. -o json, yaml
    or jsonl, --jq, --sort-by and --columns show the full records instead (`wfctl help queries`).

    Examples:
      $ wfctl sites export --client <client-id> > sites.csv
      $ wfctl sites export --all-clients --file all-sites.csv
      $ wfctl sites export --client <client-id> | wfctl sites import - --client <other-client-id> --ignore-ids
      $ wfctl sites export --all-clients --jq '.[] | select(.rates | length == 0) | .name'
    """
    if bool(client) == all_clients:
        raise CliError("give --client <client-id> or --all-clients")
    from wfctl.drivers.exportrun import run_export

    parents: list[str | None] = [*resolve_refs(ctx, "client", client, check=True)]
    return run_export(app_context(ctx), "site", parent_ids=parents, all_parents=all_clients,
                      file=file, concurrency=concurrency, output=output)
