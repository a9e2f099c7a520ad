"""wfctl agency update."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from wfctl.commands.options import DryRun, app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

FIELDS_PANEL = "Fields"


def _opt(name: str, help: str, metavar: str) -> Any:
    return typer.Option(name, help=help, metavar=metavar, rich_help_panel=FIELDS_PANEL, show_default=False)


@verb("update")
@takes_output(fields=True)
def update(
    ctx: typer.Context,
    name: Annotated[str | None, _opt("--name", "Agency name (1-200 characters).", "<text>")] = None,
    email: Annotated[str | None, _opt("--email", "Contact e-mail address.", "<email>")] = None,
    phone: Annotated[str | None, _opt("--phone", "Contact telephone.", "<text>")] = None,
    work_week_start: Annotated[str | None, _opt("--work-week-start", "Weekday the work week starts on, "
                                                   "e.g. Monday.", "<weekday>")] = None,
    calendar_year_start: Annotated[str | None, _opt("--calendar-year-start", "Start of the calendar year.",
                                                       "<YYYY-MM-DD>")] = None,
    holiday_year_start: Annotated[str | None, _opt("--holiday-year-start", "Start of the holiday year.",
                                                      "<YYYY-MM-DD>")] = None,
    holiday_cap_hours: Annotated[float | None, _opt("--holiday-cap-hours", "Holiday cap in hours (>= 0).",
                                                       "<hours>")] = None,
    from_file: Annotated[str | None, typer.Option(
        "--from-file", help="Read the fields from a JSON file (- for stdin); options override it.",
        metavar="<path>", rich_help_panel=FIELDS_PANEL)] = None,
    dry_run: DryRun = False,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Change your agency's settings (administrators only).

    Fields left out keep their value. This is an extension of the service (the sandbox offers it);
    a deployment without it is reported as such. Needs the admin role.

    Examples:
      $ wfctl agency update --phone "+44 161 496 0000"
      $ wfctl agency update --work-week-start Sunday --holiday-cap-hours 200
      $ wfctl agency update --from-file agency.json --dry-run
    """
    from wfctl.commands.recordverbs import read_record_file, validate_body
    from wfctl.errors import CliError

    app_ctx = app_context(ctx)
    out = output.writer(app_ctx, "agency")
    values: dict[str, Any] = read_record_file(from_file)[0] if from_file else {}
    changes = {"name": name, "email": email, "phone": phone, "workWeekStart": work_week_start,
               "calendarYearStart": calendar_year_start, "holidayYearStart": holiday_year_start,
               "holidayCapHours": holiday_cap_hours}
    values.update({k: v for k, v in changes.items() if v is not None})
    if not values:
        raise CliError("nothing to update: give a field option (--name, --email, --phone, --work-week-start, "
                       "--calendar-year-start, --holiday-year-start, --holiday-cap-hours) or --from-file")
    body = validate_body("agency", "update", values, {k for k, v in changes.items() if v is not None})
    if dry_run:
        if out.structured:
            out.value({"dryRun": True, "method": "PUT", "path": "/api/agency/", "body": body})
        else:
            out.result({"dryRun": True, "message": "dry run: would send PUT /api/agency/ (nothing sent)"})
            out.record(body, "agency")
        return
    from wfctl.commands.agencycalendar import remember

    record = app_ctx.client.update_agency(body)
    remember(app_ctx, record)  # the calendar commands read the new work week and years at once
    out.record(record, kind="agency")
