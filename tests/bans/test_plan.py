"""The pure side of bans (`wfctl.api.domain.bans`), no server: what a plan adds and removes, the list a write sends
(everyone else's entries where they were), the ids no one means, and `bans list`'s rows (the judgement
`wfctl audit` shares)."""

from __future__ import annotations

import pytest

from wfctl.api.domain import bans


def site(site_id: str, client_id: str, *workers: str) -> dict[str, object]:
    return {"id": site_id, "name": f"Site {site_id}", "clientId": client_id, "bannedWorkers": list(workers)}


def test_a_plan_adds_only_where_missing_and_removes_only_where_held() -> None:
    sites = [(site("s1", "c1", "W-1"), "Pennine"), (site("s2", "c1"), "Pennine"), (site("s3", "c2", "W-2"), "Aire")]
    plan = bans.plan_bans(sites, add=["W-1", "W-3"])
    assert [(s.site_id, s.add, s.status) for s in plan.sites] == [
        ("s1", ("W-3",), "change"), ("s2", ("W-1", "W-3"), "change"), ("s3", ("W-1", "W-3"), "change")]
    plan = bans.plan_bans(sites, remove=["W-2"], done=lambda site_id: site_id == "s3")
    assert [(s.site_id, s.remove, s.status) for s in plan.sites] == [("s1", (), "unchanged"), ("s2", (), "unchanged")]
    assert [row["change"] for row in bans.plan_bans(sites[:2], add=["W-1"]).rows()] == ["already banned", "add"]
    with pytest.raises(bans.BanError, match="both added and removed"):
        bans.plan_bans(sites, add=["W-1"], remove=["W-1"])


def test_the_list_sent_keeps_everyone_elses_entries_in_place() -> None:
    assert bans.edited(["W-9", "W-1", "W-8"], add=["W-2", "W-9"], remove=["W-1"]) == ["W-9", "W-8", "W-2"]
    assert bans.edited([], add=["W-2", "W-2"]) == ["W-2"]


@pytest.mark.parametrize("text", ["", "  ", "W-1\tW-2", "W\x00-1", "W-1\x7f", "x" * 201])
def test_an_id_no_one_means_is_refused(text: str) -> None:
    with pytest.raises(bans.BanError):
        bans.worker_id(text)
    assert bans.worker_id(" W-1\n") == "W-1"  # trimmed, as the service trims it


def test_client_bans_gives_the_union_and_flags_as_inconsistent_does() -> None:
    records = [site("s1", "c1", "W-1", "W-2"), site("s2", "c1", "W-1"), site("s3", "c2", "W-2")]
    rows = bans.client_bans([(r, "Pennine" if r["clientId"] == "c1" else "Aire") for r in records])
    assert [(r["client"], r["worker"], r["bannedAt"], r["sites"], r["inconsistent"], r["siteIds"]) for r in rows] == [
        ("Pennine", "W-1", 2, 2, False, ["s1", "s2"]), ("Pennine", "W-2", 1, 2, True, ["s1"]),
        ("Aire", "W-2", 1, 1, False, ["s3"])]
    assert [(i.client_id, i.worker) for i in bans.inconsistent(records)] == [("c1", "W-2")]
