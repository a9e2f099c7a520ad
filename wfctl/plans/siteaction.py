"""A change of one site's list field as an action of the one executor (wfctl.runs.engine): the runs of
`wfctl rates set` (`SetRates`, field `rates`, `rate_plan`) and `wfctl bans add|remove` (`SetBans`, field
`bannedWorkers`, `ban_plan`). Each site is journalled under its action (`["site", <id>, "update"]`) as an
`updated` entry whose changes are `{field: [old, new]}`, its intent before the update and its outcome after;
a site the stopped run was sending is checked before it is sent again (never changed twice). What `wfctl
imports undo` takes back is that pair, entry by entry: the entries the run added, removed or changed, never
another writer's (a ban's `new` is the list as read with the run's own ids added or taken off). The update
goes through the SDK (the lean writer: `wfctl.api.domain.rates.apply_site`,
`wfctl.api.domain.banapply.apply_bans`), whose retry policy is the only one: a 429 is waited out there, as
for every other write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from wfctl.runs.engine import Abandon, RunContext
from wfctl.runs.journalentry import UPDATE, ActionKey

if TYPE_CHECKING:
    from wfctl.api.domain.bans import SiteBans
    from wfctl.api.domain.rates import Change, SitePlan


class PlannedSite(Protocol):
    @property
    def site_id(self) -> str: ...

    @property
    def site_name(self) -> str: ...


class SentOutcome(Protocol):
    """What the SDK's apply function returns: a status (updated, unchanged, skipped), why, and the
    field's value before and after (for the entries the change touched)."""

    status: str
    error: str
    old: Any
    new: Any


@dataclass
class SiteOutcome:
    """What became of one site: its status, the error (or why it was skipped), the SDK's outcome."""

    site: Any
    status: str
    error: str = ""
    outcome: Any = None


@dataclass
class SiteAction:
    """The change of one site's `FIELD`, journalled under its action (`key`); a kind of run says how it is
    sent (`send`)."""

    FIELD: ClassVar[str]
    site: Any  # a PlannedSite

    @property
    def key(self) -> ActionKey:
        return ActionKey("site", self.site.site_id, UPDATE)

    def send(self, run: RunContext, intend: Any) -> SentOutcome:
        """Make the change through the SDK, calling `intend(old, new)` just before the write."""
        raise NotImplementedError

    def apply(self, run: RunContext) -> None:
        from wfctl.api.errors import ApiError, Interrupted, NotFound
        from wfctl.runs.journal import JournalError

        log = run.journal
        assert log is not None
        try:
            if log.was_sending(self.key) and self._applied_before(run):
                return

            def intend(old: Any, new: Any) -> None:
                if run.stopping():
                    raise Abandon(sent=False)
                log.intend(self.key, {self.FIELD: [old, new]}, record_id=self.site.site_id)

            outcome = self.send(run, intend)
            changes = {self.FIELD: [outcome.old, outcome.new]} if outcome.status == "updated" else None
            self._finish(run, outcome.status, outcome.error, changes, outcome)
        except (Abandon, Interrupted, JournalError):
            raise  # the executor's: stopping (its intent stays journalled, a resume finds out), or the journal
        except NotFound:
            self._finish(run, "skipped", "deleted since the plan: skipped")
        except ApiError as exc:
            if not run.stop_for(exc):  # the run's one rule (unreachable, outlasted, no login): stop, resumable
                self._finish(run, "failed", exc.one_line())
        except Exception as exc:  # an action records its site, whatever went wrong
            from wfctl.api.net.redact import redact_text

            self._finish(run, "failed", redact_text(f"{exc.__class__.__name__}: {exc}"))

    def _applied_before(self, run: RunContext) -> bool:
        """A site the stopped run was sending: when the site holds what that update set, it was applied
        (journalled now as updated, never sent twice); else it is sent as planned."""
        from wfctl.api.records.recordrules import left_as_run_left

        assert run.journal is not None
        entry = run.journal.entry(self.key)
        pair = (entry.changes if entry is not None else {}).get(self.FIELD)
        if not pair:
            return False
        current = run.api.get_record("site", self.site.site_id)
        old, new = pair
        if left_as_run_left(self.FIELD, old, new, current.get(self.FIELD)) and \
                not left_as_run_left(self.FIELD, new, old, current.get(self.FIELD)):
            self._finish(run, "updated", "", {self.FIELD: [old, new]})
            return True
        return False

    def _finish(self, run: RunContext, status: str, error: str = "", changes: dict[str, list[Any]] | None = None,
                outcome: Any = None) -> None:
        assert run.journal is not None
        run.journal.record(self.key, status, self.site.site_id, error, self.site.site_name, changes)
        run.report(SiteOutcome(self.site, status, error, outcome))


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
