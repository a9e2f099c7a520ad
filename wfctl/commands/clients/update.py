"""wfctl clients update."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("update")
@takes_output(fields=True)
def update(ctx: typer.Context, client_id: recordverbs.ClientId, name: recordverbs.Name = None,
           email: recordverbs.Email = None, phone: recordverbs.Phone = None,
           billing_address: recordverbs.BillingAddress = None, from_file: recordverbs.FromFile = None,
           dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Change fields of a client.

    Sends only the fields you give; the others keep their value, whatever anyone changes meanwhile.
    Where the service clears what a PUT leaves out, the whole client is sent, read just before.
    A client's branch cannot be changed.

    Examples:
      $ wfctl clients update <client-id> --billing-address "1 Quay St, Hull"
      $ wfctl clients update <client-id> --from-file client.json --dry-run
    """
    changes = {"name": name, "email": email, "phone": phone, "billingAddress": billing_address}
    recordverbs.update_record(ctx, "client", client_id, changes, from_file=from_file, dry_run=dry_run, output=output)
