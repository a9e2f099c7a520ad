"""The actions of `wfctl bans add|remove`: each site whose banned workers change is one action of the one
executor (wfctl.runs.engine), journalled as `wfctl.plans.siteaction` says, its changes
`{"bannedWorkers": [old, new]}`: `old` the list as read just before the write, `new` that list with the
run's own ids added or taken off, so that `wfctl imports undo` takes back those ids only. The write is
`wfctl.api.domain.banapply.apply_bans` (read, the ids added to the list as read, read back), on the lean writer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.plans.siteaction import SentOutcome, SiteAction
from wfctl.runs.engine import RunContext

if TYPE_CHECKING:
    from wfctl.api.domain.bans import SiteBans


@dataclass
class SetBans(SiteAction):
    """The change of one site's banned workers."""

    FIELD = "bannedWorkers"
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()

    def send(self, run: RunContext, intend: Any) -> SentOutcome:
        from wfctl.api.domain.banapply import apply_bans

        outcome: SentOutcome = apply_bans(run.api, self.site.site_id, add=self.add, remove=self.remove,
                                          sender=run.sender, before_send=intend)
        return outcome


def ban_plan(work: Iterable[SiteBans], add: Iterable[str], remove: Iterable[str]) -> list[SetBans]:
    """The actions of a change of bans: one a site, each sending the whole change (an id the site holds
    by then is left), journalled under its action (the site's update)."""
    adding, removing = tuple(add), tuple(remove)
    return [SetBans(site, adding, removing) for site in work]
