"""wfctl agency show."""

from __future__ import annotations

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("show")
@takes_output(fields=True)
def show(ctx: typer.Context, output: OutputOptions = AS_CONFIGURED) -> None:
    """Show your agency: name, contact details, work week and holiday year.

    The agency is the tenant of the account you logged in with.

    Examples:
      $ wfctl agency show
      $ wfctl agency show -o json
      $ wfctl agency show --fields workWeekStart,holidayYearStart
    """
    from wfctl.commands.agencycalendar import remember
    from wfctl.drivers.recordrun import ShowAgencyOptions, run_show_agency

    app = app_context(ctx)
    run_show_agency(ShowAgencyOptions(client=lambda: app.client, format=app.output_format(output.format),
                                      output=output, remember=lambda record: remember(app, record)), app.io)
