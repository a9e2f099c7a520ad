"""The <run-id> argument the `imports` verbs share."""

import typer

from wfctl.cmdline.completion_cache import complete_run_ids

RunId = typer.Argument(metavar="<run-id>", help="Id of the run (as `wfctl imports list` shows it; a unique "
                       "beginning is enough).", show_default=False, autocompletion=complete_run_ids)
