"""Hourly rates across many sites: read them, plan a change, apply it site by site (issue 23).

The service keeps one hourly rate per skill per site (`rates: [{skill, hourlyRate}]`), with no history.
This module is the SDK side of `wfctl rates list|summary|set`; scripts use it the same way:

    from wfctl.api import Client
    from wfctl.api import rates

    with client_from_profile() as client:  # wfctl.factory: the CLI's config and login
        scope = rates.clients_in_scope(client, all_clients=True)
        sites = list(rates.read_sites(client, scope))
        change = rates.Change.build(["Picker Packer"], floor="12.21")
        plan = rates.plan_change(sites, change)          # pure: nothing is sent
        for site in plan.to_change:
            outcome = rates.apply_site(client, site, change)   # re-read, recomputed, read-merge-write
            print(site.site_name, outcome.status, outcome.error)

Skills match as the contract matches them (G11): trimmed, case-insensitively. Amounts are Decimals
with at most two decimals, >= 0. `apply_site` re-reads the site just before its update and recomputes
the change from the rates it holds then: a rate someone moved since the plan is not overwritten
(`changed since the plan: skipped`) unless the change still applies to it as it is now (a floor, a
ceiling). The update is `Client.update_record`'s read-merge-write (G13), with the new rates computed
from each state it reads, so nothing but the rates in question changes, on every deployment.
"""

from __future__ import annotations

import difflib
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from wfctl.api.errors import NotFound

CENT = Decimal("0.01")
#: Sites whose full records are read at once (export's figure: issue 17).
READ_CONCURRENCY = 16
#: The default --max-change: a single change larger than this share of the old rate stops the run.
MAX_CHANGE = Decimal("25")
MODES = ("to", "by", "floor", "ceiling")
#: Statuses of a site in a plan.
CHANGE, UNCHANGED, SKIPPED = "change", "unchanged", "skipped"
MOVED = "changed since the plan: skipped"


class RateError(ValueError):
    """A change that cannot be made as asked (bad amount, unknown skill, ...): nothing was sent."""


class UnknownSkill(RateError):
    """No site in scope has a rate for a skill asked for."""

    def __init__(self, skill: str, suggestion: str | None, in_scope: list[str]) -> None:
        hint = f"; did you mean {suggestion!r}?" if suggestion else ""
        listed = ", ".join(in_scope[:20]) + (f", ... ({len(in_scope)} in all)" if len(in_scope) > 20 else "")
        scope = f" (skills in scope: {listed})" if in_scope else " (no site in scope has any rate)"
        super().__init__(f"no site in scope has a rate for {skill!r}{hint}{scope}")
        self.skill = skill
        self.suggestion = suggestion
        self.in_scope = in_scope


def skill_key(skill: Any) -> str:
    """What makes two skills the same skill to the service: trimmed, case-folded."""
    return str(skill or "").strip().casefold()


def amount(value: Any) -> Decimal:
    """A rate as a Decimal (13.5 == 13.50), from the service's number or a string."""
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        raise RateError(f"{value!r} is not a number") from None


def parse_amount(text: str, option: str, *, allow_zero: bool = True) -> Decimal:
    """A money amount given by a user: a number >= 0 with at most two decimals."""
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise RateError(f"{option} {text!r}: not a number (e.g. 12.21)") from None
    if not value.is_finite():
        raise RateError(f"{option} {text!r}: not a number (e.g. 12.21)")
    if value < 0 or (value == 0 and not allow_zero):
        raise RateError(f"{option} {text!r}: must be {'at least 0' if allow_zero else 'more than 0'}")
    if value != value.quantize(CENT, rounding=ROUND_HALF_UP):
        raise RateError(f"{option} {text!r}: at most two decimals (the service keeps pence)")
    if value >= Decimal("1000000"):
        raise RateError(f"{option} {text!r}: an hourly rate below 1,000,000 is expected")
    return value.quantize(CENT)


