"""The options of the `rates` commands, declared once (typer only: `--help` stays fast); the scope
options are every site command's (wfctl.commands.scopeoptions)."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_skills
from wfctl.commands.scopeoptions import (
           RUN_PANEL,
           SCOPE_PANEL,
           AllClients,
           Branch,
           Client,
           ReadConcurrency,
           Site,
           Yes,
)

__all__ = ["CHANGE_PANEL", "RUN_PANEL", "SCOPE_PANEL", "AllClients", "Branch", "Client", "ReadConcurrency", "Site",
           "SkillFilter", "Yes"]

CHANGE_PANEL = "Change (exactly one of --to, --by, --floor, --ceiling)"

SkillFilter = Annotated[list[str] | None, typer.Option(
    "--skill", help="Only this skill, matched trimmed and case-insensitively (repeatable).", metavar="<name>",
    autocompletion=complete_skills)]
