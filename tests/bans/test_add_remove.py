"""`wfctl bans add|remove` against a real sandbox and one whose PUT clears what it leaves out (G13): a plan
sends nothing, a run bans at every site in scope that lacks the id and nothing else changes, the run is
journalled (`imports list|show`, its --note), and undo lifts only the bans the run made: one a colleague
made since stays, on the sites the run changed and the others."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.matrix.conftest import FOR_RECORDS, Deployment, Run

pytestmark = pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)


def three_sites(deployment: Deployment) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A client with three sites (in the service's order, by name): the first bans W-20417 already."""
    client = deployment.client()
    sites = [deployment.site(client["id"], name="Bolton", bannedWorkers=["W-20417", "W-1"]),
             deployment.site(client["id"], name="Oldham", bannedWorkers=[]),
             deployment.site(client["id"], name="Trafford Park", bannedWorkers=["W-7"])]
    order = [row["id"] for row in deployment.all(f"/api/clients/{client['id']}/sites")]
    sites.sort(key=lambda site: order.index(site["id"]))
    return client, [deployment.get("sites", s["id"]) for s in sites]  # type: ignore[misc]


def bans_of(deployment: Deployment, sites: list[dict[str, Any]]) -> list[list[str]]:
    return [deployment.get("sites", s["id"])["bannedWorkers"] for s in sites]  # type: ignore[index]


def newest_run(run: Run) -> dict[str, Any]:
    r = run("imports", "list", "-o", "json")
    assert r.exit_code == 0, r
    return json.loads(r.stdout)[0]


def test_add_plans_bans_everywhere_and_undo_lifts_only_the_runs_bans(deployment: Deployment, run: Run) -> None:
    client, before = three_sites(deployment)
    name = client["name"]
    r = run("bans", "add", "W-20417", "--client", name, "--dry-run")
    assert r.exit_code == 0, r
    change = {"Bolton": "already banned", "Oldham": "add", "Trafford Park": "add"}
    assert r.stdout.splitlines() == [
        "client             site           worker   change",
        *(f"{name}  {s['name']:<13}  W-20417  {change[s['name']]}" for s in before),
        "sites to change  2",
        "unchanged        1",
    ]
    r = run("bans", "add", "W-20417", "--client", name, "--dry-run", "-o", "csv")
    assert r.stdout.splitlines()[1:] == [f"{client['id']},{name},{s['id']},{s['name']},W-20417,{change[s['name']]}"
                                         for s in before]
    assert [deployment.get("sites", s["id"]) for s in before] == before  # a plan sends nothing

    r = run("bans", "add", " W-20417 ", "--client", name, "--note", "timesheet fraud, case 114")
    assert r.exit_code == 0, r
    listed = newest_run(run)
    said = r.stderr
    if deployment.quirks:  # the first update finds out that this deployment clears what a PUT leaves out
        warning, said = said.split("\n", 1)
        assert warning.startswith("warning: site ")
    assert said.startswith(f"run {listed['run']}: 3 sites in ") and said.endswith("updated 2, unchanged 1\n")
    assert r.stdout == ""
    held = {s["name"]: s["bannedWorkers"] for s in (deployment.get("sites", s["id"]) for s in before) if s}
    assert held == {"Bolton": ["W-20417", "W-1"], "Oldham": ["W-20417"], "Trafford Park": ["W-7", "W-20417"]}
    after = [deployment.get("sites", s["id"]) for s in before]
    assert [{**a, "bannedWorkers": None} for a in after if a] == [{**b, "bannedWorkers": None} for b in before]
    assert (listed["kind"], listed["state"], listed["counts"], listed["note"]) == (
        "site", "complete", {"updated": 2, "unchanged": 1, "skipped": 0, "failed": 0}, "timesheet fraud, case 114")
    assert listed["file"] == f"bans add W-20417 --client '{name}'"
    shown = run("imports", "show", listed["run"])
    assert shown.stdout.splitlines()[0] == (f"run {listed['run']}  bans add W-20417 --client '{name}'  "
                                            f"started {listed['started']}  complete")  # not "site import"
    assert shown.stdout.splitlines()[1] == "note: timesheet fraud, case 114"
    assert "  + banned worker W-20417" in shown.stdout.splitlines()

    # a colleague bans W-9 at Oldham after the run: undo lifts the run's W-20417 there, and keeps W-9
    oldham = next(s for s in before if s["name"] == "Oldham")
    deployment.plain.put(f"/api/sites/{oldham['id']}", json={"bannedWorkers": ["W-20417", "W-9"]})
    r = run("imports", "undo", listed["run"], "--yes")
    assert r.exit_code == 0, r
    held = {s["name"]: s["bannedWorkers"] for s in (deployment.get("sites", s["id"]) for s in before) if s}
    assert held == {"Bolton": ["W-20417", "W-1"], "Oldham": ["W-9"], "Trafford Park": ["W-7"]}


def test_remove_lifts_the_bans_and_undo_puts_them_back(deployment: Deployment, run: Run) -> None:
    client, before = three_sites(deployment)
    r = run("bans", "remove", "W-20417", "W-7", "--client", client["id"], "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert {k: summary[k] for k in ("sites", "updated", "unchanged", "skipped", "failed", "dryRun")} == {
        "sites": 3, "updated": 2, "unchanged": 1, "skipped": 0, "failed": 0, "dryRun": False}
    assert bans_of(deployment, before) == [[w for w in s["bannedWorkers"] if w not in ("W-20417", "W-7")] for s in before]
    r = run("imports", "undo", summary["run"], "--yes")
    assert r.exit_code == 0, r
    assert [sorted(bans) for bans in bans_of(deployment, before)] == [sorted(s["bannedWorkers"]) for s in before]


def test_a_run_with_nothing_to_do_sends_nothing(deployment: Deployment, run: Run) -> None:
    client, before = three_sites(deployment)
    r = run("bans", "remove", "W-404", "--client", client["id"])
    assert r.exit_code == 0, r
    assert r.stderr.startswith("no run: 3 sites in ") and r.stderr.endswith(": unchanged 3\n")
    assert [deployment.get("sites", s["id"]) for s in before] == before
