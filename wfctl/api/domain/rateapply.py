"""Applying a planned rate change to one site (`wfctl.api.domain.rates`): the site is read again and the change
recomputed from what it holds then, and written by `Client.update_record`'s read-merge-write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from wfctl.api.domain.ratecalc import (
    MOVED,
    SKIPPED,
    Change,
    RateChange,
    SitePlan,
    amount,
    compute,
    new_rates,
    skill_key,
)


@dataclass
class Outcome:
    """What `apply_site` did: `status` updated, unchanged or skipped (with `error` saying why);
    `old` and `new` the site's rates before and after, for the changed skills only (what undo needs)."""

    status: str
    changes: list[RateChange] = field(default_factory=list)
    old: list[dict[str, Any]] = field(default_factory=list)
    new: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""


def apply_site(api: Any, site: SitePlan, change: Change, *, sender: Any = None,
               before_send: Callable[[list[dict[str, Any]], list[dict[str, Any]]], None] | None = None) -> Outcome:
    """Make `site`'s planned change on the service. The site is read again first and the change
    recomputed from the rates it holds now: a rate moved since the plan is left as it is (skipped,
    `changed since the plan`) unless the change follows the current rate (a floor, a ceiling).
    `before_send(old, new)` is called with the rates lists before and after, before the update is sent
    (a journal writes its intent there). The update is a read-merge-write whose new rates are computed
    from each state it reads (another writer's change to another skill, or to any other field, stays).
    Raises the ApiError of a request that failed (NotFound: the site was deleted)."""
    current = api.get_record("site", site.site_id)
    rates = [r for r in (current.get("rates") or []) if isinstance(r, dict)]
    now, _ = compute(rates, change)
    moved = _moved(site, rates)
    if moved and not change.follows_current:
        return Outcome(SKIPPED, error=f"{MOVED} ({'; '.join(moved)})")
    if not now:
        return Outcome("unchanged")
    planned = {skill_key(c.skill): c for c in now}

    def edit(record: dict[str, Any]) -> dict[str, Any]:
        """The rates of `record` with the change made where it still applies: a rate that holds what
        the change was computed from gets the new value; one that holds the new value already is
        left; one another writer moved meanwhile is recomputed (floor, ceiling) or left."""
        have = [r for r in (record.get("rates") or []) if isinstance(r, dict)]
        made: list[RateChange] = []
        keys = {skill_key(r.get("skill")): r for r in have}
        for key, c in planned.items():
            rate = keys.get(key)
            if rate is None:
                if c.old is None:
                    made.append(c)
                continue
            value = amount(rate.get("hourlyRate"))
            if c.old is not None and value == c.old:
                made.append(c)
            elif change.follows_current and value != c.new:
                made.append(RateChange(str(rate.get("skill", "")).strip(), value, change.new_rate(value)))
        return {"rates": new_rates(have, made)}

    old_rates = rates
    planned_rates = new_rates(rates, now)
    if before_send is not None:
        before_send(*_touched(old_rates, planned_rates, planned))
    record = api.update_record("site", site.site_id, edit, current=current, sender=sender, settle=False)
    final = [r for r in (record.get("rates") or []) if isinstance(r, dict)]
    old, new = _touched(old_rates, final, planned)
    made = [RateChange(str(n.get("skill", "")).strip(),
                       next((amount(o.get("hourlyRate")) for o in old if skill_key(o.get("skill")) == skill_key(n.get("skill"))), None),
                       amount(n.get("hourlyRate"))) for n in new]
    made = [c for c in made if c.old != c.new]
    if not made:
        return Outcome("unchanged")
    return Outcome("updated", made, old, new)


def _moved(site: SitePlan, rates: list[dict[str, Any]]) -> list[str]:
    """`skill: planned -> now` for each planned skill whose rate is not what the plan read."""
    now = {skill_key(r.get("skill")): amount(r.get("hourlyRate")) for r in rates}
    moved = []
    for c in site.changes:
        held = now.get(skill_key(c.skill))
        if held != c.old:
            moved.append(f"{c.skill}: {_money(c.old)} -> {_money(held)}")
    return moved


def _touched(old: list[dict[str, Any]], new: list[dict[str, Any]],
             keys: Iterable[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rates lists before and after, with only the entries of `keys` differing: the entries a
    run changed, which undo restores (others' entries are not the run's)."""
    wanted = set(keys)
    after = {skill_key(r.get("skill")): r for r in new if skill_key(r.get("skill")) in wanted}
    before_keys = {skill_key(r.get("skill")) for r in old}
    out = [after.get(skill_key(r.get("skill")), r) if skill_key(r.get("skill")) in wanted else r for r in old]
    out = [r for r in out if not (skill_key(r.get("skill")) in wanted and skill_key(r.get("skill")) not in after)]
    out.extend(r for key, r in after.items() if key not in before_keys)
    return [dict(r) for r in old], [dict(r) for r in out]


def _money(value: Decimal | None) -> str:
    return "none" if value is None else f"{value:.2f}"
