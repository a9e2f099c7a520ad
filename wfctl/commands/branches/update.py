"""wfctl branches update."""

from __future__ import annotations

import typer

from wfctl.commands import recordverbs
from wfctl.commands.options import DryRun
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("update")
@takes_output(fields=True)
def update(ctx: typer.Context, branch_id: recordverbs.BranchId, name: recordverbs.Name = None,
           address: recordverbs.Address = None, phone: recordverbs.Phone = None, email: recordverbs.Email = None,
           from_file: recordverbs.FromFile = None, dry_run: DryRun = False, output: OutputOptions = AS_CONFIGURED) -> None:
    """Change fields of a branch.

    Sends only the fields you give; the others keep their value, whatever anyone changes meanwhile.
    Where the service clears what a PUT leaves out, the whole branch is sent, read just before.
    Prints the whole updated branch.

    Examples:
      $ wfctl branches update <branch-id> --phone "+44 113 496 0000"
      $ wfctl branches update <branch-id> --email "" --dry-run
    """
    changes = {"name": name, "address": address, "phone": phone, "email": email}
    recordverbs.update_record(ctx, "branch", branch_id, changes, from_file=from_file, dry_run=dry_run, output=output)
