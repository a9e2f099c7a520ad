"""See hourly rates across sites and change many at once."""

import typer

HELP = """See hourly rates across sites, and change many at once with a plan you can take back.

Each site holds one hourly rate per skill. `list` shows them, `summary` gives per skill the sites,
minimum, median and maximum, and `set` raises or lowers them across clients (a new National Living
Wage, a client's yearly uplift): --dry-run shows the plan, a run is journalled like an import, and
`wfctl imports undo <run-id>` takes it back. The how-to: docs/rates.md.

Scope, for every command: --client (repeatable), --branch, --all-clients or --site (repeatable).

Examples:
  $ wfctl rates list --client "Pennine Foods Ltd"
  $ wfctl rates summary --all-clients
  $ wfctl rates set --all-clients --skill "Picker Packer" --floor 12.21 --dry-run
"""

app = typer.Typer(help=HELP, short_help="See hourly rates across sites and change many at once.",
                  no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.rates import list, set_  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, list, set_)
