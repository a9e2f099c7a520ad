"""Rename cycles in an import's plan (issue 33 §3): rows that carry an id and give their record a name
another renamed record of the same parent holds now, round a loop (two sites' names swapped; a sheet
whose name column alone was sorted, which permutes every name).

Names are unique per parent (G12: clients per branch, sites per client, branches in the agency), so no
order of the updates can send one of them first: each one's new name is still held by the next. Sent as
they are, every row of a cycle fails with 409, however often the run is retried. The import refuses such
a plan before anything is sent (exit 2), naming each cycle and the way through it: a first import that
gives one record of each cycle a name no record holds, then the file as it is (see docs/csv.md).

A chain (a record renamed to the name of one that is itself renamed to a free name) is no cycle: its
rows succeed in some order, and a row that met the name still held fails once and is retried.

    cycles = rename_cycles(plan)     # [[Rename, ...], ...], each cycle in its order, by its first row
"""

from __future__ import annotations

from wfctl.api.recordrules import natural_key
from wfctl.bulk.errors import BulkError
from wfctl.bulk.kinds import KINDS
from wfctl.bulk.planning import ImportPlan, Rename

MAX_LISTED_CYCLES = 10


def rename_cycles(plan: ImportPlan) -> list[list[Rename]]:
    """Every cycle of the plan's renames (valid rows only): each in its order, from its first row (each
    one's new name is the next one's old name, the last's the first's), the cycles by their first row."""
    renames = [r for r in plan.renames if r.row not in plan.invalid]
    if len(renames) < 2:
        return []
    holder = {(r.parent, natural_key(r.old)): r for r in renames}
    following = {r.record_id: holder.get((r.parent, natural_key(r.new))) for r in renames}
    cycles: list[list[Rename]] = []
    seen: set[str] = set()
    for start in sorted(renames, key=lambda r: r.row):
        path: list[Rename] = []
        on_path: dict[str, int] = {}
        current: Rename | None = start
        while current is not None and current.record_id not in seen:
            seen.add(current.record_id)
            on_path[current.record_id] = len(path)
            path.append(current)
            current = following[current.record_id]
        if current is not None and current.record_id in on_path:  # the walk came back to itself: a cycle
            cycle = path[on_path[current.record_id]:]
            first = min(range(len(cycle)), key=lambda i: cycle[i].row)
            cycles.append(cycle[first:] + cycle[:first])
    cycles.sort(key=lambda cycle: cycle[0].row)
    return cycles


def cycle_lines(cycles: list[list[Rename]]) -> list[str]:
    """One line a cycle: `rename cycle: row 2 'Leeds' -> 'York', row 3 'York' -> 'Leeds'` (the first
    ones; then how many more)."""
    from wfctl.safetext import one_line, quoted

    lines = [one_line("rename cycle: " + ", ".join(f"row {r.row} {quoted(r.old)} -> {quoted(r.new)}" for r in cycle))
             for cycle in cycles[:MAX_LISTED_CYCLES]]
    if len(cycles) > MAX_LISTED_CYCLES:
        lines.append(f"... and {len(cycles) - MAX_LISTED_CYCLES} more rename cycles")
    return lines


def refusal(kind: str, cycles: list[list[Rename]], *, dry_run: bool) -> BulkError:
    """The error of a plan that holds rename cycles (exit 2): nothing is sent, and how to get there."""
    spec = KINDS[kind]
    rows = sum(len(cycle) for cycle in cycles)
    where = f"per {spec.parent}" if spec.parent else "in the agency"
    first = cycles[0][0]
    sent = "a run would send nothing" if dry_run else "nothing was sent"
    return BulkError(
        f"{rows} rows rename {spec.plural} in a cycle ({len(cycles)} cycle{'s' if len(cycles) != 1 else ''}): "
        f"names are unique {where}, so each new name is still another's; {sent} (import a copy of the "
        f"file first in which one row of each cycle, e.g. row {first.row}, has a name no {spec.name} holds, "
        "then this file)")
