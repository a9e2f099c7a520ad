"""The scope options of the commands that work over many sites (`rates`, `bans`), declared once (typer
only: `--help` stays fast)."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids, complete_client_ids, complete_site_ids

SCOPE_PANEL = "Scope (one is required)"
RUN_PANEL = "Run"

Client = Annotated[list[str] | None, typer.Option(
    "--client", help="Sites of this client: its id, the beginning of the id, or its name (repeatable).",
    metavar="<client>", rich_help_panel=SCOPE_PANEL, autocompletion=complete_client_ids)]
Branch = Annotated[list[str] | None, typer.Option(
    "--branch", help="Sites of every client of this branch: id or name (repeatable).", metavar="<branch>",
    rich_help_panel=SCOPE_PANEL, autocompletion=complete_branch_ids)]
AllClients = Annotated[bool, typer.Option("--all-clients", help="Sites of every client.",
                                          rich_help_panel=SCOPE_PANEL)]
Site = Annotated[list[str] | None, typer.Option(
    "--site", help="This site: its id, the beginning of the id, or its name (repeatable).", metavar="<site>",
    rich_help_panel=SCOPE_PANEL, autocompletion=complete_site_ids)]
ReadConcurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Sites read at once.",
                                              rich_help_panel=RUN_PANEL, min=1, max=64)]
Yes = Annotated[bool, typer.Option(
    "--yes", "-y", help="Send without asking, however many sites change (a terminal asks when more than 10 do).",
    rich_help_panel=RUN_PANEL)]
