"""wfctl sites import."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids, complete_client_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context, resolve_ref
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("import")
@takes_output()
@bulk.takes_prune_limits()
@bulk.takes_import_run()
def import_sites(
    ctx: typer.Context,
    file: bulk.File,
    client: Annotated[str | None, typer.Option(
        "--client", help="Put every row in this client: its id, the beginning of the id, or its name. A "
        "row whose clientId or client column names another client stops the run (--ignore-ids: a copy).", rich_help_panel=bulk.INPUT_PANEL, metavar="<client-id>",
        autocompletion=complete_client_ids)] = None,
    run: bulk.ImportRun = bulk.IMPORT_RUN,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="With --prune: the scope is every client of this branch (its id, the beginning of the "
        "id, or its name); rows name their client.", rich_help_panel=bulk.PRUNE_PANEL, metavar="<branch-id>",
        autocompletion=complete_branch_ids)] = None,
    all_clients: bulk.AllClients = False,
    limits: bulk.PruneLimits = bulk.PRUNE_LIMITS,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Create or update sites from a workbook (.xlsx) or CSV file.

    Every row is validated and every client reference resolved before anything is sent; an invalid
    row stops the run (exit 2). A site whose client already has one of that name is skipped, updated
    or an error, as --on-existing says. A killed run resumes where it stopped when started again with
    the same file; exit 10 when some rows failed (the others were done).

    --prune also deletes the sites of the scope (--client, --branch, --all-clients) that no row keeps:
    every delete is listed first; more than --max-deletes (10) or --max-delete-share (25%) of the
    scope's sites refuses with exit 12 unless --allow-deletes gives the exact number; `wfctl imports
    undo` re-creates what a prune deleted (with new ids).

    The CSV format: run `wfctl help csv`.

    Examples:
      $ wfctl sites import sites.csv --client <client-id>
      $ wfctl sites import sites.csv --dry-run
      $ wfctl sites import sites.csv --on-existing update --concurrency 16 --report result.csv
      $ wfctl sites export --client <client-id> | wfctl sites import - --client <other-client-id> --ignore-ids
      $ wfctl sites import pennine.csv --client "Pennine Foods Ltd" --prune --dry-run
      $ wfctl sites import leeds.csv --branch "Leeds Riverside" --prune --yes --allow-deletes 37
    """
    from wfctl.commands.importverb import import_file
    from wfctl.drivers import prunerun
    from wfctl.files.reader import check_path

    check_path(file)  # a file that is not there is said at once, before a reference is looked up
    if client:
        client = resolve_ref(ctx, "client", client)
    scope = prunerun.declare_scope(app_context(ctx), "site", prune=run.prune, clients=[client] if client else [],
                                   branch=branch, every=all_clients, every_option="--all-clients")
    return import_file(app_context(ctx), "site", file, parent_id=client, scope=scope, run=run, limits=limits,
                       output=output)
