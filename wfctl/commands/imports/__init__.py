"""Review and take back bulk runs."""

import typer

from wfctl.completion_cache import complete_run_ids

HELP = """Review and take back bulk runs: imports of branches, clients and sites, and their undos.

Every run keeps a journal under $XDG_STATE_HOME/wfctl/runs/<profile>/: what each row did, the id of
each record it created and the values each update replaced. `undo` deletes what a run created and
puts back what it updated, newest row first; it is journalled too, so a killed undo resumes, and a
record changed since the run is reported rather than overwritten (--force overwrites).

Examples:
  $ wfctl imports list
  $ wfctl imports show <run-id>
  $ wfctl imports undo <run-id> --dry-run
  $ wfctl imports undo <run-id> --yes
  $ wfctl imports prune --older-than 30d
"""

app = typer.Typer(help=HELP, short_help="Review and take back bulk runs (imports and their undos).",
                  no_args_is_help=True, rich_markup_mode=None)

RunId = typer.Argument(metavar="<run-id>", help="Id of the run (as `wfctl imports list` shows it; a unique "
                       "beginning is enough).", show_default=False, autocompletion=complete_run_ids)

# Each verb module registers its command on `app` when imported.
from wfctl.commands.imports import list, prune, show, undo  # noqa: E402,F401
