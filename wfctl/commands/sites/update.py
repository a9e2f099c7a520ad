"""wfctl sites update."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb

LISTS_PANEL = "Lists (keep the other entries)"


def _edit(option: str, help_text: str, metavar: str) -> object:
    return typer.Option(option, help=help_text, rich_help_panel=LISTS_PANEL, metavar=metavar)


AddBannedWorker = Annotated[list[str] | None, _edit(
    "--add-banned-worker", "Ban a worker from the site; the others stay banned (repeatable).", "<worker-id>")]
RemoveBannedWorker = Annotated[list[str] | None, _edit(
    "--remove-banned-worker", "Lift one worker's ban; the others stay banned (repeatable).", "<worker-id>")]
SetRate = Annotated[list[str] | None, _edit(
    "--set-rate", "Set the hourly rate of one skill, e.g. \"Forklift Driver=14\"; the other rates stay (repeatable).",
    "<skill=rate>")]
AddRate = Annotated[list[str] | None, _edit(
    "--add-rate", "Add the rate of a skill the site does not have yet, e.g. \"Welder=15\" (repeatable).",
    "<skill=rate>")]
RemoveRate = Annotated[list[str] | None, _edit(
    "--remove-rate", "Remove the rate of one skill; the other rates stay (repeatable).", "<skill>")]
AddDepartment = Annotated[list[str] | None, _edit(
    "--add-department", "Add (or change) one department NAME[:CONTACT[:EMAIL]]; the others stay (repeatable).",
    "<name[:contact[:email]]>")]
RemoveDepartment = Annotated[list[str] | None, _edit(
    "--remove-department", "Remove one department by name; the others stay (repeatable).", "<name>")]


@verb("update")
@takes_output(fields=True)
def update(ctx: typer.Context, site_id: recordverbs.SiteId, client: recordverbs.SiteClientOption = None,
           name: recordverbs.Name = None, address: recordverbs.Address = None,
           phone: recordverbs.Phone = None, email: recordverbs.Email = None,
           assessment_required: recordverbs.AssessmentRequired = None, rate: recordverbs.Rates = None,
           department: recordverbs.Departments = None, banned_worker: recordverbs.BannedWorkers = None,
           add_banned_worker: AddBannedWorker = None, remove_banned_worker: RemoveBannedWorker = None,
           set_rate: SetRate = None, add_rate: AddRate = None, remove_rate: RemoveRate = None,
           add_department: AddDepartment = None,
           remove_department: RemoveDepartment = None,
           from_file: recordverbs.FromFile = None, dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Change fields of a site.

    Changes only the fields you give; every other field keeps its value. --add-banned-worker,
    --set-rate, --add-department and their --remove-* twins change one entry of a list and keep the
    rest; --banned-worker, --rate and --department REPLACE the whole list. --set-rate refuses a skill
    near one the site has (forklift beside Forklift Driver): --add-rate adds a new skill on purpose.
    --dry-run shows what would change. Prints the whole updated site.

    Examples:
      $ wfctl sites update <site-id> --no-assessment-required
      $ wfctl sites update <site-id> --add-banned-worker W-2 --dry-run
      $ wfctl sites update <site-id> --set-rate "Forklift Driver=13" --remove-rate "Picker Packer"
      $ wfctl sites update <site-id> --rate forklift=13 --rate picker=11.50   # replaces every rate
    """
    changes = {"name": name, "address": address, "phone": phone, "email": email,
               "assessmentRequired": assessment_required, "rates": rate, "departments": department,
               "bannedWorkers": banned_worker}
    edits = {"--add-banned-worker": add_banned_worker, "--remove-banned-worker": remove_banned_worker,
             "--set-rate": set_rate, "--add-rate": add_rate, "--remove-rate": remove_rate, "--add-department": add_department,
             "--remove-department": remove_department}
    recordverbs.update_record(ctx, "site", site_id, changes, from_file=from_file, dry_run=dry_run, output=output,
                          edits={k: v for k, v in edits.items() if v}, scope=client)
