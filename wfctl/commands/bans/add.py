"""wfctl bans add."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands import scopeoptions as scope
from wfctl.commands.bans import options as opt
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("add")
@takes_output()
def add(ctx: typer.Context, workers: opt.Workers, client: scope.Client = None, branch: scope.Branch = None,
        all_clients: scope.AllClients = False, site: scope.Site = None, note: opt.Note = None,
        dry_run: opt.DryRun = False, yes: opt.Yes = False, concurrency: opt.Concurrency = 64,
        journal: bulk.Journal = None, output: OutputOptions = AS_CONFIGURED) -> int:
    """Ban workers at every site in scope that does not ban them yet.

    Every site in scope is read and the plan made before anything is sent. Each site is read again
    just before its update and the ids added to its list as it is then, and read back: a ban someone
    else added meanwhile stays. A run is journalled like an import: `run <id>:` ends it, a killed run
    resumes when the same command runs again (no site is changed twice), exit 10 when some sites
    failed, and `wfctl imports undo <run-id>` lifts the bans this run added (only those). On a
    terminal a run changing more than 10 sites asks first (--yes does not). The service keeps no
    reason: --note keeps yours in the local journal.

    Examples:
      $ wfctl bans add W-20417 --client "Pennine Foods Ltd" --dry-run
      $ wfctl bans add W-20417 W-20418 --client "Pennine Foods Ltd" --note "timesheet fraud, case 114"
      $ wfctl bans add W-20417 --branch "Leeds Riverside" --yes -o json
      $ wfctl bans add W-20417 --all-clients --dry-run -o csv
    """
    from wfctl.drivers.bansrun import checked_workers, run_bans
    from wfctl.drivers.sitescope import Scope, check_scope

    ids = checked_workers(workers)
    check_scope(client, branch, all_clients, site)
    return run_bans(app_context(ctx), "add", ids, Scope(list(client or []), list(branch or []), all_clients,
                                                        list(site or [])),
                    dry_run=dry_run, yes=yes, concurrency=concurrency, journal_path=journal, note=note,
                    output=output.format)
