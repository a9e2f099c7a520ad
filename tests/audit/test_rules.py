"""The pure part of `wfctl audit` (wfctl.payroll.floors, lookalike, audit): the floors' arithmetic, the
look-alike rule, the choice of checks. No server."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

import pytest

from wfctl.payroll import audit, floors
from wfctl.payroll.lookalike import Named, look_alikes, name_key

DAY = dt.date(2026, 11, 28)


def test_the_charge_floor_of_the_docs_worked_example() -> None:
    built = floors.charge_floor("pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60", DAY)
    # holiday pay 12.71 x 12.07% = 1.534097; earnings 14.244097; on-costs x 18.5% = 2.635157945;
    # 14.244097 + 2.635157945 + 0.60 = 17.479254945, up to the penny: 17.48
    assert built.holiday_pay == Decimal("1.534097")
    assert built.earnings == Decimal("14.244097")
    assert built.on_costs == Decimal("2.635157945")
    assert built.amount == Decimal("17.48")
    assert built.describe() == ("17.48 (pay 12.71 + holiday 12.07% + ni 15% + pension 3% + levy 0.5% + "
                                "overhead 0.60)")


def test_a_charge_floor_rounds_up_never_down_and_pay_alone_is_pay() -> None:
    # 10.00 x 1.001 = 10.01 exactly; 10.00 x 1.0001 = 10.001 -> 10.01 (10.00 would not cover it)
    assert floors.charge_floor("pay=10,ni=0.1%", DAY).amount == Decimal("10.01")
    assert floors.charge_floor("pay=10,ni=0.01%", DAY).amount == Decimal("10.01")
    assert floors.charge_floor(" pay = 12.21 ", DAY).amount == Decimal("12.21")
    assert floors.charge_floor("PAY=12.21,Overhead=0", DAY).describe() == "12.21 (pay 12.21)"


def test_pay_nlw_is_the_statutory_rate_of_the_day() -> None:
    assert floors.charge_floor("pay=nlw,holiday=12.07%", DAY).pay == floors.Floor(Decimal("12.71"),
                                                                                "nlw 21+ on 2026-11-28")
    before_april = floors.charge_floor("pay=nlw", dt.date(2026, 3, 31))
    assert before_april.amount == Decimal("12.21")
    assert floors.pay_floor("nlw:18-20", DAY) == floors.Floor(Decimal("10.85"), "nlw 18-20 on 2026-11-28")
    assert floors.pay_floor("nlw:18-20", DAY).describe() == "10.85 (nlw 18-20 on 2026-11-28)"
    assert floors.pay_floor("12.71", DAY).describe() == "12.71"


@pytest.mark.parametrize(("text", "message"), [
    ("pay=12.71,holiday=12.07", "--charge-floor holiday=12.07: a percentage of earnings, e.g. holiday=3%"),
    ("pay=12.71,tax=20%", "--charge-floor: unknown part 'tax'; the parts are pay, holiday, ni, pension, levy, "
                          "overhead"),
    ("holiday=12.07%", "--charge-floor: give the pay it is built on, e.g. pay=12.71,holiday=12.07%,ni=15%,"
                       "pension=3%,levy=0.5%,overhead=0.60"),
    ("pay=12.71,pay=13", "--charge-floor: pay is given twice"),
    ("pay", "--charge-floor: 'pay' is not part=value (e.g. pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,"
            "overhead=0.60)"),
    ("pay=12.71,ni=150%", "--charge-floor ni=150%: a percentage from 0% to 100%"),
    ("pay=12.71,ni=x%", "--charge-floor ni=x%: not a percentage (e.g. ni=3%)"),
    ("pay=12.71,overhead=0.605", "--charge-floor overhead '0.605': at most two decimals (the service keeps pence)"),
    ("pay=abc", "--charge-floor pay 'abc': not a number (e.g. 12.21); or nlw[:21+|18-20|16-17|apprentice], the "
                "statutory rate"),
    ("pay=nlw:17", "--charge-floor pay nlw:17: unknown band '17'; nlw takes one of 21+, 18-20, 16-17, apprentice "
                   "(nlw alone is 21+)"),
])
def test_a_bad_charge_floor_is_one_line(text: str, message: str) -> None:
    with pytest.raises(floors.FloorError) as caught:
        floors.charge_floor(text, DAY)
    assert str(caught.value) == message


def test_a_bad_floor_is_one_line() -> None:
    with pytest.raises(floors.FloorError, match=r"^--floor '0': must be more than 0; or nlw\["):
        floors.pay_floor("0", DAY)
    with pytest.raises(floors.FloorError, match=r"^--floor nlw: wfctl's table of statutory rates \(checked "):
        floors.pay_floor("nlw", dt.date(2027, 4, 1))


def test_names_keys_drop_case_spacing_punctuation_accents_and_common_words() -> None:
    assert name_key("Ardwick Cross-Dock Ltd") == name_key("  ardwick  CROSSDOCK ") == "ardwickcrossdock"
    assert name_key("Café & Bar") == name_key("cafe and bar") == "cafeandbar"
    assert name_key("The Site") == "thesite"  # nothing but common words: they stay


def _named(*names: tuple[str, str]) -> list[Named]:
    return [Named(f"s{i}", name, client, client.upper()) for i, (name, client) in enumerate(names)]


def test_look_alikes_across_clients_only() -> None:
    sites = _named(("Ardwick Cross-Dock", "a"), ("ardwick crossdock ltd", "b"), ("Ardwik Cross Dock", "c"),
                   ("Ardwick Cross-Dock", "a"), ("Unit 1 Leeds Dock", "a"), ("Unit 2 Leeds Dock", "b"),
                   ("Leeds Dokc Yard", "a"), ("Leeds Dock Yard", "b"), ("Bay 7", "a"), ("Bay 8", "b"),
                   ("Trafford Park", "a"), ("Salford Quays", "b"))
    assert look_alikes(sites) == {0: [1, 2], 1: [0, 2, 3], 2: [0, 1, 3], 3: [1, 2],  # equal keys, one letter off
                                  6: [7], 7: [6]}  # two letters swapped; other digits, short keys: not alike


@pytest.mark.serial  # a time bound
def test_look_alikes_of_3000_sites_take_well_under_a_second() -> None:
    import random
    import string

    chooser = random.Random(35)
    sites = [Named(str(i), " ".join("".join(chooser.choice(string.ascii_lowercase) for _ in range(6))
                                    for _ in range(3)), str(i % 30), "") for i in range(3000)]
    started = time.perf_counter()
    look_alikes(sites)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("only", "skip", "given", "chosen"), [
    ([], [], [], ["no-rates", "skill-spelling", "department-email", "assessment-document", "inconsistent-bans",
                  "look-alike-sites"]),
    ([], ["look-alike-sites", "no-rates"], ["--floor"], ["under-floor", "skill-spelling", "department-email",
                                                        "assessment-document", "inconsistent-bans"]),
    (["under-charge-floor", "no-rates"], [], ["--charge-floor"], ["no-rates", "under-charge-floor"]),
])
def test_the_checks_chosen(only: list[str], skip: list[str], given: list[str], chosen: list[str]) -> None:
    assert audit.choose(only, skip, floors=given) == chosen


@pytest.mark.parametrize(("only", "skip", "message"), [
    (["no-rates"], ["look-alike-sites"], "give --only or --skip, not both"),
    (["rates"], [], "unknown check 'rates'; the checks are no-rates, under-floor, under-charge-floor, "
                    "skill-spelling, department-email, assessment-document, inconsistent-bans, look-alike-sites"),
    (["under-floor"], [], "--only under-floor needs --floor, e.g. --floor nlw"),
])
def test_checks_that_cannot_run_as_asked(only: list[str], skip: list[str], message: str) -> None:
    with pytest.raises(audit.AuditError) as caught:
        audit.choose(only, skip)
    assert str(caught.value) == message


def test_a_rate_on_the_floor_is_no_finding_a_penny_under_is() -> None:
    report = audit.Audit(["under-floor"], floors.pay_floor("12.71", DAY))
    report.add({"id": "s1", "clientId": "c1", "name": "Yard", "rates": [
        {"skill": "Cleaner", "hourlyRate": 12.71}, {"skill": "Picker", "hourlyRate": 12.7}]}, "Acme")
    assert [f.row() for f in report.findings()] == [{
        "check": "under-floor", "kind": "site", "id": "s1", "name": "Yard", "clientId": "c1", "client": "Acme",
        "branchId": "", "branch": "", "found": "Picker 12.70 an hour, under the pay floor 12.71",
        "fix": "wfctl rates set --site s1 --skill Picker --floor 12.71"}]