def parse_by(text: str) -> tuple[Decimal, bool]:
    """`+3%`, `-2%`, `2.5%` (relative) or `+0.25`, `-0.10` (absolute): (signed amount, is a percentage)."""
    raw = str(text).strip()
    percent = raw.endswith("%")
    number = raw[:-1].strip() if percent else raw
    try:
        value = Decimal(number)
    except InvalidOperation:
        raise RateError(f"--by {text!r}: give a change like +3%, -2% or +0.25") from None
    if not value.is_finite() or number.lstrip("+-") == "":
        raise RateError(f"--by {text!r}: give a change like +3%, -2% or +0.25")
    if not percent and value != value.quantize(CENT, rounding=ROUND_HALF_UP):
        raise RateError(f"--by {text!r}: an amount of at most two decimals (or a percentage: {text}%)")
    if percent and value <= -100:
        raise RateError(f"--by {text!r}: a rate cannot fall by 100% or more")
    return value, percent


def parse_percent(text: str, option: str) -> Decimal:
    raw = str(text).strip().removesuffix("%").strip()
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise RateError(f"{option} {text!r}: give a percentage like 25%") from None
    if not value.is_finite() or value < 0:
        raise RateError(f"{option} {text!r}: give a percentage like 25%")
    return value


def round_to_step(value: Decimal, step: Decimal) -> Decimal:
    """`value` to the nearest multiple of `step`, halves up (12.225 -> 12.23; step 0.05: 12.475 -> 12.50)."""
    return ((value / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step).quantize(CENT)


@dataclass(frozen=True)
class Change:
    """What to do to the rates of `skills`: `mode` is to, by, floor or ceiling, with `value` (a
    percentage when `percent`); `round_to` rounds what `--by` computes; `add_missing` adds the skill at
    the new rate where a site lacks it (to, floor); `max_change` in percent of the old rate."""

    skills: tuple[str, ...]
    mode: str
    value: Decimal
    percent: bool = False
    round_to: Decimal = CENT
    add_missing: bool = False
    max_change: Decimal = MAX_CHANGE

    @classmethod
    def build(cls, skills: Iterable[str], *, to: str | None = None, by: str | None = None,
              floor: str | None = None, ceiling: str | None = None, round_to: str | None = None,
              add_missing: bool = False, max_change: str | None = None) -> Change:
        """A Change from the options' texts; RateError (one line, naming the option) when they do not fit."""
        names = tuple(dict.fromkeys(s.strip() for s in skills if str(s).strip()))
        if not names:
            raise RateError("give the skill to change: --skill NAME (repeatable)")
        given = {mode: text for mode, text in (("to", to), ("by", by), ("floor", floor), ("ceiling", ceiling))
                 if text is not None}
        if len(given) != 1:
            raise RateError("give exactly one of --to, --by, --floor, --ceiling"
                            + (f" (got {', '.join('--' + m for m in given)})" if given else ""))
        mode, text = next(iter(given.items()))
        percent = False
        if mode == "by":
            value, percent = parse_by(text)
        else:
            value = parse_amount(text, f"--{mode}")
        step = CENT
        if round_to is not None:
            if mode != "by":
                raise RateError(f"--round-to rounds what --by computes; the --{mode} value is used as given")
            step = parse_amount(round_to, "--round-to", allow_zero=False)
        if add_missing and mode not in ("to", "floor"):
            raise RateError(f"--add-missing goes with --to or --floor (a site without the skill has no rate to "
                            f"{'change by' if mode == 'by' else 'cap'})")
        limit = MAX_CHANGE if max_change is None else parse_percent(max_change, "--max-change")
        return cls(names, mode, value, percent, step, add_missing, limit)

    def new_rate(self, old: Decimal) -> Decimal:
        """The rate `old` becomes (possibly `old` itself)."""
        if self.mode == "to":
            return self.value
        if self.mode == "floor":
            return max(old, self.value)
        if self.mode == "ceiling":
            return min(old, self.value)
        new = old * (1 + self.value / 100) if self.percent else old + self.value
        return round_to_step(new, self.round_to)

    @property
    def follows_current(self) -> bool:
        """Whether the change may be recomputed from a rate that moved since the plan: a floor or a
        ceiling names the result whatever the rate was; --to and --by were planned from the old rate."""
        return self.mode in ("floor", "ceiling")

    def describe(self) -> str:
        """The change as its options: `--skill 'Picker Packer' --by +3% --round-to 0.05`."""
        import shlex

        parts = [f"--skill {shlex.quote(s)}" for s in self.skills]
        if self.mode == "by":
            sign = "+" if self.value >= 0 else ""
            parts.append(f"--by {sign}{self.value}{'%' if self.percent else ''}")
            if self.round_to != CENT:
                parts.append(f"--round-to {self.round_to}")
        else:
            parts.append(f"--{self.mode} {self.value}")
        if self.add_missing:
            parts.append("--add-missing")
        return " ".join(parts)


@dataclass
class RateChange:
    skill: str  # as the site spells it (or as asked, for a rate added)
    old: Decimal | None  # None: the site had no rate for the skill (--add-missing)
    new: Decimal

    @property
    def difference(self) -> Decimal:
        return self.new - (self.old or Decimal(0))

    def percent(self) -> Decimal | None:
        """The change as a percentage of the old rate (None for a rate added; infinite from 0)."""
        if self.old is None:
            return None
        if self.old == 0:
            return Decimal("Infinity") if self.new != 0 else Decimal(0)
        return abs(self.new - self.old) * 100 / self.old


@dataclass
class SitePlan:
    """One site of a plan: its rates as read, and what changes (`status`: change, unchanged, skipped)."""

    site_id: str
    site_name: str
    client_id: str
    client_name: str
    rates: list[dict[str, Any]]
    changes: list[RateChange] = field(default_factory=list)
    status: str = SKIPPED
    error: str = ""

    def rows(self) -> list[dict[str, Any]]:
        """One row per rate changed, for a plan's output."""
        return [{"clientId": self.client_id, "client": self.client_name, "siteId": self.site_id,
                 "site": self.site_name, "skill": c.skill, "old": _number(c.old), "new": _number(c.new),
                 "change": _number(c.difference)} for c in self.changes]


@dataclass
class Plan:
    change: Change
    sites: list[SitePlan]
    skills: dict[str, str]  # key -> the most common spelling, of every skill in scope

    @property
    def to_change(self) -> list[SitePlan]:
        return [s for s in self.sites if s.status == CHANGE]

    def counts(self) -> dict[str, int]:
        counts = Counter(s.status for s in self.sites)
        return {"change": counts[CHANGE], "unchanged": counts[UNCHANGED], "skipped": counts[SKIPPED]}

    def sums(self) -> dict[str, dict[str, Any]]:
        """Per skill asked for: rates changed, rates added, and the sum of the changes."""
        out: dict[str, dict[str, Any]] = {}
        for skill in self.change.skills:
            key = skill_key(skill)
            changes = [c for s in self.sites for c in s.changes if skill_key(c.skill) == key]
            out[self.skills.get(key, skill)] = {
                "changed": sum(1 for c in changes if c.old is not None),
                "added": sum(1 for c in changes if c.old is None),
                "sum": _number(sum((c.difference for c in changes), Decimal(0)))}
        return out

    def over_limit(self) -> list[tuple[SitePlan, RateChange, Decimal]]:
        """The changes larger than `max_change` percent of their old rate."""
        limit = self.change.max_change
        found = []
        for site in self.sites:
            for c in site.changes:
                share = c.percent()
                if share is not None and share > limit:
                    found.append((site, c, share))
        return found


def plan_change(sites: Iterable[tuple[dict[str, Any], str]], change: Change, *,
                done: Callable[[str], bool] | None = None) -> Plan:
    """The plan of `change` over `sites` ((full site record, client name) pairs): pure, nothing sent.
    `done(site_id)` marks sites an earlier run already settled (left out). Raises UnknownSkill when a
    skill asked for is in no site of the scope (with --add-missing: only when a skill in scope is
    near it, a likely typo), RateError when a new rate would fall below 0."""
    planned: list[SitePlan] = []
    spellings: dict[str, Counter[str]] = {}
    wanted = {skill_key(s): s for s in change.skills}
    for record, client_name in sites:
        rates = [r for r in (record.get("rates") or []) if isinstance(r, dict)]
        for rate in rates:
            spellings.setdefault(skill_key(rate.get("skill")), Counter())[str(rate.get("skill", "")).strip()] += 1
        if done is not None and done(str(record.get("id", ""))):
            continue
        planned.append(_plan_site(record, client_name, rates, change, wanted))
    skills = {key: usual(counter) for key, counter in spellings.items()}
    for key, asked in wanted.items():
        if key in skills:
            continue
        suggestion = nearest(asked, list(skills.values()))
        if not change.add_missing or suggestion is not None:
            raise UnknownSkill(asked, suggestion, sorted(skills.values(), key=str.casefold))
    below = [(s, c) for s in planned for c in s.changes if c.new < 0]
    if below:
        site, c = below[0]
        raise RateError(f"{len(below)} rate{'s' if len(below) != 1 else ''} would fall below 0 (site "
                        f"{site.site_name!r}, {c.skill}: {_number(c.old)} -> {_number(c.new)}); the service "
                        "takes rates of 0 or more")
    for site in planned:  # a rate added takes the spelling the scope uses most
        for c in site.changes:
            if c.old is None:
                c.skill = skills.get(skill_key(c.skill), c.skill)
    return Plan(change, planned, skills)


def usual(spellings: Counter[str]) -> str:
    """The spelling of a skill most sites use; of equally common ones, the first in code point order
    (capitals first: `Picker Packer` before `picker packer`), so the same sites always give the same."""
    return min(spellings.items(), key=lambda item: (-item[1], item[0]))[0]


def nearest(asked: str, skills: list[str]) -> str | None:
    """The skill in scope `asked` most likely meant: one containing it (or contained in it), else the
    closest spelling; None when nothing is near."""
    key = skill_key(asked)
    if not key:
        return None
    by_key = {skill_key(s): s for s in skills}
    within = sorted((k for k in by_key if key in k or (len(k) >= 3 and k in key)), key=lambda k: (abs(len(k) - len(key)), k))
    if within:
        return by_key[within[0]]
    close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.6)
    return by_key[close[0]] if close else None


