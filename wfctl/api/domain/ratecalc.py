"""The arithmetic of a rate change (`wfctl.api.domain.rates`): amounts, a `Change` and the new rate it gives an
old one, and the `Plan` of a change across sites. Pure: nothing here talks to the service (reading sites
is `wfctl.api.domain.ratereads`, applying a plan `wfctl.api.domain.rateapply`).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

CENT = Decimal("0.01")
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


def rates_moved(old: Iterable[dict[str, Any]], new: Iterable[dict[str, Any]], limit: Decimal = MAX_CHANGE,
                ) -> list[tuple[RateChange, Decimal]]:
    """The rates of `new` (a site's rates list, edited) that move by more than `limit` percent from the same
    skill's rate in `old` (skills compared as the service compares them): `1225.00` typed for `12.25`. What
    `rates set --max-change` guards, for an edit of the list (`sites edit`)."""
    before = {skill_key(str(rate.get("skill") or "")): rate for rate in old}
    moved = []
    for rate in new:
        was = before.get(skill_key(str(rate.get("skill") or "")))
        if was is None or was.get("hourlyRate") is None or rate.get("hourlyRate") is None:
            continue
        change = RateChange(str(rate["skill"]), Decimal(str(was["hourlyRate"])), Decimal(str(rate["hourlyRate"])))
        share = change.percent()
        if share is not None and share > limit:
            moved.append((change, share))
    return moved


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
                 "site": self.site_name, "skill": c.skill, "old": json_number(c.old), "new": json_number(c.new),
                 "change": json_number(c.difference)} for c in self.changes]


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
                "sum": json_number(sum((c.difference for c in changes), Decimal(0)))}
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
                        f"{site.site_name!r}, {c.skill}: {json_number(c.old)} -> {json_number(c.new)}); the service "
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



def json_number(value: Decimal | None) -> float | None:
    """A Decimal as the JSON number the service uses (None stays None)."""
    if value is None:
        return None
    return float(value.quantize(CENT, rounding=ROUND_HALF_UP))
