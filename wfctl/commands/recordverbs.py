"""What `branches`, `clients` and `sites` verbs share: their options, and list/get/create/update/delete.

Each verb module declares its command (options and help) and calls one function here, so the 15
verbs stay thin and behave the same: it parses the command into the options of the run half in
`wfctl.drivers.recordrun` (a plain function of those options and an IO) and calls it. Only typer and
light wfctl modules are imported at the top: pydantic (the write models), httpx (the client) and the
output module load when a command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids, complete_client_ids, complete_site_ids
from wfctl.commands.options import app_context, offered_options
from wfctl.drivers import recordrun as run
from wfctl.drivers.recordrun import OPTION_FOR as OPTION_FOR
from wfctl.drivers.recordrun import read_record_file as read_record_file
from wfctl.drivers.recordrun import validate_body as validate_body

if TYPE_CHECKING:
    from wfctl.commands.output_options import OutputOptions

FIELDS_PANEL = "Fields"
PAGES_PANEL = "Pages"

# -- options (one per field, named after it) ---------------------------------------------------
Name = Annotated[str | None, typer.Option("--name", help="Name (1-200 characters).",
                                             rich_help_panel=FIELDS_PANEL, metavar="<text>")]
Address = Annotated[str | None, typer.Option("--address", help="Address (up to 500 characters).",
                                                rich_help_panel=FIELDS_PANEL, metavar="<text>")]
Phone = Annotated[str | None, typer.Option("--phone", help="Telephone number.",
                                              rich_help_panel=FIELDS_PANEL, metavar="<text>")]
Email = Annotated[str | None, typer.Option("--email", help="E-mail address (\"\" clears it).",
                                              rich_help_panel=FIELDS_PANEL, metavar="<address>")]
BillingAddress = Annotated[str | None, typer.Option("--billing-address", help="Billing address.",
                                                       rich_help_panel=FIELDS_PANEL, metavar="<text>")]
AssessmentRequired = Annotated[bool | None, typer.Option(
    "--assessment-required/--no-assessment-required", help="Whether workers need an assessment for the site.",
    rich_help_panel=FIELDS_PANEL, show_default=False)]
Rates = Annotated[list[str] | None, typer.Option(
    "--rate", help="Hourly rate of a skill, e.g. forklift=12.50 (repeat for each skill). On update it REPLACES "
    "every rate: --set-rate changes one.",
    rich_help_panel=FIELDS_PANEL, metavar="<skill=rate>")]
Departments = Annotated[list[str] | None, typer.Option(
    "--department", help="Department NAME[:CONTACT[:EMAIL]] (repeat for each). On update it REPLACES every department: "
    "--add-department adds one.",
    rich_help_panel=FIELDS_PANEL, metavar="<name[:contact[:email]]>")]
BannedWorkers = Annotated[list[str] | None, typer.Option(
    "--banned-worker", help="Id of a worker banned from the site (repeat for each). On update it REPLACES the whole list, "
    "unbanning anyone not given: --add-banned-worker bans one more.",
    rich_help_panel=FIELDS_PANEL, metavar="<worker-id>")]
FromFile = Annotated[str | None, typer.Option(
    "--from-file", help="Read the fields from a JSON object (- for stdin); field options override it.",
    rich_help_panel=FIELDS_PANEL, metavar="<path>|-")]

#: How a reference may be given (wfctl.api.records.refs), said once in each option's help.
REF_HELP = "or the beginning of the id, or the name"
BranchOption = Annotated[str | None, typer.Option("--branch", help=f"Id of the branch ({REF_HELP}).", metavar="<branch-id>",
                                                     autocompletion=complete_branch_ids)]
ClientOption = Annotated[str | None, typer.Option("--client", help=f"Id of the client ({REF_HELP}).", metavar="<client-id>",
                                                     autocompletion=complete_client_ids)]
SiteClientOption = Annotated[str | None, typer.Option(
    "--client", help="Look for the site's name among this client's sites (default: every client's).",
    metavar="<client-id>", autocompletion=complete_client_ids)]
BranchId = Annotated[str, typer.Argument(metavar="<branch-id>", help=f"Id of the branch ({REF_HELP}).",
                                         autocompletion=complete_branch_ids, show_default=False)]
ClientId = Annotated[str, typer.Argument(metavar="<client-id>", help=f"Id of the client ({REF_HELP}).",
                                         autocompletion=complete_client_ids, show_default=False)]
SiteId = Annotated[str, typer.Argument(metavar="<site-id>", help=f"Id of the site ({REF_HELP}).",
                                       autocompletion=complete_site_ids, show_default=False)]

PageNumber = Annotated[int | None, typer.Option("--page", min=1, help="Page to show (default 1).",
                                                   rich_help_panel=PAGES_PANEL, metavar="<n>")]
PageSize = Annotated[int | None, typer.Option("--page-size", min=1, help="Records per page (the service caps it at 100).",
                                                 rich_help_panel=PAGES_PANEL, metavar="<n>")]
AllPages = Annotated[bool, typer.Option("--all", help="Every page from --page on, written as each arrives.",
                                        rich_help_panel=PAGES_PANEL)]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Stop after this many records (fetches pages as needed).",
                                              rich_help_panel=PAGES_PANEL, metavar="<n>")]


# -- the verbs: the command line into a run's options --------------------------------------------
def list_records(ctx: typer.Context, kind: str, *, parent: str | None = None, page: int | None, page_size: int | None,
                 all_pages: bool, limit: int | None, output: OutputOptions) -> None:
    run.run_list(run.ListOptions(**_given_to_run(ctx, kind, output), parent=parent, page=page, page_size=page_size,
                                 all_pages=all_pages, limit=limit), app_context(ctx).io)


def get_record(ctx: typer.Context, kind: str, record_id: str, *, output: OutputOptions,
               scope: str | None = None) -> None:
    run.run_get(run.GetOptions(**_given_to_run(ctx, kind, output), record_id=record_id, scope=scope),
                app_context(ctx).io)


def create_record(ctx: typer.Context, kind: str, changes: dict[str, Any], *, parent: str | None = None,
                  from_file: str | None, dry_run: bool, output: OutputOptions) -> None:
    run.run_create(run.CreateOptions(**_given_to_run(ctx, kind, output), changes=changes, parent=parent,
                                     from_file=from_file, dry_run=dry_run), app_context(ctx).io)


def update_record(ctx: typer.Context, kind: str, record_id: str, changes: dict[str, Any], *,
                  from_file: str | None, dry_run: bool, output: OutputOptions,
                  edits: dict[str, list[str]] | None = None, scope: str | None = None) -> None:
    """Update a record. `edits` are the site's list edits (--add-banned-worker, --set-rate, ...),
    applied to the current lists; everything else replaces the field it names."""
    run.run_update(run.UpdateOptions(**_given_to_run(ctx, kind, output), record_id=record_id, changes=changes,
                                     from_file=from_file, dry_run=dry_run, edits=edits or {}, scope=scope),
                   app_context(ctx).io)


def delete_record(ctx: typer.Context, kind: str, record_id: str, *, yes: bool, dry_run: bool,
                  output: OutputOptions, scope: str | None = None) -> None:
    run.run_delete(run.DeleteOptions(**_given_to_run(ctx, kind, output), record_id=record_id, yes=yes,
                                     dry_run=dry_run, scope=scope), app_context(ctx).io)


def _given_to_run(ctx: typer.Context, kind: str, output: OutputOptions) -> dict[str, Any]:
    """What every record verb's run is given (`recordrun.RecordRun`) from the command line and the context:
    the -o given here becomes the run's, so its errors are in the same format."""
    app = app_context(ctx)
    return {"kind": kind, "client": lambda: app.client, "format": app.output_format(output.format),
            "output": output, "offered": offered_options(ctx)}
