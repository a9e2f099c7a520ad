"""The actions of `wfctl rates set`: each site whose rates change is one action of the one executor
(wfctl.runs.engine), journalled as `wfctl.plans.siteaction` says, its changes `{"rates": [old, new]}`. Its
update goes through the SDK (`wfctl.api.domain.rates.apply_site`, the lean writer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.plans.siteaction import SentOutcome, SiteAction, SiteOutcome
from wfctl.runs.engine import RunContext

if TYPE_CHECKING:
    from wfctl.api.domain.rates import Change, SitePlan

__all__ = ["SetRates", "SiteOutcome", "rate_plan"]


@dataclass
class SetRates(SiteAction):
    """The change of one site's rates (what `wfctl imports undo` puts back)."""

    FIELD = "rates"
    change: Change | None = None

    def send(self, run: RunContext, intend: Any) -> SentOutcome:
        from wfctl.api.domain import rates

        assert self.change is not None
        outcome: SentOutcome = rates.apply_site(run.api, self.site, self.change, sender=run.sender, before_send=intend)
        return outcome


def rate_plan(work: Iterable[SitePlan], change: Change) -> list[SetRates]:
    """The actions of a rate change: one a site, journalled under its action (the site's update), so a
    run that resumes an earlier one finds each site where that run left it."""
    return [SetRates(site, change) for site in work]
