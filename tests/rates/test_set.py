"""`wfctl rates set` against a real sandbox and one whose PUT clears what it leaves out (G13): only the
rates in question change, a plan sends nothing, undo puts every rate back, and a rate someone moved
between the plan and the run is not overwritten."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.matrix.conftest import FOR_RECORDS, Deployment, Run

pytestmark = pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)


def rates_of(record: dict[str, Any] | None) -> dict[str, float]:
    assert record is not None
    return {r["skill"]: r["hourlyRate"] for r in record["rates"]}


def three_sites(deployment: Deployment) -> tuple[str, list[dict[str, Any]]]:
    client = deployment.client()
    sites = [
        deployment.site(client["id"], rates=[{"skill": "Picker Packer", "hourlyRate": 11.85},
                                             {"skill": "Forklift Driver", "hourlyRate": 13.25}]),
        deployment.site(client["id"], rates=[{"skill": "picker packer ", "hourlyRate": 12.5},
                                             {"skill": "Cleaner", "hourlyRate": 11.6}]),
        deployment.site(client["id"], rates=[{"skill": "Forklift Driver", "hourlyRate": 12.1}],
                        bannedWorkers=[], departments=[]),
    ]
    return client["id"], [deployment.get("sites", s["id"]) for s in sites]  # type: ignore[misc]


def newest_run(run: Run) -> str:
    r = run("imports", "list", "-o", "json")
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)[0]["run"])


def test_floor_raises_exactly_the_rates_below_it_and_undo_puts_them_back(deployment: Deployment, run: Run) -> None:
    client_id, before = three_sites(deployment)
    r = run("rates", "set", "--client", client_id, "--skill", "PICKER PACKER", "--floor", "12.21", "--dry-run")
    assert r.exit_code == 0, r
    assert [line.split()[-3:] for line in r.stdout.splitlines()[1:2]] == [["11.85", "12.21", "+0.36"]]
    assert r.stdout.splitlines()[2:] == ["sites to change                  1", "unchanged                        1",
                                         "skipped (no rate for the skill)  1", "Picker Packer                    1 changed, sum +0.36"]
    assert [deployment.get("sites", s["id"]) for s in before] == before  # a plan sends nothing

    r = run("rates", "set", "--client", client_id, "--skill", "PICKER PACKER", "--floor", "12.21")
    assert r.exit_code == 0, r
    run_id = newest_run(run)
    said = r.stderr
    if deployment.quirks:  # the first update finds out that this deployment clears what a PUT leaves out
        warning, said = said.split("\n", 1)
        assert warning.startswith(f"warning: site {before[0]['id']}: the service needs every field in a PUT. ")
    assert said.startswith(f"run {run_id}: 3 sites in ") and said.endswith("updated 1, unchanged 1, skipped 1\n")
    after = [deployment.get("sites", s["id"]) for s in before]
    assert rates_of(after[0]) == {"Picker Packer": 12.21, "Forklift Driver": 13.25}
    assert {**after[0], "rates": None} == {**before[0], "rates": None}  # every other field as it was
    assert after[1:] == before[1:]

    listed = json.loads(run("imports", "list", "-o", "json").stdout)[0]
    assert (listed["kind"], listed["state"], listed["counts"]) == (
        "site", "complete", {"updated": 1, "unchanged": 1, "skipped": 1, "failed": 0})
    assert listed["file"] == f"rates set --skill 'PICKER PACKER' --floor 12.21 --client {client_id}"
    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    assert [deployment.get("sites", s["id"]) for s in before] == before


def test_by_percent_with_round_to_computes_as_stated(deployment: Deployment, run: Run) -> None:
    client_id, before = three_sites(deployment)
    r = run("rates", "set", "--client", client_id, "--skill", "Forklift Driver", "--skill", "picker packer",
            "--by", "3%", "--round-to", "0.05", "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert {k: summary[k] for k in ("sites", "updated", "unchanged", "skipped", "failed")} == {
        "sites": 3, "updated": 3, "unchanged": 0, "skipped": 0, "failed": 0}
    after = [deployment.get("sites", s["id"]) for s in before]
    # 11.85 * 1.03 = 12.2055 -> 12.20; 13.25 -> 13.6475 -> 13.65; 12.50 -> 12.875 -> 12.90 (a half: up);
    # 12.10 -> 12.463 -> 12.45
    assert [rates_of(a) for a in after] == [{"Picker Packer": 12.2, "Forklift Driver": 13.65},
                                           {"picker packer": 12.9, "Cleaner": 11.6}, {"Forklift Driver": 12.45}]
    for old, new in zip(before, after, strict=True):
        assert {**new, "rates": None} == {**old, "rates": None}
    r = run("imports", "undo", newest_run(run), "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.endswith("restored 3 sites\n")
    assert [deployment.get("sites", s["id"]) for s in before] == before


def test_a_rate_moved_between_plan_and_run_is_not_overwritten(deployment: Deployment, run: Run,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    client_id, before = three_sites(deployment)
    moved = before[0]["id"]
    _changed_after_the_plan(monkeypatch, deployment, moved, picker=11.85, forklift=14.0)
    r = run("rates", "set", "--client", client_id, "--skill", "forklift driver", "--to", "13.50")
    assert r.exit_code == 0, r
    assert (f"site {before[0]['name']} ({moved}): changed since the plan: skipped (Forklift Driver: 13.25 -> 14.00)\n"
            in r.stderr)
    assert r.stderr.endswith("updated 1, skipped 2\n")
    assert rates_of(deployment.get("sites", moved))["Forklift Driver"] == 14.0
    assert rates_of(deployment.get("sites", before[2]["id"])) == {"Forklift Driver": 13.5}


def test_a_floor_still_applies_to_a_rate_moved_below_it(deployment: Deployment, run: Run,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    client_id, before = three_sites(deployment)
    moved = before[0]["id"]
    _changed_after_the_plan(monkeypatch, deployment, moved, picker=11.0, forklift=13.3)
    r = run("rates", "set", "--client", client_id, "--skill", "Picker Packer", "--floor", "12.21")
    assert r.exit_code == 0, r
    assert r.stderr.endswith("updated 1, unchanged 1, skipped 1\n"), r.stderr
    # the floor raised the rate as it was then; their change to another skill is kept
    assert rates_of(deployment.get("sites", moved)) == {"Picker Packer": 12.21, "Forklift Driver": 13.3}


def test_an_unknown_skill_or_a_large_change_stops_before_anything_is_sent(deployment: Deployment, run: Run) -> None:
    client_id, before = three_sites(deployment)
    r = run("rates", "set", "--client", client_id, "--skill", "forklift", "--to", "14")
    assert (r.exit_code, r.stderr) == (2, "error: no site in scope has a rate for 'forklift'; did you mean "
                                          "'Forklift Driver'? (skills in scope: Cleaner, Forklift Driver, "
                                          "Picker Packer); nothing was sent\n")
    r = run("rates", "set", "--client", client_id, "--skill", "Cleaner", "--by", "+30%")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0].startswith("too large: ")
    assert r.stderr.splitlines()[0].endswith(f"({before[1]['id']}): Cleaner 11.60 -> 15.08 (30.0%)")
    assert r.stderr.splitlines()[1] == ("error: 1 change would move a rate by more than 25% of its old value; "
                                        "nothing was sent (check the plan with --dry-run; --max-change 30% allows "
                                        "them on purpose)")
    assert [deployment.get("sites", s["id"]) for s in before] == before
    # issue 36: the dry run the message points to shows the plan, the change over the limit marked, and exits as
    # the run would (it refused too, with the same advice to look at the plan it did not show)
    r = run("rates", "set", "--client", client_id, "--skill", "Cleaner", "--by", "+30%", "--dry-run")
    assert r.exit_code == 2, r
    assert r.stdout.splitlines()[0].split() == ["client", "site", "skill", "old", "new", "change", "limit"]
    assert [line.split()[-2:] for line in r.stdout.splitlines()[1:2]] == [["over", "25%"]], r.stdout
    assert r.stderr == ("error: 1 change would move a rate by more than 25% of its old value; nothing was sent "
                        "(marked in the plan; --max-change 30% allows them on purpose)\n")
    r = run("rates", "set", "--client", client_id, "--skill", "Cleaner", "--by", "+30%", "--dry-run", "-o", "json")
    assert [row.get("overLimit") for row in json.loads(r.stdout)["rows"]] == [True]
    assert [deployment.get("sites", s["id"]) for s in before] == before
    r = run("rates", "set", "--client", client_id, "--skill", "Cleaner", "--by", "+30%", "--max-change", "30%")
    assert r.exit_code == 0, r
    assert rates_of(deployment.get("sites", before[1]["id"]))["Cleaner"] == 15.08


def test_list_and_summary(deployment: Deployment, run: Run) -> None:
    client_id, before = three_sites(deployment)
    r = run("rates", "list", "--client", client_id, "--skill", " picker PACKER", "-o", "csv")
    assert r.exit_code == 0, r
    name = run("clients", "get", client_id, "-o", "json")
    client_name = json.loads(name.stdout)["name"]
    lines = r.stdout.splitlines()
    assert lines[0] == "clientId,client,siteId,site,skill,hourlyRate"
    assert sorted(lines[1:]) == sorted([  # in the service's order of the sites (by name)
        f"{client_id},{client_name},{before[0]['id']},{before[0]['name']},Picker Packer,11.85",
        f"{client_id},{client_name},{before[1]['id']},{before[1]['name']},picker packer,12.50"])
    r = run("rates", "summary", "--client", client_id, "-o", "json")
    assert json.loads(r.stdout) == [
        {"skill": "Cleaner", "sites": 1, "minimum": 11.6, "median": 11.6, "maximum": 11.6},
        {"skill": "Forklift Driver", "sites": 2, "minimum": 12.1, "median": 12.68, "maximum": 13.25},
        {"skill": "Picker Packer", "sites": 2, "minimum": 11.85, "median": 12.18, "maximum": 12.5}]
    r = run("rates", "list")
    assert (r.exit_code, r.stderr) == (2, "error: give the sites: --client <client>, --branch <branch>, "
                                          "--all-clients or --site <site>\n")


def test_list_and_summary_answer_an_unknown_skill_as_set_does(deployment: Deployment, run: Run, tmp_path: Any) -> None:
    """Issue 30 §5: `rates list|summary --skill 'Forklift Drivr'` printed an empty table, exit 0."""
    client_id, _ = three_sites(deployment)
    said = ("error: no site in scope has a rate for 'Forklift Drivr'; did you mean 'Forklift Driver'? (skills in "
            "scope: Cleaner, Forklift Driver, Picker Packer)")
    for command in (["list"], ["summary"], ["list", "-o", "json"]):
        r = run("rates", *command, "--client", client_id, "--skill", "Forklift Drivr")
        assert (r.exit_code, r.stdout) == (2, ""), r
        if "json" in command:
            assert json.loads(r.stderr)["error"]["title"] == said.removeprefix("error: ")
        else:
            assert r.stderr == said + "\n"
    r = run("rates", "set", "--client", client_id, "--skill", "Forklift Drivr", "--to", "14")
    assert r.stderr == said + "; nothing was sent\n"
    r = run("rates", "list", "--client", client_id, "--skill", "Forklift Drivr", "--file", str(tmp_path / "r.csv"))
    assert (r.exit_code, r.stderr, (tmp_path / "r.csv").exists()) == (2, said + "\n", False), r
    r = run("rates", "summary", "--client", client_id, "--skill", "forklift driver ", "-o", "json")
    assert [(row["skill"], row["sites"]) for row in json.loads(r.stdout)] == [("Forklift Driver", 2)], r


def _changed_after_the_plan(monkeypatch: pytest.MonkeyPatch, deployment: Deployment, site_id: str, *,
                            picker: float, forklift: float) -> None:
    """Someone else sets the site's rates after the plan was read and checked, before anything is sent."""
    from wfctl.drivers import ratesrun as runner

    checked = runner._over_limit

    def someone_else_changes_it(err: Any, plan: Any, **how: Any) -> Any:
        over = checked(err, plan, **how)
        answer = deployment.plain.put(f"/api/sites/{site_id}", json={"rates": [
            {"skill": "Picker Packer", "hourlyRate": picker}, {"skill": "Forklift Driver", "hourlyRate": forklift}]})
        assert answer.status_code == 200, answer.text
        return over

    monkeypatch.setattr(runner, "_over_limit", someone_else_changes_it)
