"""wfctl sites copy."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_client_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import Yes, app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("copy")
@takes_output()
def copy_sites(
    ctx: typer.Context,
    from_profile: Annotated[str, typer.Option(
        "--from-profile", help="Copy from the same client in this profile's deployment.", metavar="PROFILE",
        rich_help_panel=bulk.INPUT_PANEL)],
    client: Annotated[str, typer.Option(
        "--client", help="The client, by a reference that names it in both profiles (its name, usually).",
        metavar="<client>", rich_help_panel=bulk.INPUT_PANEL, autocompletion=complete_client_ids)],
    field_map: bulk.Map = None,
    dry_run: bulk.DryRun = False,
    yes: Yes = False,
    concurrency: bulk.Concurrency = 8,
    report: bulk.Report = None,
    journal: bulk.Journal = None,
    accept_spreadsheet_changes: bulk.AcceptSpreadsheetChanges = False,
    prune: bulk.Prune = False,
    max_deletes: bulk.MaxDeletes = 10,
    max_delete_share: bulk.MaxDeleteShare = "25%",
    allow_deletes: bulk.AllowDeletes = None,
    skip_misplaced: bulk.SkipMisplaced = False,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Make a client's sites here equal to another profile's.

    The other profile's sites are read as `wfctl sites export` reads them, --map applied, and imported
    here as `wfctl sites import - --client <client> --ignore-ids --on-existing update` imports them:
    sites matched by name are updated, missing ones created; a site only here is left alone unless
    --prune, which deletes it with `import --prune`'s guards (--max-deletes, --max-delete-share,
    --allow-deletes; exit 12). The run is journalled like any import: killed, it resumes when run again; `wfctl
    imports undo` takes it back. On a terminal the plan is shown and asked about; elsewhere give --yes.
    Refused when both profiles reach the same agency of the same service and the same client.

    Examples:
      $ wfctl sites copy --from-profile staging --client "Pennine Foods Ltd" --dry-run
      $ wfctl sites copy --from-profile staging --client "Pennine Foods Ltd" --map email:@staging.example=@example.com
      $ wfctl -p production sites copy --from-profile staging --client "Pennine Foods Ltd" --yes
      $ wfctl sites copy --from-profile staging --client "Pennine Foods Ltd" --prune --dry-run
    """
    from wfctl.drivers import prunerun
    from wfctl.drivers.driftrun import ReadOptions, ScopeArgs, run_copy

    pruning = prunerun.settings(None, prune=prune, max_deletes=max_deletes, max_delete_share=max_delete_share,
                                allow_deletes=allow_deletes, yes=yes, dry_run=dry_run, skip_misplaced=skip_misplaced)
    return run_copy(app_context(ctx), "site", from_profile, ScopeArgs((client,)),
                    ReadOptions(concurrency=concurrency, maps=list(field_map or ())), dry_run=dry_run, yes=yes,
                    report=report, journal=journal, output=output.format,
                    accept_spreadsheet_changes=accept_spreadsheet_changes, prune=pruning if prune else None)
