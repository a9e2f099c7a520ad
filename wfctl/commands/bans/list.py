"""wfctl bans list."""

from __future__ import annotations

import typer

from wfctl.commands import scopeoptions as scope
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

COLUMNS = ["clientId", "client", "worker", "bannedAt", "sites", "inconsistent"]
#: A table: what a person reads ("3 of 5", the inconsistent ones marked).
TABLE_COLUMNS = ["client", "worker", "banned at", "inconsistent"]


@verb("list")
@takes_output()
def list_bans(ctx: typer.Context, client: scope.Client = None, branch: scope.Branch = None,
              all_clients: scope.AllClients = False, site: scope.Site = None,
              concurrency: scope.ReadConcurrency = 16, output: OutputOptions = AS_CONFIGURED) -> None:
    """List the bans of clients: one row a client and worker banned at any of its sites.

    Columns: clientId, client, worker, bannedAt (the client's sites that ban the worker), sites (the
    client's sites in scope) and inconsistent (true when banned at some of them but not all, which
    `wfctl bans add` mends); -o json adds siteIds. A table shows "3 of 5" and marks the inconsistent.

    Examples:
      $ wfctl bans list --client "Pennine Foods Ltd"
      $ wfctl bans list --all-clients -o csv > bans.csv
      $ wfctl bans list --branch "Leeds Riverside" -o json
    """
    from wfctl.api.domain import bans
    from wfctl.drivers.sitescope import check_scope, read_scope

    check_scope(client, branch, all_clients, site)
    app_ = app_context(ctx)
    out = output.writer(app_)
    rows = bans.client_bans(read_scope(app_, client, branch, all_clients, site, concurrency))
    if out.tabular:
        shown = [{"client": row["client"], "worker": row["worker"], "banned at": f"{row['bannedAt']} of {row['sites']}",
                  "inconsistent": "yes" if row["inconsistent"] else ""} for row in rows]
        out.records(shown, columns=TABLE_COLUMNS)
        split = sum(1 for row in rows if row["inconsistent"])
        if not rows:
            app_.io.note("no worker is banned at any site in scope")
        elif split:
            app_.io.note(f"{split} inconsistent (banned at some sites, not all): `wfctl bans add` mends them")
        return
    out.records(rows if out.structured else [{k: v for k, v in row.items() if k != "siteIds"} for row in rows],
                columns=COLUMNS + (["siteIds"] if out.structured else []))
