"""wfctl sites create."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("create")
@takes_output(fields=True)
def create(ctx: typer.Context, client: recordverbs.ClientOption = None, name: recordverbs.Name = None, address: recordverbs.Address = None,
           phone: recordverbs.Phone = None, email: recordverbs.Email = None,
           assessment_required: recordverbs.AssessmentRequired = None, rate: recordverbs.Rates = None,
           department: recordverbs.Departments = None, banned_worker: recordverbs.BannedWorkers = None,
           from_file: recordverbs.FromFile = None, dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Create a site for a client.

    --client and --name are required. Rates, departments and banned workers are repeatable options.

    Examples:
      $ wfctl sites create --client <client-id> --name "Hull depot" --rate forklift=12.50 --rate picker=11
      $ wfctl sites create --client <client-id> --name Dock --department "Goods in:Ann Lee:ann@example.com"
      $ wfctl sites create --client <client-id> --from-file site.json --dry-run
    """
    changes = {"name": name, "address": address, "phone": phone, "email": email,
               "assessmentRequired": assessment_required, "rates": rate, "departments": department,
               "bannedWorkers": banned_worker}
    recordverbs.create_record(ctx, "site", changes, parent=client, from_file=from_file, dry_run=dry_run,
                          output=output)
