"""Options shared by many commands, declared once (the output options: wfctl.commands.output_options); the
look-ups a verb shares with its driver (app_context, resolve_ref, read_json_input) are wfctl.drivers.invocation."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.drivers.invocation import MAX_JSON_DEPTH as MAX_JSON_DEPTH
from wfctl.drivers.invocation import app_context as app_context
from wfctl.drivers.invocation import offered_options as offered_options
from wfctl.drivers.invocation import read_json_input as read_json_input
from wfctl.drivers.invocation import resolve_in as resolve_in
from wfctl.drivers.invocation import resolve_ref as resolve_ref
from wfctl.drivers.invocation import resolve_refs as resolve_refs

Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and print what would be sent; send nothing.")]
