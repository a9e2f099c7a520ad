"""Issue 24 §2/§5: a list edit that adds an entry rather than changing one says so, naming the nearest entry
the site has (`--set-rate forklift=14` beside `Forklift Driver`); one that removes nothing names what the
site has. On the seeded sandbox, whose sites have skills such as `Forklift Driver` and `Picker Packer`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.messages.helpers import new_client, new_site


@pytest.fixture
def site(logged_in: Any) -> str:
    client_id, _, _ = new_client(logged_in)
    site_id = new_site(logged_in, client_id, "Dock 9")
    r = logged_in("sites", "update", site_id, "--rate", "Forklift Driver=13.25", "--rate", "Picker Packer=11.60",
                  "--department", "Goods In")
    assert r.exit_code == 0, r
    return site_id


def _rates(cli: Any, site_id: str) -> list[dict[str, Any]]:
    return list(json.loads(cli("sites", "get", site_id, "-o", "json").stdout)["rates"])


def test_a_skill_near_one_the_site_has_is_refused_and_add_rate_adds_it(logged_in: Any, site: str) -> None:
    """Issue 49: `--set-rate forklift=14` beside `Forklift Driver` added a second forklift rate (a note said so);
    it is refused, naming both ways out, and `--add-rate` adds a new skill on purpose."""
    for value in ("forklift=14", "Forklift Drivr=14"):
        r = logged_in("sites", "update", site, "--set-rate", value, "-o", "json")
        wanted = value.partition("=")[0]
        assert (r.exit_code, r.stdout) == (2, ""), r
        assert json.loads(r.stderr)["error"]["detail"] == (
            f"--set-rate {value}: the site has no skill {wanted!r}; did you mean Forklift Driver=13.25? to change "
            f'it, give --set-rate "Forklift Driver=14"; to add {wanted!r} as a skill of its own, --add-rate '
            f'"{wanted}=14"')
    assert [rate["skill"] for rate in _rates(logged_in, site)] == ["Forklift Driver", "Picker Packer"]
    r = logged_in("sites", "update", site, "--add-rate", "forklift=14", "-o", "json")
    assert (r.exit_code, r.stderr) == (0, ""), r  # on purpose: no note
    assert [rate["skill"] for rate in _rates(logged_in, site)] == ["Forklift Driver", "Picker Packer", "forklift"]
    r = logged_in("sites", "update", site, "--add-rate", "picker packer=12")
    assert (r.exit_code, r.stderr) == (2, "error: --add-rate picker packer=12: the site has Picker Packer=11.60 "
                                          "already; --set-rate changes it\n"), r


def test_the_note_comes_with_a_dry_run_too(logged_in: Any, site: str) -> None:
    r = logged_in("sites", "update", site, "--set-rate", "welder=14", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --set-rate welder=14 adds the skill 'welder' to the site "
                        "(its rates: Forklift Driver, Picker Packer)\n")
    assert len(_rates(logged_in, site)) == 2


def test_changing_a_skill_it_has_says_nothing(logged_in: Any, site: str) -> None:
    r = logged_in("sites", "update", site, "--set-rate", "forklift driver=14", "-o", "json")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert _rates(logged_in, site)[0] == {"skill": "Forklift Driver", "hourlyRate": 14.0}


@pytest.mark.parametrize(("args", "message"), [
    (["--remove-rate", "picker"], "--remove-rate picker: the site has no rate for the skill 'picker'; did you mean "
                                  "Picker Packer? its rates: Forklift Driver, Picker Packer"),
    (["--remove-rate", "welder"], "--remove-rate welder: the site has no rate for the skill 'welder'; "
                                  "its rates: Forklift Driver, Picker Packer"),
    (["--remove-department", "Goods"], "--remove-department Goods: the site has no department 'Goods'; did you "
                                       "mean Goods In? its departments: Goods In"),
    (["--remove-banned-worker", "W-1"], "--remove-banned-worker W-1: the site has no banned worker 'W-1': it has "
                                        "no banned workers"),
])
def test_removing_what_the_site_has_not_names_what_it_has(logged_in: Any, site: str, args: list[str],
                                                           message: str) -> None:
    r = logged_in("sites", "update", site, *args)
    assert (r.exit_code, r.stderr) == (2, f"error: {message}\n"), r  # was: "the site has no such rate for that skill"


def test_a_replacing_option_says_what_it_drops(logged_in: Any, site: str) -> None:
    """Issue 36: `--rate "Cleaner=12"` on a site with two rates dropped both, exit 0, not a word."""
    r = logged_in("sites", "update", site, "--rate", "Cleaner=12", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --rate sets the whole list: Forklift Driver=13.25, Picker Packer=11.60 are dropped "
                        "(--set-rate changes one rate and keeps the others)\n")
    assert len(_rates(logged_in, site)) == 2  # a dry run
    r = logged_in("sites", "update", site, "--department", "Goods Out", "--banned-worker", "W-1", "-o", "json")
    assert r.exit_code == 0, r
    assert r.stderr == ("note: --department sets the whole list: Goods In is dropped (--add-department changes one "
                        "department and keeps the others)\n")  # no ban was dropped: nothing said of it
    r = logged_in("sites", "update", site, "--rate", "Forklift Driver=13.25", "--rate", "Picker Packer=11.60",
                  "-o", "json")  # the same entries again: nothing dropped, nothing said
    assert (r.exit_code, r.stderr) == (0, ""), r
