"""wfctl branches create."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("create")
@takes_output(fields=True)
def create(ctx: typer.Context, name: recordverbs.Name = None, address: recordverbs.Address = None,
           phone: recordverbs.Phone = None, email: recordverbs.Email = None, from_file: recordverbs.FromFile = None,
           dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Create a branch.

    The name is required and unique within the agency. Fields are checked here before anything is sent.

    Examples:
      $ wfctl branches create --name "Leeds" --email leeds@example.com
      $ wfctl branches create --from-file branch.json --dry-run
    """
    changes = {"name": name, "address": address, "phone": phone, "email": email}
    recordverbs.create_record(ctx, "branch", changes, from_file=from_file, dry_run=dry_run, output=output)
