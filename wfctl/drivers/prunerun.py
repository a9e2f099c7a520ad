"""The CLI side of `import --prune` (issue 32 §2): the declared scope, the delete list shown first, the
limits (exit 12), the question on a terminal (`--yes` in scripts). The deletes themselves are planned and
run in wfctl/plans/prune.py, on the import's one executor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.plans.prune import PrunePlan
    from wfctl.plans.scope import Scope


def declare_scope(app: AppContext, kind: str, *, prune: bool, clients: Sequence[str] = (), branch: str | None = None,
                  every: bool = False, every_option: str = "") -> Scope | None:
    """The scope the options declare (`every`: --all-clients, --all-branches), resolved on the service;
    None without --prune. An option that only declares a scope, given without --prune, is an error."""
    from wfctl.plans.prune import no_scope_message
    from wfctl.plans.scope import resolve_scope

    if not prune:
        if every:
            raise CliError(f"{every_option} declares the scope of a prune: add --prune")
        if kind == "site" and branch:
            raise CliError("--branch declares the scope of a prune: add --prune (or give --client)")
        return None
    if not (clients or branch or every) and kind != "branch":
        raise CliError(no_scope_message(kind) + " (no scope, no prune: the scope is never read from the rows)")
    return resolve_scope(app.client, kind, clients=clients, branch=branch, all_clients=every)


def check_options(options: Any) -> None:
    """What --prune refuses before anything is read."""
    if options.prune and options.skip_invalid:
        raise CliError("--prune refuses --skip-invalid: an invalid row would make its record look absent and "
                       "be deleted; fix the invalid rows instead")


def plan(app: AppContext, importer: Any) -> PrunePlan:
    """The prune's deletes (each record read); the records kept because they still hold others, said."""
    pruning: PrunePlan = importer.plan_prune()
    from wfctl.api.records.resources import counted, resource
    from wfctl.text.safetext import one_line

    for held in pruning.held:
        name = one_line(str(held.record.get("name", "")))
        app.io.write_err(f"kept: {pruning.kind} {name!r} ({held.record.get('id')}) still holds "
                         f"{counted(held.child, held.children)}: not deleted (delete them first, or keep a row "
                         "for it)\n")
    field_name = resource(pruning.kind).parent_field or "parent"
    for record in pruning.misplaced:
        name = one_line(str(record.get("name", "")))
        app.io.write_err(f"skipped: {pruning.kind} {name!r} ({record.get('id')}) was listed in "
                         f"{pruning.scope.label} but its {field_name} is {one_line(str(record.get(field_name)))}: "
                         f"not deleted (--skip-misplaced)\n")
    for record, said in pruning.at_source:
        name = one_line(str(record.get("name", "")))
        app.io.write_err(f"kept: {pruning.kind} {name!r} ({record.get('id')}) {one_line(said)}: not deleted\n")
    return pruning


def show_deletes(write_out: Any, pruning: PrunePlan, parents: dict[str, str] | None, *, terminal: bool) -> None:
    """Every delete, as the plan view shows a row (never shortened: each one is read before it goes)."""
    from wfctl.plans.prune import delete_entries
    from wfctl.views.planview import text_block

    for entry in delete_entries(pruning):
        write_out(text_block(pruning.kind, entry, shorten=terminal, parents=parents))


def headline(pruning: PrunePlan) -> str:
    """`prune: 3 of 25 sites in client Pennine Foods Ltd to delete`; a resumed prune says what the run it
    resumes deleted (`(31 more deleted before the run stopped: 100 in all)`)."""
    from wfctl.api.records.resources import resource

    plural = resource(pruning.kind).plural
    earlier = f" ({pruning.earlier} more deleted before the run stopped: {pruning.total} in all)" \
        if pruning.earlier else ""
    return f"prune: {pruning.count} of {pruning.in_scope} {plural} in {pruning.scope.label} to delete{earlier}\n"


def confirm_run(app: AppContext, importer: Any, pruning: PrunePlan, *, yes: bool, limits: bool = True) -> bool:
    """A real run: the delete list and the counts on stderr before anything is sent, the limits (exit
    12), then the question on a terminal (--yes in scripts; neither: refused). False: answered no."""
    parents = importer.parent_names if importer.kind.parent else None
    show_deletes(app.io.write_err, pruning, parents, terminal=app.io.stderr_is_tty)
    app.io.write_err(headline(pruning))
    if limits:
        check_limits(importer, pruning)
    if not pruning.count or yes:
        return True
    if not app.io.can_prompt:
        raise CliError("refusing to delete without confirmation: no terminal to ask on; pass --yes (or --dry-run "
                       "to see the plan); nothing was sent")
    import time

    from wfctl.api.records.resources import counted
    from wfctl.drivers.prompts import confirm

    asked = time.monotonic()
    answer = confirm(f"Delete {counted(pruning.kind, pruning.count)} of {pruning.scope.label}? [y/N] ", app.io)
    importer.summary.started += time.monotonic() - asked  # the run's time and rate leave out the question
    if not answer:
        app.io.write_err("Nothing was sent.\n")
        return False
    return True


