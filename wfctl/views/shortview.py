"""A long list of rows on a terminal: the first rows, then how many more and how to see them all.

`imports show` of a 3,000-row run printed 24,006 lines, and a 3,000-row `--dry-run` 24,005: on a terminal a
person reads the counts and the first rows; a pipe (or `--all`, or `-o jsonl`) still gets every row."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wfctl.views.planview import Accepted

#: Rows shown on a terminal before the "... and N more" line.
FIRST_ROWS = 10


def write_rows(write_out: Callable[[str], Any], kind: str, entries: Iterable[Any], *, terminal: bool,
               shorten: bool, hint: str, parents: Mapping[str, str] | None = None,
               accepted: Accepted | None = None) -> int:
    """Each entry as its text block (`wfctl.views.planview.text_block`, naming its parent with `parents`, and
    what `accepted` sends as it is); with
    `shorten`, only the first
    FIRST_ROWS, then `... and N more rows (HINT)`. Returns how many rows there were."""
    from wfctl.views.planview import text_block

    count = 0
    for entry in entries:
        if not shorten or count < FIRST_ROWS:
            write_out(text_block(kind, entry, shorten=terminal, parents=parents, accepted=accepted))
        count += 1
    if shorten and count > FIRST_ROWS:
        more = count - FIRST_ROWS
        write_out(f"... and {more} more row{'s' if more != 1 else ''} ({hint})\n")
    return count
