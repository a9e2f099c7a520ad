"""Show and use the stored login."""

import typer

HELP = """Show and use the stored login.

The token pair of each profile is kept in the OS keyring, or in a 0600 file when the profile was
logged in with `--credential-store file`. wfctl refreshes it on its own; these commands show its
state and hand a valid access token to other tools.

Examples:
  $ wfctl auth status
  $ wfctl auth token
  $ wfctl auth token --header | curl -H @- https://wams.example.com/api/agency/

The last form keeps the token out of every command line (which `ps` shows to all users); curl
reads header lines from standard input with `-H @-` since version 7.55.
"""

app = typer.Typer(help=HELP, short_help="Show and use the stored login.", no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.auth import status, token  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, status, token)
