"""wfctl agency show."""

from __future__ import annotations

import typer

from wfctl.commands.options import Fields, Output, app_context, fmt
from wfctl.commands.verbs import verb


@verb("show")
def show(ctx: typer.Context, output: Output = None, fields: Fields = None) -> None:
    """Show your agency: name, contact details, work week and holiday year.

    The agency is the tenant of the account you logged in with.

    Examples:
      $ wfctl agency show
      $ wfctl agency show -o json
      $ wfctl agency show --fields workWeekStart,holidayYearStart
    """
    app_ctx = app_context(ctx)
    out = app_ctx.output(fmt(output), fields, "agency")
    out.record(app_ctx.client.get_agency(), kind="agency")
