"""Review and take back bulk runs."""

import typer

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

# The verbs, in the order --help lists them; each marks its function with @verb (wfctl.commands.verbs).
from wfctl.commands.imports import list, prune, show, undo  # noqa: E402
from wfctl.commands.verbs import register  # noqa: E402

register(app, list, prune, show, undo)
