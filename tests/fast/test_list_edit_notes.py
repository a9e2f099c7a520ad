"""Issue 24 §2/§5: a list edit that adds an entry rather than changing one says so, naming the nearest entry
the site has (`--set-rate forklift=14` beside `Forklift Driver`); one that removes nothing names what the
site has. Moved from tests/messages/test_list_edit_notes.py to the fast layer (issue 46): what `sites
update` says, asked of its run half."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.pages.helpers import add_client
from wfctl.drivers.recordrun import CreateOptions, GetOptions, UpdateOptions, run_create, run_get, run_update


@pytest.fixture
def site(service: Any, run: Any) -> str:
    client_id, _ = add_client(service, 0)
    r = run(run_create, CreateOptions, kind="site", parent=client_id, format="json",
            changes={"name": "Dock 9", "rates": ["Forklift Driver=13.25", "Picker Packer=11.60"],
                     "departments": ["Goods In"]})
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["id"])


def update(run: Any, site: str, *, format: str = "table", dry_run: bool = False, **options: list[str]) -> Any:
    """`wfctl sites update SITE` with the list edits and replacing options in `options` (`set_rate=[...]` is
    --set-rate; `rates=[...]`, `departments`, `bannedWorkers` are --rate, --department, --banned-worker)."""
    edits = {f"--{name.replace('_', '-')}": values for name, values in options.items() if "_" in name}
    changes = {name: values for name, values in options.items() if "_" not in name}
    return run(run_update, UpdateOptions, kind="site", record_id=site, changes=changes, edits=edits, format=format,
               dry_run=dry_run)


def _rates(run: Any, site_id: str) -> list[dict[str, Any]]:
    return list(json.loads(run(run_get, GetOptions, kind="site", record_id=site_id, format="json").stdout)["rates"])


def test_a_skill_near_one_the_site_has_is_refused_and_add_rate_adds_it(run: Any, site: str) -> None:
    """Issue 49: `--set-rate forklift=14` beside `Forklift Driver` added a second forklift rate (a note said so);
    it is refused, naming both ways out, and `--add-rate` adds a new skill on purpose."""
    for value in ("forklift=14", "Forklift Drivr=14"):
        r = update(run, site, set_rate=[value], format="json")
        wanted = value.partition("=")[0]
        assert (r.exit_code, r.stdout) == (2, ""), r
        assert json.loads(r.stderr)["error"]["detail"] == (
            f"--set-rate {value}: the site has no skill {wanted!r}; did you mean Forklift Driver=13.25? to change "
            f'it, give --set-rate "Forklift Driver=14"; to add {wanted!r} as a skill of its own, --add-rate '
            f'"{wanted}=14"')
    assert [rate["skill"] for rate in _rates(run, site)] == ["Forklift Driver", "Picker Packer"]
    r = update(run, site, add_rate=["forklift=14"], format="json")
    assert (r.exit_code, r.stderr) == (0, ""), r  # on purpose: no note
    assert [rate["skill"] for rate in _rates(run, site)] == ["Forklift Driver", "Picker Packer", "forklift"]
    r = update(run, site, add_rate=["picker packer=12"])
    assert (r.exit_code, r.stderr) == (2, "error: --add-rate picker packer=12: the site has Picker Packer=11.60 "
                                          "already; --set-rate changes it\n"), r


def test_the_note_comes_with_a_dry_run_too(run: Any, site: str) -> None:
    r = update(run, site, set_rate=["welder=14"], dry_run=True)
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --set-rate welder=14 adds the skill 'welder' to the site "
                        "(its rates: Forklift Driver, Picker Packer)\n")
    assert len(_rates(run, site)) == 2


def test_changing_a_skill_it_has_says_nothing(run: Any, site: str) -> None:
    r = update(run, site, set_rate=["forklift driver=14"], format="json")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert _rates(run, site)[0] == {"skill": "Forklift Driver", "hourlyRate": 14.0}


@pytest.mark.parametrize(("edit", "message"), [
    ({"remove_rate": ["picker"]}, "--remove-rate picker: the site has no rate for the skill 'picker'; did you "
                                  "mean Picker Packer? its rates: Forklift Driver, Picker Packer"),
    ({"remove_rate": ["welder"]}, "--remove-rate welder: the site has no rate for the skill 'welder'; "
                                  "its rates: Forklift Driver, Picker Packer"),
    ({"remove_department": ["Goods"]}, "--remove-department Goods: the site has no department 'Goods'; did you "
                                       "mean Goods In? its departments: Goods In"),
    ({"remove_banned_worker": ["W-1"]}, "--remove-banned-worker W-1: the site has no banned worker 'W-1': it has "
                                        "no banned workers"),
])
def test_removing_what_the_site_has_not_names_what_it_has(run: Any, site: str, edit: dict[str, list[str]],
                                                           message: str) -> None:
    r = update(run, site, **edit)
    assert (r.exit_code, r.stderr) == (2, f"error: {message}\n"), r  # was: "the site has no such rate for that skill"


def test_a_replacing_option_says_what_it_drops(run: Any, site: str) -> None:
    """Issue 36: `--rate "Cleaner=12"` on a site with two rates dropped both, exit 0, not a word."""
    r = update(run, site, rates=["Cleaner=12"], dry_run=True)
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --rate sets the whole list: Forklift Driver=13.25, Picker Packer=11.60 are dropped "
                        "(--set-rate changes one rate and keeps the others)\n")
    assert len(_rates(run, site)) == 2  # a dry run
    r = update(run, site, departments=["Goods Out"], bannedWorkers=["W-1"], format="json")
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --department sets the whole list: Goods In is dropped (--add-department changes one "
                        "department and keeps the others)\n")  # no ban was dropped: nothing said of it
    r = update(run, site, rates=["Forklift Driver=13.25", "Picker Packer=11.60"], format="json")
    assert (r.exit_code, r.stderr) == (0, ""), r  # the same entries again: nothing dropped, nothing said
