"""The arithmetic of `wfctl rates set` (wfctl.api.domain.rates): pure, no service."""

from __future__ import annotations

from decimal import Decimal

import pytest

from wfctl.api.domain import rates
from wfctl.api.domain.rates import Change, RateError, UnknownSkill


def site(name: str, **skills: float) -> tuple[dict, str]:
    return ({"id": f"id-{name}", "name": name, "clientId": "c-1",
             "rates": [{"skill": s.replace("_", " "), "hourlyRate": r} for s, r in skills.items()]}, "Client")


def test_by_percent_rounds_to_the_step_halves_up() -> None:
    change = Change.build(["Forklift Driver"], by="3%", round_to="0.05")
    assert change.new_rate(Decimal("13.25")) == Decimal("13.65")  # 13.6475
    assert change.new_rate(Decimal("13.50")) == Decimal("13.90")  # 13.905
    assert rates.round_to_step(Decimal("12.475"), Decimal("0.05")) == Decimal("12.50")  # a half goes up
    assert rates.round_to_step(Decimal("12.225"), Decimal("0.01")) == Decimal("12.23")
    assert Change.build(["x"], by="-2%").new_rate(Decimal("11.60")) == Decimal("11.37")  # 11.368
    assert Change.build(["x"], by="+0.25").new_rate(Decimal("11.60")) == Decimal("11.85")
    assert Change.build(["x"], by="-0.10").new_rate(Decimal("11.60")) == Decimal("11.50")


def test_floor_raises_exactly_the_rates_below_it_and_ceiling_lowers_those_above() -> None:
    sites = [site("A", Picker_Packer=11.85, Forklift_Driver=13.25), site("B", Picker_Packer=12.21),
             site("C", Picker_Packer=12.35), site("D", Cleaner=11.44)]
    plan = rates.plan_change(sites, Change.build(["picker packer "], floor="12.21"))
    assert [(s.site_name, s.status) for s in plan.sites] == [
        ("A", "change"), ("B", "unchanged"), ("C", "unchanged"), ("D", "skipped")]
    assert [(c.skill, c.old, c.new) for c in plan.sites[0].changes] == [
        ("Picker Packer", Decimal("11.85"), Decimal("12.21"))]
    assert plan.counts() == {"change": 1, "unchanged": 2, "skipped": 1}
    assert plan.sums() == {"Picker Packer": {"changed": 1, "added": 0, "sum": 0.36}}
    assert rates.new_rates(plan.sites[0].rates, plan.sites[0].changes) == [
        {"skill": "Picker Packer", "hourlyRate": 12.21}, {"skill": "Forklift Driver", "hourlyRate": 13.25}]
    ceiling = rates.plan_change(sites, Change.build(["Picker Packer"], ceiling="12.21"))
    assert [s.status for s in ceiling.sites] == ["unchanged", "unchanged", "change", "skipped"]


def test_add_missing_adds_the_skill_in_the_spelling_the_scope_uses() -> None:
    sites = [site("A", Cleaner=11.44), site("B", Steward=11.80)]
    plan = rates.plan_change(sites, Change.build(["CLEANER"], to="12.60", add_missing=True))
    assert [(c.skill, c.old, c.new) for s in plan.sites for c in s.changes] == [
        ("Cleaner", Decimal("11.44"), Decimal("12.60")), ("Cleaner", None, Decimal("12.60"))]
    assert plan.sums() == {"Cleaner": {"changed": 1, "added": 1, "sum": 13.76}}


def test_a_skill_no_site_has_names_the_nearest_and_the_skills_in_scope() -> None:
    sites = [site("A", Forklift_Driver=13.25, Picker_Packer=11.6)]
    with pytest.raises(UnknownSkill) as caught:
        rates.plan_change(sites, Change.build(["forklift"], to="14"))
    assert str(caught.value) == ("no site in scope has a rate for 'forklift'; did you mean 'Forklift Driver'? "
                                 "(skills in scope: Forklift Driver, Picker Packer)")
    with pytest.raises(UnknownSkill, match="did you mean 'Picker Packer'"):
        rates.plan_change(sites, Change.build(["Piker Packer"], to="14"))
    with pytest.raises(UnknownSkill, match="did you mean"):  # --add-missing does not hide a typo
        rates.plan_change(sites, Change.build(["Forklift Drivr"], to="14", add_missing=True))
    plan = rates.plan_change(sites, Change.build(["Night Porter"], to="12.60", add_missing=True))
    assert plan.counts()["change"] == 1  # a new skill, near nothing in scope: added


@pytest.mark.parametrize(("options", "message"), [
    ({}, "give exactly one of --to, --by, --floor, --ceiling"),
    ({"to": "12", "floor": "12"}, "give exactly one of --to, --by, --floor, --ceiling (got --to, --floor)"),
    ({"to": "12.345"}, "--to '12.345': at most two decimals (the service keeps pence)"),
    ({"to": "-1"}, "--to '-1': must be at least 0"),
    ({"floor": "abc"}, "--floor 'abc': not a number (e.g. 12.21)"),
    ({"to": "nan"}, "--to 'nan': not a number (e.g. 12.21)"),
    ({"by": "3%%"}, "--by '3%%': give a change like +3%, -2% or +0.25"),
    ({"by": "+0.333"}, "--by '+0.333': an amount of at most two decimals (or a percentage: +0.333%)"),
    ({"by": "-100%"}, "--by '-100%': a rate cannot fall by 100% or more"),
    ({"to": "12", "round_to": "0.05"}, "--round-to rounds what --by computes; the --to value is used as given"),
    ({"by": "3%", "round_to": "0"}, "--round-to '0': must be more than 0"),
    ({"by": "3%", "add_missing": True}, "--add-missing goes with --to or --floor (a site without the skill has "
                                        "no rate to change by)"),
    ({"to": "12", "max_change": "lots"}, "--max-change 'lots': give a percentage like 25%"),
])
def test_bad_options_are_one_line(options: dict, message: str) -> None:
    with pytest.raises(RateError) as caught:
        Change.build(["Cleaner"], **options)
    assert str(caught.value) == message


def test_max_change_names_the_changes_larger_than_the_limit() -> None:
    sites = [site("A", Cleaner=10.00), site("B", Cleaner=11.00), site("C", Cleaner=0)]
    plan = rates.plan_change(sites, Change.build(["Cleaner"], to="12.60"))
    assert [(s.site_name, share) for s, _, share in plan.over_limit()] == [
        ("A", Decimal(26)), ("C", Decimal("Infinity"))]
    raised = rates.plan_change(sites, Change.build(["Cleaner"], to="12.60", max_change="30%"))
    assert [s.site_name for s, _, _ in raised.over_limit()] == ["C"]


def test_a_change_below_zero_is_refused() -> None:
    with pytest.raises(RateError, match=r"1 rate would fall below 0 \(site 'A', Cleaner: 0.2 -> -0.05\)"):
        rates.plan_change([site("A", Cleaner=0.20)], Change.build(["Cleaner"], by="-0.25"))


def test_summary_per_skill_groups_case_and_spaces() -> None:
    rows = list(rates.rate_rows([site("A", Cleaner=11.0), site("B", cleaner=12.0), site("C", Cleaner=14.0),
                                 site("D", Cleaner=13.0, Steward=9.5)]))
    rows[1]["skill"] = " cleaner "
    assert rates.summary(rows) == [
        {"skill": "Cleaner", "sites": 4, "minimum": 11.0, "median": 12.5, "maximum": 14.0},
        {"skill": "Steward", "sites": 1, "minimum": 9.5, "median": 9.5, "maximum": 9.5}]
