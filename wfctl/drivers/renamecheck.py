"""An import's rename cycles (issue 33 §3, wfctl.plans.renames), as the command says them: each cycle a
line on stderr (the plan's JSON summary holds them too); the run sends them through a temporary name.
A prune, and a saved plan, cannot hold one: refused before anything is sent (exit 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def cycles_of(err: Callable[[str], None], importer: Any) -> list[Any]:
    """The plan's rename cycles, said on stderr and kept in the summary (its JSON says them); none unless
    rows matched by their id are updated (`--on-existing update`: else they are skipped, nothing renamed).
    Raises BulkError for a prune (its deletes' journal keys follow the file's rows, as a cycle's do)."""
    if importer.options.on_existing != "update":
        return []
    from wfctl.plans.renames import cycle_lines, rename_cycles

    cycles = rename_cycles(importer.plan())
    if not cycles:
        return []
    importer.summary.cycles = [[rename.as_json() for rename in cycle] for cycle in cycles]
    for line in cycle_lines(cycles):
        err(line + "\n")
    if importer.options.prune:
        from wfctl.plans.renames import refusal

        raise refusal(importer.options.kind, cycles, dry_run=importer.options.dry_run,
                      why="--prune refuses a file that renames records in a cycle")
    return cycles


def refuse_saving(importer: Any, cycles: list[Any]) -> None:
    """--plan-out: a saved plan runs its rows as they are, which a cycle's cannot be."""
    from wfctl.plans.renames import refusal

    raise refusal(importer.options.kind, cycles, dry_run=True, why="--plan-out cannot save a rename cycle")
