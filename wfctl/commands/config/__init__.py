"""Read and change settings in the config file."""

import typer

HELP = """Read and change settings in the config file.

Settings live per profile in $XDG_CONFIG_HOME/wfctl/config.toml (WFCTL_CONFIG overrides the path),
written atomically with mode 0600. A flag or environment variable overrides the profile's value.
`wfctl help config` lists every key.

Examples:
  $ wfctl config list
  $ wfctl config set output json
  $ wfctl --profile staging config get base_url
"""

app = typer.Typer(help=HELP, short_help="Read and change settings in the config file.", no_args_is_help=True, rich_markup_mode=None)

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.config import get, list, set, unset  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, get, list, set, unset)
