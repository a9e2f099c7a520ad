"""The actions of `wfctl rates set`: each site whose rates change is one action of the one executor
(wfctl.bulk.engine), journalled under its own row, its intent before the update and its outcome after;
a site the stopped run was sending is checked before it is sent again. Its update goes through the SDK
(`wfctl.api.rates.apply_site`, the lean writer), whose retry policy is the only one: a 429 is waited
out there, as for every other write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.bulk.engine import Abandon, RunContext, Stopped

if TYPE_CHECKING:
    from wfctl.api.rates import Change, SitePlan


@dataclass
class SiteOutcome:
    """What became of one site: its status, the error (or why it was skipped), the SDK's Outcome."""

    site: SitePlan
    status: str
    error: str = ""
    outcome: Any = None


@dataclass
class SetRates:
    """The change of one site's rates, journalled under row `key` as an `updated` row of kind site whose
    changes are `{"rates": [old, new]}` (what `wfctl imports undo` puts back)."""

    key: int
    site: SitePlan
    change: Change

    def apply(self, run: RunContext) -> None:
        from wfctl.api import rates
        from wfctl.api.errors import ApiError, Interrupted, NetworkError, NotFound, NotLoggedIn
        from wfctl.bulk.journal import JournalError

        log = run.journal
        assert log is not None
        try:
            if log.was_sending(self.key) and self._applied_before(run):
                return

            def intend(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
                if run.stopping():
                    raise Abandon(sent=False)
                log.intend(self.key, {"rates": [old, new]}, record_id=self.site.site_id)

            outcome = rates.apply_site(run.api, self.site, self.change, sender=run.sender, before_send=intend)
            changes = {"rates": [outcome.old, outcome.new]} if outcome.status == "updated" else None
            self._finish(run, outcome.status, outcome.error, changes, outcome)
        except (Abandon, Interrupted, JournalError):
            raise  # the executor's: stopping (its intent stays journalled, a resume finds out), or the journal
        except NotFound:
            self._finish(run, "skipped", "deleted since the plan: skipped")
        except (NetworkError, NotLoggedIn) as exc:
            run.halt(Stopped("unreachable", exc.one_line()))
        except ApiError as exc:
            down = run.outlasted(exc)
            if down is not None:  # a 503 through the whole outage: stop, resumable, as when unreachable
                run.halt(Stopped("unreachable", down.one_line()))
                return
            self._finish(run, "failed", exc.one_line())
        except Exception as exc:  # an action records its site, whatever went wrong
            from wfctl.api.redact import redact_text

            self._finish(run, "failed", redact_text(f"{exc.__class__.__name__}: {exc}"))

    def _applied_before(self, run: RunContext) -> bool:
        """A site the stopped run was sending: when the site holds what that update set, it was applied
        (journalled now as updated, never sent twice); else it is sent as planned."""
        from wfctl.api.recordrules import left_as_run_left

        assert run.journal is not None
        entry = run.journal.entry(self.key)
        pair = (entry.changes if entry is not None else {}).get("rates")
        if not pair:
            return False
        current = run.api.get_record("site", self.site.site_id)
        old, new = pair
        if left_as_run_left("rates", old, new, current.get("rates")) and \
                not left_as_run_left("rates", new, old, current.get("rates")):
            self._finish(run, "updated", "", {"rates": [old, new]})
            return True
        return False

    def _finish(self, run: RunContext, status: str, error: str = "", changes: dict[str, list[Any]] | None = None,
                outcome: Any = None) -> None:
        assert run.journal is not None
        run.journal.record(self.key, status, self.site.site_id, error, self.site.site_name, changes)
        run.report(SiteOutcome(self.site, status, error, outcome))


def rate_plan(work: Iterable[SitePlan], change: Change, before: dict[str, tuple[int, str]]) -> list[SetRates]:
    """The actions of a rate change: one a site, journalled under the earlier run's row for a site it
    journalled, else the next free row."""
    actions: list[SetRates] = []
    following = max((row for row, _ in before.values()), default=0) + 1
    for site in work:
        if site.site_id in before:
            row = before[site.site_id][0]
        else:
            row, following = following, following + 1
        actions.append(SetRates(row, site, change))
    return actions
