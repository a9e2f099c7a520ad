"""Making a planned change of bans on one site (`wfctl.api.domain.bans`): the site is read just before the write,
the ids added to (or taken off) the list as read then, not the plan's copy, and written by
`Client.update_record`'s read-merge-write, which reads the site back and merges again when another writer
replaced the list meanwhile: a ban a colleague added since the plan stays.

    from wfctl.api.domain import bans
    from wfctl.api.domain.banapply import apply_bans

    outcome = apply_bans(client, site_id, add=["W-20417"])
    print(outcome.status, outcome.added)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.domain.bans import banned, edited


@dataclass
class BanOutcome:
    """What `apply_bans` did: `status` updated or unchanged; `old` the list as read just before the write,
    `new` that list with the run's own change made (what undo takes back: the ids this write added or
    removed, never another writer's), `added`/`removed` those ids."""

    status: str
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    error: str = ""


def apply_bans(api: Any, site_id: str, *, add: Iterable[str] = (), remove: Iterable[str] = (), sender: Any = None,
               before_send: Callable[[list[str], list[str]], None] | None = None) -> BanOutcome:
    """Add `add` to and take `remove` off site `site_id`'s banned workers. `before_send(old, new)` is called
    with the list as read and as it will be, before the update is sent (a journal writes its intent
    there). An id the site already holds (or lacks) is left: `unchanged` when nothing is left to do.
    Raises the ApiError of a request that failed (NotFound: the site was deleted)."""
    adding, removing = list(dict.fromkeys(add)), list(dict.fromkeys(remove))
    current = api.get_record("site", site_id)
    old = banned(current)
    planned = edited(old, adding, removing)
    if planned == old:
        return BanOutcome("unchanged", old, old)

    def edit(record: dict[str, Any]) -> dict[str, Any]:
        return {"bannedWorkers": edited(banned(record), adding, removing)}

    if before_send is not None:
        before_send(old, planned)
    record = api.update_record("site", site_id, edit, current=current, sender=sender, settle=False)
    final = set(banned(record))
    added = [w for w in adding if w in final and w not in old]
    removed = [w for w in removing if w not in final and w in old]
    if not added and not removed:
        return BanOutcome("unchanged", old, old)
    return BanOutcome("updated", old, edited(old, added, removed), added, removed)
