"""The options every `edit` verb takes (`wfctl sites|branches|clients|agency edit`), declared once; the edit
itself is wfctl.drivers.editing.edit, a plain function of wfctl.drivers.editing.EditOptions."""

from __future__ import annotations

from typing import Annotated

import typer

EDIT_PANEL = "Edit"
Recover = Annotated[bool, typer.Option(
    "--recover", help="Reopen your last edit of this record that was not sent (kept until the service has it).",
    rich_help_panel=EDIT_PANEL)]
Force = Annotated[bool, typer.Option(
    "--force", help="Write your values even where the record changed on the service since you opened it "
    "(overwrites those changes; the other changes are still merged in).", rich_help_panel=EDIT_PANEL)]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Send the change without asking (scripts).",
                                   rich_help_panel=EDIT_PANEL)]
MaxChange = Annotated[str | None, typer.Option(
    "--max-change", help="Reopen the file when a rate would move by more than this share of its old value "
    "(default 25%, as `rates set`): 1225.00 typed for 12.25.", metavar="<percent>", rich_help_panel=EDIT_PANEL)]
