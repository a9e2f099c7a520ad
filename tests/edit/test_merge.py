"""The three-way merge of a record (wfctl.api.records.merge), without a server: field by field, entry by entry."""

from __future__ import annotations

from wfctl.api.records.merge import Conflict, changed, three_way

SITE = ("name", "email", "rates", "departments", "bannedWorkers")
BASE = {"name": "Dock 4", "email": "a@x.test", "rates": [{"skill": "Forklift", "hourlyRate": 13.25}],
        "departments": [{"name": "Goods In", "contactPerson": "Ann"}], "bannedWorkers": ["W-1"]}


def _with(**fields: object) -> dict[str, object]:
    return {**BASE, **fields}


def test_their_email_and_my_rate_both_stay() -> None:
    mine = _with(rates=[{"skill": "Forklift", "hourlyRate": 14}])
    theirs = _with(email="b@x.test")
    m = three_way(SITE, BASE, mine, theirs)
    assert m.conflicts == []
    assert m.merged == _with(email="b@x.test", rates=[{"skill": "Forklift", "hourlyRate": 14}])
    assert m.taken == {"email": ("a@x.test", "b@x.test")}


def test_entries_merge_by_key_rates_by_skill_departments_by_name_workers_by_id() -> None:
    mine = _with(rates=[{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11}],
                 bannedWorkers=["W-1", "W-3"], departments=[])
    theirs = _with(rates=[{"skill": "forklift ", "hourlyRate": 15}], bannedWorkers=["W-2", "W-1"],
                   departments=[{"name": "Goods In", "contactPerson": "Ann"}, {"name": "Returns"}])
    m = three_way(SITE, BASE, mine, theirs)
    assert m.conflicts == []
    assert m.merged["rates"] == [{"skill": "forklift ", "hourlyRate": 15}, {"skill": "Picker", "hourlyRate": 11}]
    assert m.merged["bannedWorkers"] == ["W-1", "W-3", "W-2"]
    assert m.merged["departments"] == [{"name": "Returns"}]  # I removed Goods In; they added Returns
    assert set(m.taken) == {"rates", "bannedWorkers", "departments"}


def test_the_same_field_changed_both_ways_is_a_conflict_and_mine_is_kept() -> None:
    m = three_way(SITE, BASE, _with(email="me@x.test"), _with(email="them@x.test"))
    assert m.conflicts == [Conflict("email", None, "a@x.test", "me@x.test", "them@x.test")]
    assert m.merged["email"] == "me@x.test"


def test_the_same_entry_changed_both_ways_is_a_conflict_of_that_entry_only() -> None:
    mine = _with(rates=[{"skill": "Forklift", "hourlyRate": 14}], bannedWorkers=["W-1", "W-5"])
    theirs = _with(rates=[{"skill": "Forklift", "hourlyRate": 15}], bannedWorkers=[])
    m = three_way(SITE, BASE, mine, theirs)
    assert m.conflicts == [Conflict("rates", "Forklift", {"skill": "Forklift", "hourlyRate": 13.25},
                                    {"skill": "Forklift", "hourlyRate": 14}, {"skill": "Forklift", "hourlyRate": 15})]
    assert m.merged["bannedWorkers"] == ["W-5"]  # they lifted W-1's ban, I banned W-5: both


def test_removed_on_one_side_changed_on_the_other_is_a_conflict() -> None:
    mine = _with(departments=[{"name": "Goods In", "contactPerson": "Bo"}])
    m = three_way(SITE, BASE, mine, _with(departments=[]))
    assert [(c.field, c.key, c.theirs) for c in m.conflicts] == [("departments", "Goods In", None)]


def test_the_same_change_on_both_sides_and_equal_forms_are_no_conflict() -> None:
    mine = _with(email="b@x.test", rates=[{"skill": "Forklift", "hourlyRate": 13.250}])
    theirs = _with(email=" b@x.test", rates=[{"skill": "Forklift", "hourlyRate": 13.25}])
    m = three_way(SITE, BASE, mine, theirs)
    assert m.conflicts == [] and m.taken == {}
    assert changed(SITE, BASE, {**BASE, "email": "", "name": "Dock 4 "}) == ["email"]


def test_a_field_missing_is_empty() -> None:
    m = three_way(("phone",), {}, {"phone": ""}, {"phone": "0161"})
    assert (m.merged, m.conflicts) == ({"phone": "0161"}, [])
