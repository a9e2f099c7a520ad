"""wfctl bans remove."""

from __future__ import annotations

import typer

from wfctl.commands import bulkoptions as bulk
from wfctl.commands import scopeoptions as scope
from wfctl.commands.bans import options as opt
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("remove")
@takes_output()
def remove(ctx: typer.Context, workers: opt.Workers, client: scope.Client = None, branch: scope.Branch = None,
        all_clients: scope.AllClients = False, site: scope.Site = None, note: opt.Note = None,
        dry_run: opt.DryRun = False, yes: opt.Yes = False, concurrency: opt.Concurrency = 64,
        journal: bulk.Journal = None, output: OutputOptions = AS_CONFIGURED) -> int:
    """Lift the bans on workers at every site in scope that bans them.

    The inverse of `wfctl bans add`, planned, journalled and undone the same way: each site is read
    again just before its update and the ids taken off its list as it is then (anyone else's bans
    stay), and `wfctl imports undo <run-id>` bans them again where this run lifted them. On a
    terminal a run changing more than 10 sites asks first (--yes does not).

    Examples:
      $ wfctl bans remove W-20417 --client "Pennine Foods Ltd" --dry-run
      $ wfctl bans remove W-20417 --all-clients --note "cleared on appeal" --yes
    """
    from wfctl.drivers.bansrun import checked_workers, run_bans
    from wfctl.drivers.sitescope import Scope, check_scope

    ids = checked_workers(workers)
    check_scope(client, branch, all_clients, site)
    return run_bans(app_context(ctx), "remove", ids, Scope(list(client or []), list(branch or []), all_clients,
                                                        list(site or [])),
                    dry_run=dry_run, yes=yes, concurrency=concurrency, journal_path=journal, note=note,
                    output=output.format)
