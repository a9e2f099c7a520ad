"""Rename cycles in an import's plan (issue 33 §3): rows that carry an id and give their record a name
another renamed record of the same parent holds now, round a loop (two sites' names swapped; a sheet
whose name column alone was sorted, which permutes every name).

Names are unique per parent (G12: clients per branch, sites per client, branches in the agency), so no
order of the updates alone can send one of them first: each one's new name is still held by the next.
Sent as they were, every row of a cycle failed with 409, however often the run was retried. A cycle is
broken through a temporary name: its first row's record is renamed to a name no record holds (one more
update, journalled as the action it is, `[kind, record id, "rename"]`: `temporary_key`), then the others, each into the name the
one before it gave up, then the first to its name. A chain (renamed into the name of a record that is
itself renamed, to a free name) is sent from its free end. Each group is one action of the executor,
its steps one after the other (sending.py); undo takes a cycle back in the reverse order (undo.py), and
a run stopped in the middle resumes as a chain (its temporary name is a free one by then).

    groups = rename_groups(plan, kind)  # [RenameGroup, ...]: the renames in the order they are sent
    cycles = rename_cycles(plan)     # [[Rename, ...], ...], each cycle in its order, by its first row
"""

from __future__ import annotations

from dataclasses import dataclass

from wfctl.api.records.recordrules import natural_key
from wfctl.files.errors import BulkError
from wfctl.plans.importplan import ImportPlan, Rename
from wfctl.plans.kinds import KINDS
from wfctl.runs.journalentry import RENAME, ActionKey

MAX_LISTED_CYCLES = 10
NAME_MAX = 200  # the service's longest name


@dataclass
class RenameGroup:
    """Renames that must be sent one after the other: `renames` in the order they are sent; a cycle's
    first is renamed to `temporary` before them (journal key `key`), and is the last of them."""

    renames: list[Rename]
    cycle: bool = False
    key: ActionKey | None = None
    temporary: str = ""

    @property
    def rows(self) -> list[int]:
        return [rename.row for rename in self.renames]


def temporary_key(kind: str, first: Rename) -> ActionKey:
    """The journal key of a cycle's temporary rename: the action it is, a rename of the cycle's first
    record (the same when the run resumes). Journals written before this keyed it by a row number made up
    after the file's rows: those entries keep that key (their `"o"` says what they are)."""
    return ActionKey(kind, first.record_id, RENAME)


def rename_groups(plan: ImportPlan, kind: str) -> list[RenameGroup]:
    """The plan's renames that depend on one another, each group in the order its renames are sent: a
    chain from its free end, a cycle through a temporary name no record of the parent holds."""
    renames, following = _graph(plan)
    if not following:
        return []
    targeted = {r.record_id for r in following.values() if r is not None}
    groups: list[RenameGroup] = []
    for start in renames:  # a chain starts at a rename whose old name no other one takes
        if start.record_id in targeted or following[start.record_id] is None:
            continue
        path: list[Rename] = []
        current: Rename | None = start
        while current is not None:
            path.append(current)
            current = following[current.record_id]
        groups.append(RenameGroup(path[::-1]))
    taken = set(plan.inventory.existing)
    for cycle in rename_cycles(plan):
        first = cycle[0]
        temporary = _free_name(first, taken)
        groups.append(RenameGroup([*cycle[:0:-1], first], True, temporary_key(kind, first), temporary))
    groups.sort(key=lambda group: min(group.rows))
    return groups


def _graph(plan: ImportPlan) -> tuple[list[Rename], dict[str, Rename | None]]:
    """The valid rows' renames, and for each its record's id -> the rename of the record that holds its
    new name now (None: the name is free, or held by a record no row renames)."""
    renames = sorted((r for r in plan.renames if r.row not in plan.invalid), key=lambda r: r.row)
    if len(renames) < 2:
        return renames, {}
    holder = {(r.parent, natural_key(r.old)): r for r in renames}
    return renames, {r.record_id: holder.get((r.parent, natural_key(r.new))) for r in renames}


def _free_name(rename: Rename, taken: set[tuple[str | None, str]]) -> str:
    """A name for `rename`'s record that no record of its parent holds: `<old> (renaming)`, numbered if
    that is taken too; kept to the service's length."""
    for n in range(1, 1000):
        suffix = " (renaming)" if n == 1 else f" (renaming {n})"
        name = rename.old.strip()[:NAME_MAX - len(suffix)] + suffix
        if (rename.parent, natural_key(name)) not in taken:
            taken.add((rename.parent, natural_key(name)))
            return name
    raise BulkError(f"no free temporary name for {rename.old!r}")


def rename_cycles(plan: ImportPlan) -> list[list[Rename]]:
    """Every cycle of the plan's renames (valid rows only): each in its order, from its first row (each
    one's new name is the next one's old name, the last's the first's), the cycles by their first row."""
    renames, following = _graph(plan)
    if not following:
        return []
    cycles: list[list[Rename]] = []
    seen: set[str] = set()
    for start in renames:
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
    """One line a cycle: `rename cycle: row 2 'Leeds' -> 'York', row 3 'York' -> 'Leeds' (through a
    temporary name: 1 more update)` (the first ones; then how many more)."""
    from wfctl.text.safetext import one_line, quoted

    lines = [one_line("rename cycle: " + ", ".join(f"row {r.row} {quoted(r.old)} -> {quoted(r.new)}" for r in cycle)
                      + " (through a temporary name: 1 more update)")
             for cycle in cycles[:MAX_LISTED_CYCLES]]
    if len(cycles) > MAX_LISTED_CYCLES:
        lines.append(f"... and {len(cycles) - MAX_LISTED_CYCLES} more rename cycles")
    return lines


def refusal(kind: str, cycles: list[list[Rename]], *, dry_run: bool, why: str) -> BulkError:
    """The error of a run that cannot hold rename cycles (exit 2; `why`): nothing is sent, and the way
    through: the file imported without the option first."""
    rows = sum(len(cycle) for cycle in cycles)
    sent = "a run would send nothing" if dry_run else "nothing was sent"
    plural = KINDS[kind].plural
    return BulkError(f"{why} ({rows} rows rename {plural} in {len(cycles)} cycle{'s' if len(cycles) != 1 else ''}); "
                     f"{sent} (import the file without it first: the cycles are then done)")