def _plan_site(record: dict[str, Any], client_name: str, rates: list[dict[str, Any]], change: Change,
               wanted: dict[str, str]) -> SitePlan:
    site = SitePlan(str(record.get("id", "")), str(record.get("name", "")), str(record.get("clientId", "")),
                    client_name, rates)
    site.changes, present = compute(rates, change, wanted)
    site.status = CHANGE if site.changes else UNCHANGED if present else SKIPPED
    return site


def compute(rates: list[dict[str, Any]], change: Change,
            wanted: dict[str, str] | None = None) -> tuple[list[RateChange], bool]:
    """(the rate changes `change` makes to `rates`, whether any skill asked for is there)."""
    wanted = wanted if wanted is not None else {skill_key(s): s for s in change.skills}
    by_key = {skill_key(r.get("skill")): r for r in rates}
    changes: list[RateChange] = []
    present = False
    for key, asked in wanted.items():
        rate = by_key.get(key)
        if rate is None:
            if change.add_missing:
                changes.append(RateChange(asked, None, change.value))
            continue
        present = True
        old = amount(rate.get("hourlyRate"))
        new = change.new_rate(old)
        if new != old:
            changes.append(RateChange(str(rate.get("skill", "")).strip(), old, new))
    return changes, present


def new_rates(rates: list[dict[str, Any]], changes: list[RateChange]) -> list[dict[str, Any]]:
    """`rates` with `changes` made: each entry keeps its place and spelling; rates added go last."""
    by_key = {skill_key(c.skill): c for c in changes}
    out = []
    for rate in rates:
        c = by_key.pop(skill_key(rate.get("skill")), None)
        out.append({**rate, "hourlyRate": float(c.new)} if c is not None else rate)
    out.extend({"skill": c.skill, "hourlyRate": float(c.new)} for c in by_key.values())
    return out


