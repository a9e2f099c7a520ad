"""Ban a worker across a client's sites, see where a worker is banned, and the bans of a client."""

import typer

HELP = """Ban a worker across a client's sites, a branch or the agency, and see where they are banned.

The service bans a worker per site (a site's bannedWorkers); a do-not-rehire decision is per client,
per branch or agency-wide. `add` bans worker ids at every site in scope that lacks them, `remove`
lifts the bans: --dry-run shows the plan, a run is journalled like an import, and
`wfctl imports undo <run-id>` takes back the ids the run added or removed (a ban someone else made
stays). `where` lists every site where a worker is banned; `list` the bans of a client, one row a
worker, with those banned at some of its sites but not all flagged. The how-to: `wfctl help payroll`.

Scope, for every command: --client (repeatable), --branch, --all-clients or --site (repeatable);
`where` looks over the whole agency when none is given.

Examples:
  $ wfctl bans add W-20417 --client "Pennine Foods Ltd" --dry-run
  $ wfctl bans where W-20417
  $ wfctl bans list --client "Pennine Foods Ltd"
"""

app = typer.Typer(help=HELP, short_help="Ban a worker across a client's sites; see where they are banned.",
                  no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.bans import add, list, remove, where  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, add, remove, where, list)
