"""wfctl sites update."""

from __future__ import annotations

import typer

from wfctl.commands import records
from wfctl.commands.options import DryRun, Fields, Output
from wfctl.commands.sites import app


@app.command("update")
def update(ctx: typer.Context, site_id: records.SiteId, name: records.Name = None, address: records.Address = None,
           phone: records.Phone = None, email: records.Email = None,
           assessment_required: records.AssessmentRequired = None, rate: records.Rates = None,
           department: records.Departments = None, banned_worker: records.BannedWorkers = None,
           from_file: records.FromFile = None, dry_run: DryRun = False, output: Output = None,
           fields: Fields = None) -> None:
    """Change fields of a site.

    Sends only the fields you give; a list option (--rate, --department, --banned-worker) replaces
    that whole list. Prints the whole updated site.

    Examples:
      $ wfctl sites update <site-id> --no-assessment-required
      $ wfctl sites update <site-id> --rate forklift=13 --rate picker=11.50
      $ wfctl sites update <site-id> --banned-worker <worker-id> --dry-run
    """
    changes = {"name": name, "address": address, "phone": phone, "email": email,
               "assessmentRequired": assessment_required, "rates": rate, "departments": department,
               "bannedWorkers": banned_worker}
    records.update_record(ctx, "site", site_id, changes, from_file=from_file, dry_run=dry_run, output=output,
                          fields=fields)
