"""What the `import` verb of every kind does with its option groups, once: a kind's module declares its
parent and scope options and says which scope they declare; the run and the prune limits are the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wfctl.commands.bulkoptions import ImportRun, PruneLimits
    from wfctl.commands.output_options import OutputOptions
    from wfctl.context import AppContext
    from wfctl.plans.scope import Scope


def import_file(app: AppContext, kind: str, file: str, *, parent_id: str | None, scope: Scope | None,
                run: ImportRun, limits: PruneLimits, output: OutputOptions) -> int:
    """Import `file` as the groups ask (`scope`: what the kind's scope options declared, None without
    --prune); the exit code (0, 10), or a CliError."""
    from wfctl.drivers import prunerun
    from wfctl.drivers.bulkrun import run_import

    pruning = prunerun.settings(scope, prune=run.prune, max_deletes=limits.max_deletes,
                                max_delete_share=limits.max_delete_share, allow_deletes=limits.allow_deletes,
                                yes=limits.yes, plan_out=limits.plan_out, plan_in=limits.plan, dry_run=run.dry_run,
                                skip_misplaced=limits.skip_misplaced)
    return run_import(app, kind, file, parent_id=parent_id, dry_run=run.dry_run, prune=pruning,
                      on_existing=run.on_existing, concurrency=run.concurrency, report=run.report,
                      journal=run.journal, delimiter=run.delimiter, skip_invalid=run.skip_invalid,
                      output=output.format, sheet=run.sheet, accept_spreadsheet_changes=run.accept_spreadsheet_changes,
                      ignore_ids=run.ignore_ids, accept_rows=run.accept_row or [], ignore_columns=run.ignore_columns)
