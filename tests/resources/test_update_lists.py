"""`sites update` changes one entry of a list and keeps the rest; --dry-run shows the diff (issue 14 §1)."""

from __future__ import annotations

import json
from typing import Any

from tests.resources.conftest import as_json, make_tree


def _site(wf: Any, tag: str) -> dict[str, str]:
    tree = make_tree(wf, tag)
    r = wf("sites", "update", tree["site1"], "--banned-worker", "W-1", "--rate", "Forklift=13.25",
           "--department", "Goods In:Ann:ann@example.com", "-o", "json")
    assert r.exit_code == 0, r
    return tree


def test_add_banned_worker_keeps_the_others(wf: Any, tag: str) -> None:
    tree = _site(wf, tag)
    r = wf("sites", "update", tree["site1"], "--add-banned-worker", "W-2", "-o", "json")
    assert r.exit_code == 0, r
    assert as_json(wf("sites", "get", tree["site1"], "-o", "json"))["bannedWorkers"] == ["W-1", "W-2"]
    wf("sites", "update", tree["site1"], "--remove-banned-worker", "W-1")
    site = as_json(wf("sites", "get", tree["site1"], "-o", "json"))
    assert site["bannedWorkers"] == ["W-2"]
    assert site["rates"] == [{"skill": "Forklift", "hourlyRate": 13.25}]


def test_set_and_remove_rate_and_department(wf: Any, tag: str) -> None:
    tree = _site(wf, tag)
    r = wf("sites", "update", tree["site1"], "--set-rate", "forklift=14", "--set-rate", "Picker=11.50",
           "--add-department", "Returns:Bo", "-o", "json")
    assert r.exit_code == 0, r
    site = as_json(wf("sites", "get", tree["site1"], "-o", "json"))
    assert site["rates"] == [{"skill": "Forklift", "hourlyRate": 14}, {"skill": "Picker", "hourlyRate": 11.5}]
    assert [d["name"] for d in site["departments"]] == ["Goods In", "Returns"]
    assert site["bannedWorkers"] == ["W-1"]
    wf("sites", "update", tree["site1"], "--remove-rate", "PICKER", "--remove-department", "goods in")
    site = as_json(wf("sites", "get", tree["site1"], "-o", "json"))
    assert site["rates"] == [{"skill": "Forklift", "hourlyRate": 14}]
    assert [(d["name"], d["contactPerson"]) for d in site["departments"]] == [("Returns", "Bo")]


def test_dry_run_shows_a_diff_and_sends_nothing(wf: Any, tag: str) -> None:
    tree = _site(wf, tag)
    before = wf("sites", "get", tree["site1"], "-o", "json").stdout
    r = wf("sites", "update", tree["site1"], "--banned-worker", "W-2", "--rate", "Forklift=14.00",
           "--email", "", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout == (f"dry run: would send PUT /api/sites/{tree['site1']} (nothing sent): 2 fields would change\n"
                        "  rate Forklift: 13.25 -> 14.00\n"
                        "  - banned worker W-1\n"
                        "  + banned worker W-2\n")
    r = wf("sites", "update", tree["site1"], "--add-banned-worker", "W-3", "--dry-run", "-o", "json")
    plan = json.loads(r.stdout)
    assert plan["changes"] == {"bannedWorkers": {"old": ["W-1"], "new": ["W-1", "W-3"]}}
    assert wf("sites", "get", tree["site1"], "-o", "json").stdout == before


def test_list_edit_errors_are_usage_errors(wf: Any, tag: str) -> None:
    tree = _site(wf, tag)
    r = wf("sites", "update", tree["site1"], "--banned-worker", "W-2", "--add-banned-worker", "W-3")
    assert r.exit_code == 2
    assert r.stderr == ("error: --add-banned-worker cannot be combined with --banned-worker "
                        "(which replaces the list)\n")
    r = wf("sites", "update", tree["site1"], "--remove-banned-worker", "W-9")
    assert (r.exit_code, r.stderr) == (2, "error: --remove-banned-worker W-9: the site has no banned worker 'W-9'; "
                                          "its banned workers: W-1\n")
    assert as_json(wf("sites", "get", tree["site1"], "-o", "json"))["bannedWorkers"] == ["W-1"]


def test_list_csv_fed_back_to_import_keeps_every_field(wf: Any, tag: str, tmp_path: Any) -> None:
    """Issue 14 §1: `list -o csv` writes `id` first and only the columns list items carry, so feeding it
    to `import --on-existing update` clears nothing (rates, departments, banned workers stay)."""
    tree = _site(wf, tag)
    before = as_json(wf("sites", "get", tree["site1"], "-o", "json"))
    listed = wf("sites", "list", "--client", tree["client"], "-o", "csv")
    assert listed.stdout.splitlines()[0] == "id,clientId,name,address,phone,email,assessmentRequired", listed
    path = tmp_path / "s.csv"
    path.write_text(listed.stdout, encoding="utf-8")
    r = wf("sites", "import", str(path), "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0 and "to update        0\n" in r.stdout and "unchanged        2\n" in r.stdout, r
    r = wf("sites", "import", str(path), "--on-existing", "update")
    assert r.exit_code == 0, r
    assert as_json(wf("sites", "get", tree["site1"], "-o", "json")) == before
    clients = wf("clients", "list", "--branch", tree["branch"], "-o", "csv").stdout
    assert clients.splitlines()[0] == "id,branchId,name,email,phone"
