"""An import's rename cycles (issue 33 §3, wfctl.bulk.renames), as the command says them: each cycle a
line on stderr, then the refusal (exit 2) before anything is sent; a plan shows its rows first."""

from __future__ import annotations

from typing import Any

from wfctl.streams import IO


def cycles_of(importer: Any) -> list[Any]:
    """The plan's rename cycles, kept in the summary (its JSON says them); none unless rows matched by
    their id are updated (`--on-existing update`: else they are skipped, and nothing is renamed)."""
    if importer.options.on_existing != "update":
        return []
    from wfctl.bulk.renames import rename_cycles

    cycles = rename_cycles(importer.plan())
    importer.summary.cycles = [[rename.as_json() for rename in cycle] for cycle in cycles]
    return cycles


def refuse(importer: Any, cycles: list[Any]) -> None:
    """Name each cycle on stderr and raise the refusal (exit 2)."""
    from wfctl.bulk.renames import cycle_lines, refusal

    for line in cycle_lines(cycles):
        IO.write_err(line + "\n")
    raise refusal(importer.options.kind, cycles, dry_run=importer.options.dry_run)