# -- applying ------------------------------------------------------------------------------------

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


# -- reading -------------------------------------------------------------------------------------

def find_record(api: Any, kind: str, ref: str) -> dict[str, Any]:
    """The record `ref` names: its id, a unique beginning of it, or its name (wfctl.api.refs).
    Raises refs.NoSuchRecord (a NotFound), refs.AmbiguousReference."""
    from wfctl.api.refs import require, resolve

    return dict(require(api, kind, resolve(api, kind, ref), ref))


def clients_in_scope(api: Any, *, clients: Iterable[str] = (), branches: Iterable[str] = (),
                     all_clients: bool = False) -> list[tuple[str, str]]:
    """(client id, name) of the clients in scope, each once, in the order given (then the service's)."""
    found: dict[str, str] = {}
    if all_clients:
        for row in api.iter_clients():
            found.setdefault(str(row["id"]), str(row.get("name", "")))
        return list(found.items())
    for ref in clients:
        record = find_record(api, "client", ref)
        found.setdefault(str(record["id"]), str(record.get("name", "")))
    for ref in branches:
        branch = find_record(api, "branch", ref)
        for row in api.iter_clients(branch_id=str(branch["id"])):
            found.setdefault(str(row["id"]), str(row.get("name", "")))
    return list(found.items())


