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

# Each verb module registers its command on `app` when imported.
from wfctl.commands.sites import create, delete, export, get, import_, list, update  # noqa: E402,F401