def check_limits(importer: Any, pruning: PrunePlan) -> None:
    """Exit 12 (nothing sent) for a prune past --max-deletes or --max-delete-share without the exact
    --allow-deletes."""
    from wfctl.plans.prune import limit_error

    error = limit_error(pruning, importer.options)
    if error is not None:
        raise error


def settings(scope: Scope | None, *, prune: bool, max_deletes: int, max_delete_share: str | float,
             allow_deletes: int | None, yes: bool, plan_out: str | None = None, plan_in: str | None = None,
             dry_run: bool = False, skip_misplaced: bool = False) -> dict[str, Any]:
    """What `run_import` is given for --prune: the Options' fields, and --yes, --plan-out, --plan."""
    share = delete_share(max_delete_share)
    if not prune and allow_deletes is not None:
        raise CliError("--allow-deletes is for --prune: add --prune")
    if not prune and skip_misplaced:
        raise CliError("--skip-misplaced is for --prune: add --prune")
    if plan_out and not dry_run:
        raise CliError("--plan-out writes the plan of a --dry-run: add --dry-run")
    if plan_in and (dry_run or plan_out):
        raise CliError("--plan runs a saved plan: leave out --dry-run and --plan-out")
    return {"scope": scope, "prune": prune, "max_deletes": max_deletes, "max_delete_share": share,
            "allow_deletes": allow_deletes, "yes": yes, "plan_out": plan_out, "plan_in": plan_in,
            "skip_misplaced": skip_misplaced}


def delete_share(text: str | float) -> float:
    """--max-delete-share as a fraction of the scope: a percent (`25%`, as `rates set --max-change 31%` takes
    one) or a fraction (`0.25`), from 0 to the whole scope."""
    from decimal import Decimal, InvalidOperation

    raw = str(text).strip()
    percent = raw.endswith("%")
    try:
        value = Decimal(raw.removesuffix("%").strip())
    except InvalidOperation:
        value = Decimal("NaN")
    whole = Decimal(100 if percent else 1)
    if not percent and value.is_finite() and 1 < value <= 100:
        raise CliError(f"--max-delete-share {raw!r}: a fraction is at most 1; for a percent, write {raw}%")
    if not value.is_finite() or not 0 <= value <= whole:
        raise CliError(f"--max-delete-share {raw!r}: give a share of the scope from 0% to 100%, as a percent "
                       "(25%) or a fraction (0.25)")
    return float(value / whole)


def ran_before(app: AppContext, importer: Any, path: str) -> bool:
    """Whether a run of this profile did the saved plan `path` (the same plan file) to its end, and was not
    undone since: said, with the run, and nothing is sent again (its records are as the plan left them, not
    changed since). A run undone since leaves the plan to be judged as any (`changed_since`)."""
    from wfctl.runs.runlist import profile_runs

    digest = importer.options.plan
    done = [run for run in profile_runs(importer.options.profile) if digest and run.finished
            and run.header.get("plan") == digest and not run.undo_of and not run.undone_by]
    if not done:
        return False
    run = done[0]
    app.io.write_err(f"plan {path} was run already: run {run.id} (started {run.started}, {run.state}); "
                     "nothing was sent (to change more, make a new plan with --dry-run --plan-out)\n")
    return True


def run_saved(app: AppContext, importer: Any, path: str, *, yes: bool) -> Any:
    """`import FILE --plan plan.json`: the plan checked against this run and the service (each record it
    targets read again: one changed since refuses, exit 5, naming them), its deletes shown and asked
    about, then run exactly. Returns the run's summary."""
    from wfctl.plans.readyplan import changed_since, load_plan
    from wfctl.runs.journalentry import Key

    saved = load_plan(path, importer.options, importer.source.sha256)
    journal = importer.journal  # a run of the plan that stopped, resumed: what it did is no change since

    def ours(key: Key) -> bool:
        return journal is not None and (journal.done(key) or journal.was_sending(key))

    changed = changed_since(importer.api, saved, importer.options.concurrency, ours=ours)
    for line in changed[:50]:
        app.io.write_err(f"changed: {line}\n")
    if len(changed) > 50:
        app.io.write_err(f"... and {len(changed) - 50} more\n")
    if changed:
        from wfctl.exit_codes import ExitCode

        raise CliError(f"{len(changed)} record{'s' if len(changed) != 1 else ''} the plan targets changed since it "
                       "was made; nothing was sent (make the plan again and review it)", ExitCode.CONFLICT)
    creates, updates, deletes = saved.counts
    app.io.write_err(f"plan {path}: create {creates}, update {updates}, delete {deletes}\n")
    if deletes and not confirm_run(app, importer, saved.pruning(), yes=yes, limits=False):
        return None
    return importer.run_saved(saved)
