"""wfctl bans where."""

from __future__ import annotations

import typer

from wfctl.commands import scopeoptions as scope
from wfctl.commands.bans import options as opt
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

COLUMNS = ["worker", "siteId", "site", "clientId", "client", "branchId", "branch"]
#: A table on a terminal: what a person reads (the ids: -o wide, csv or json).
TERMINAL_COLUMNS = ["worker", "site", "client", "branch"]


@verb("where")
@takes_output()
def where(ctx: typer.Context, workers: opt.Workers, client: scope.Client = None, branch: scope.Branch = None,
          all_clients: scope.AllClients = False, site: scope.Site = None,
          concurrency: scope.ReadConcurrency = 16, output: OutputOptions = AS_CONFIGURED) -> None:
    """List every site where workers are banned, with its client and branch.

    Looks over the whole agency, or the scope given. Columns: worker, siteId, site, clientId, client,
    branchId, branch; a table on a terminal shows the names. Every site's full record is read (site
    lists carry no bans), 16 at once, as `wfctl sites export` reads them.

    Examples:
      $ wfctl bans where W-20417
      $ wfctl bans where W-20417 W-20418 -o csv > banned.csv
      $ wfctl bans where W-20417 --client "Pennine Foods Ltd" -o json
    """
    from concurrent.futures import ThreadPoolExecutor

    from wfctl.api.domain import bans
    from wfctl.api.domain.banreads import client_branches
    from wfctl.drivers.bansrun import checked_workers
    from wfctl.drivers.sitescope import check_scope, read_scope

    ids = checked_workers(workers)
    everywhere = not (client or branch or all_clients or site)
    check_scope(client, branch, all_clients or everywhere, site)
    app_ = app_context(ctx)
    out = output.writer(app_)
    with ThreadPoolExecutor(1, thread_name_prefix="wfctl-branches") as pool:
        branches = pool.submit(client_branches, app_.client)  # beside the sites, not after them
        cased: dict[str, str] = {}
        rows = bans.where(read_scope(app_, client, branch, all_clients or everywhere, site, concurrency), ids,
                          cased)
        of_client = branches.result()
    for asked, held in cased.items():  # ids are compared exactly: the one the service holds, said in a pipe too
        app_.io.warn(f"no site in scope bans {asked}, and {held} is banned (ids are compared exactly, in their "
                     f"case): wfctl bans where {held}")
    for row in rows:
        row["branchId"], row["branch"] = of_client.get(row["clientId"], ("", ""))
    terminal = out.format == "table" and app_.io.stdout_is_tty
    out.records(rows, columns=TERMINAL_COLUMNS if terminal else COLUMNS)
    if terminal:
        app_.io.note("ids of sites, clients and branches: -o wide, csv or json" if rows else
                     f"{'no worker asked for is' if len(ids) > 1 else ids[0] + ' is'} banned at no site in scope")
