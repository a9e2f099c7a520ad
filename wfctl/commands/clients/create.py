"""wfctl clients create."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("create")
@takes_output(fields=True)
def create(ctx: typer.Context, branch: recordverbs.BranchOption = None, name: recordverbs.Name = None,
           email: recordverbs.Email = None, phone: recordverbs.Phone = None,
           billing_address: recordverbs.BillingAddress = None, from_file: recordverbs.FromFile = None,
           dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Create a client under a branch.

    --branch and --name are required; the name is unique within the branch.

    Examples:
      $ wfctl clients create --branch <branch-id> --name "Acme Foods" --email ops@acme.example
      $ wfctl clients create --from-file client.json
    """
    changes = {"name": name, "email": email, "phone": phone, "billingAddress": billing_address}
    recordverbs.create_record(ctx, "client", changes, parent=branch, from_file=from_file, dry_run=dry_run,
                          output=output)