def read_sites(api: Any, clients: Iterable[tuple[str, str]], *, site_ids: Iterable[str] = (),
               concurrency: int = READ_CONCURRENCY, on_site: Callable[[], None] | None = None,
               on_gone: Callable[[dict[str, Any]], None] | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """(full site record, client name) of every site of `clients` and each of `site_ids`, in order:
    clients' site lists are read up to `concurrency` clients at once, full records `concurrency` at
    once (list items carry no rates), memory bounded. A site listed, then deleted before its record
    was read, goes to `on_gone` and is left out."""
    names: dict[str, str] = dict(clients)

    def listed(client_id: str) -> list[dict[str, Any]]:
        return list(api.iter_sites(client_id))

    def summaries() -> Iterator[dict[str, Any]]:
        yield from (row for rows in ordered_map(listed, list(names), concurrency) for row in rows)
        for ref in dict.fromkeys(site_ids):
            yield {"id": ref, "_given": True}

    def full(summary: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
        if summary.get("_given"):  # --site: its id, a beginning of it or its name, found or an error
            record = find_record(api, "site", str(summary["id"]))
            return record, _client_name(str(record.get("clientId", "")))
        try:
            record = dict(api.get_record("site", str(summary["id"])))
        except NotFound:
            if on_gone is not None:
                on_gone(summary)
            return None
        return record, _client_name(str(record.get("clientId", "")))

    def _client_name(client_id: str) -> str:
        if client_id not in names:
            try:
                names[client_id] = str(api.get_record("client", client_id).get("name", ""))
            except NotFound:
                names[client_id] = ""
        return names[client_id]

    for item in ordered_map(full, summaries(), concurrency):
        if item is None:
            continue
        if on_site is not None:
            on_site()
        yield item


def ordered_map(fn: Callable[[Any], Any], items: Iterable[Any], concurrency: int) -> Iterator[Any]:
    """fn over items with at most `concurrency` calls in flight, results in input order, bounded memory."""
    window: deque[Future[Any]] = deque()
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="wfctl-rates") as pool:
        try:
            for item in items:
                window.append(pool.submit(fn, item))
                if len(window) >= concurrency * 2:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for future in window:
                future.cancel()


def rate_rows(sites: Iterable[tuple[dict[str, Any], str]], skills: Iterable[str] = ()) -> Iterator[dict[str, Any]]:
    """One row per site and skill (`clientId`, `client`, `siteId`, `site`, `skill`, `hourlyRate`),
    only the skills named when any are (matched trimmed, case-insensitively)."""
    keys = {skill_key(s) for s in skills if str(s).strip()}
    for record, client_name in sites:
        for rate in record.get("rates") or []:
            if not isinstance(rate, dict) or (keys and skill_key(rate.get("skill")) not in keys):
                continue
            yield {"clientId": str(record.get("clientId", "")), "client": client_name,
                   "siteId": str(record.get("id", "")), "site": str(record.get("name", "")),
                   "skill": str(rate.get("skill", "")).strip(), "hourlyRate": rate.get("hourlyRate")}


def summary(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per skill (trimmed, case-insensitive; the most common spelling shown): sites, minimum, median, maximum."""
    values: dict[str, list[Decimal]] = {}
    spellings: dict[str, Counter[str]] = {}
    for row in rows:
        key = skill_key(row["skill"])
        values.setdefault(key, []).append(amount(row["hourlyRate"]))
        spellings.setdefault(key, Counter())[row["skill"]] += 1
    out = []
    for key in sorted(values, key=lambda k: usual(spellings[k]).casefold()):
        numbers = sorted(values[key])
        n = len(numbers)
        median = numbers[n // 2] if n % 2 else (numbers[n // 2 - 1] + numbers[n // 2]) / 2
        out.append({"skill": usual(spellings[key]), "sites": n, "minimum": _number(numbers[0]),
                    "median": _number(median.quantize(CENT, rounding=ROUND_HALF_UP)),
                    "maximum": _number(numbers[-1])})
    return out


def _money(value: Decimal | None) -> str:
    return "none" if value is None else f"{value:.2f}"


def _number(value: Decimal | None) -> float | None:
    """A Decimal as the JSON number the service uses (None stays None)."""
    if value is None:
        return None
    return float(value.quantize(CENT, rounding=ROUND_HALF_UP))
