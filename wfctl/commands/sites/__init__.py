"""Manage client sites: rates, departments, banned workers."""

import typer

HELP = """Manage client sites: rates, departments, banned workers.

A site is a place of one client where workers are booked. It carries hourly rates per skill,
departments with contacts, documents and banned workers. Import and export move many sites at once
through CSV.

Examples:
  $ wfctl sites list --client <client-id>
  $ wfctl sites create --client <client-id> --name "Salford Docks" --rate "Forklift Driver=13.25"
  $ wfctl sites import sites.csv --dry-run
"""

app = typer.Typer(help=HELP, short_help="Manage client sites: rates, departments, banned workers.", no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.sites import copy, create, delete, diff, edit, export, get, import_, list, update  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, copy, create, delete, diff, edit, export, get, import_, list, update)
