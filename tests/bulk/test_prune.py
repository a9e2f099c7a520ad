"""`import --prune` end to end (issue 32 §2): the declared scope, the guards, the plan listing every
delete first, the journal, the report and `imports undo` re-creating what a prune deleted."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, write
from tests.matrix.conftest import Deployment

HEADER = "name,address,rates,bannedWorkers\n"


def site_file(names: list[str]) -> str:
    return HEADER + "".join(f"{name},{i} Dock Rd,Picker={11 + i}.5,W-{i}\n" for i, name in enumerate(names))


def client_with_sites(cli: Any, tmp_path: Path, count: int) -> tuple[str, str, list[str]]:
    """A new client holding `count` sites (`Site 00` ...): its id, name and the site names."""
    name = f"Prune {uuid.uuid4().hex[:8]}"
    cid = new_client(cli, name)
    names = [f"Site {i:02d}" for i in range(count)]
    r = cli("sites", "import", str(write(tmp_path / "all.csv", site_file(names))), "--client", cid)
    assert r.exit_code == 0, r
    return cid, name, names


def held(cli: Any, cid: str) -> dict[str, dict[str, Any]]:
    r = cli("sites", "list", "--client", cid, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return {site["name"]: site for site in json.loads(r.stdout)}


def test_prune_deletes_what_the_file_lacks_and_undo_makes_it_again(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 8)
    before = held(cli, cid)
    gone = json.loads(cli("sites", "get", before["Site 07"]["id"], "-o", "json").stdout)
    kept = write(tmp_path / "kept.csv", site_file(names[:7]))
    report = tmp_path / "report.csv"
    r = cli("sites", "import", str(kept), "--client", name, "--prune", "--yes", "--report", str(report),
            "-o", "json")
    assert r.exit_code == 0, r
    assert f"delete  Site 07  ({gone['id']})\n  in client {name}\n" in r.stderr
    assert f"prune: 1 of 8 sites in client {name} to delete\n" in r.stderr
    summary = json.loads(r.stdout)
    assert (summary["deleted"], summary["skipped"], summary["created"]) == (1, 7, 0)
    assert sorted(held(cli, cid)) == names[:7]
    rows = list(csv.DictReader(io.StringIO(report.read_text(encoding="utf-8-sig"), newline="")))
    assert [(row["name"], row["status"], row["id"]) for row in rows[7:]] == [("Site 07", "deleted", gone["id"])]
    # the run is journalled: undo makes the site again, every field as it was, with a new id
    r = cli("imports", "undo", summary["run"], "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.strip().endswith("re-created 1 site (with new ids)"), r
    again = held(cli, cid)["Site 07"]
    assert again["id"] != gone["id"]
    made = json.loads(cli("sites", "get", again["id"], "-o", "json").stdout)
    assert {k: v for k, v in made.items() if k not in ("id", "createdOn", "updatedOn")} == \
        {k: v for k, v in gone.items() if k not in ("id", "createdOn", "updatedOn")}


def test_no_scope_no_prune(logged_in: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "s.csv", "clientId,name\nx,Site\n")
    r = logged_in("sites", "import", str(path), "--prune")
    assert (r.exit_code, r.stderr) == (2, "error: --prune needs a declared scope: give --client, --branch or "
                                          "--all-clients (no scope, no prune: the scope is never read from the rows)\n")
    r = logged_in("clients", "import", str(path), "--prune")
    assert r.exit_code == 2 and "give --branch or --all-branches" in r.stderr, r
    r = logged_in("sites", "import", str(path), "--all-clients")
    assert (r.exit_code, r.stderr) == (2, "error: --all-clients declares the scope of a prune: add --prune\n")


def test_a_file_with_no_rows_for_the_scope_refuses(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, _ = client_with_sites(cli, tmp_path, 3)
    for text in (HEADER, "name\n\n"):
        r = cli("sites", "import", str(write(tmp_path / "empty.csv", text)), "--client", cid, "--prune", "--yes",
                "--allow-deletes", "3")
        assert (r.exit_code, r.stderr) == (2, f"error: empty.csv has no rows: a prune of it would delete all 3 sites "
                                              f"of {name}; nothing was sent (to delete them, use `wfctl sites "
                                              "delete`)\n")
    assert len(held(cli, cid)) == 3
    # issue 49: a header-only file over a client of many sites names no one-at-a-time delete
    many, many_name, _ = client_with_sites(cli, tmp_path, 12)
    r = cli("sites", "import", str(write(tmp_path / "header.csv", HEADER)), "--client", many, "--prune", "--yes")
    assert (r.exit_code, r.stderr) == (2, f"error: header.csv has no rows: a prune of it would delete all 12 sites "
                                          f"of {many_name}; nothing was sent (is it the file you meant? a prune "
                                          "deletes only what a file leaves out)\n")
    assert len(held(cli, many)) == 12


def test_deletes_are_bounded_by_count_and_share_at_every_size(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 12)
    one = write(tmp_path / "one.csv", site_file(names[:1]))
    r = cli("sites", "import", str(one), "--client", cid, "--prune", "--yes")
    assert r.exit_code == 12, r
    assert r.stderr.count("delete  Site ") == 11  # the whole list, never shortened
    assert r.stderr.endswith(f"error: would delete 11 sites of 12 in client {name} (92%), over --max-deletes 10 "
                             "and --max-delete-share 25%; nothing was sent: review the list above, then give "
                             "--allow-deletes 11 to go ahead\n"), r
    r = cli("sites", "import", str(one), "--client", cid, "--prune", "--yes", "--allow-deletes", "10")
    assert r.exit_code == 12 and "--allow-deletes 10 does not match the plan, which deletes 11" in r.stderr, r
    assert len(held(cli, cid)) == 12
    # a small scope: 2 of 4 is within the count, over the share
    small, _, small_names = client_with_sites(cli, tmp_path, 4)
    half = write(tmp_path / "half.csv", site_file(small_names[:2]))
    r = cli("sites", "import", str(half), "--client", small, "--prune", "--yes")
    assert r.exit_code == 12 and "over --max-delete-share 25%" in r.stderr, r
    r = cli("sites", "import", str(half), "--client", small, "--prune", "--yes", "--max-delete-share", "0.5")
    assert r.exit_code == 0, r
    assert sorted(held(cli, small)) == small_names[:2]
    r = cli("sites", "import", str(one), "--client", cid, "--prune", "--yes", "--allow-deletes", "11")
    assert r.exit_code == 0, r
    assert sorted(held(cli, cid)) == names[:1]


def test_refused_with_skip_invalid_and_without_a_terminal_or_yes(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, _, names = client_with_sites(cli, tmp_path, 2)
    path = write(tmp_path / "k.csv", site_file(names[:1]))
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--skip-invalid", "--yes")
    assert r.exit_code == 2 and "--prune refuses --skip-invalid" in r.stderr, r
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--max-delete-share", "1")
    assert r.exit_code == 2, r
    assert r.stderr.endswith("error: refusing to delete without confirmation: no terminal to ask on; pass --yes "
                             "(or --dry-run to see the plan); nothing was sent\n"), r
    assert len(held(cli, cid)) == 2


def test_the_plan_lists_every_delete_first_and_the_counts(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 4)
    ids = {site_name: site["id"] for site_name, site in held(cli, cid).items()}
    path = write(tmp_path / "plan.csv", site_file([*names[:3], "Site 99"]))
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout.startswith(f"delete  Site 03  ({ids['Site 03']})\n  in client {name}\nrow 4  create  Site 99\n")
    assert r.stdout.endswith("to delete        1\nto create        1\nto update        0\nunchanged        0\n"
                             "skipped (exist)  3\ninvalid          0\n"), r
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--dry-run", "-o", "json")
    plan = json.loads(r.stdout)
    assert plan["rows"][0] == {"row": None, "action": "delete", "status": "deleted", "id": ids["Site 03"],
                               "name": "Site 03", "parent": {"id": cid, "name": name},
                               "changes": {"name": {"old": "Site 03", "new": None},
                                           "address": {"old": "3 Dock Rd", "new": None},
                                           "phone": {"old": "", "new": None}, "email": {"old": "", "new": None},
                                           "assessmentRequired": {"old": False, "new": None},
                                           "rates": {"old": [{"skill": "Picker", "hourlyRate": 14.5}], "new": None},
                                           "departments": {"old": [], "new": None},
                                           "bannedWorkers": {"old": ["W-3"], "new": None}}}
    assert [row["action"] for row in plan["rows"]] == ["delete", "create"]
    assert (plan["summary"]["deleted"], plan["summary"]["created"]) == (1, 1)
    assert len(held(cli, cid)) == 4  # a plan sends nothing


def test_a_client_that_still_holds_sites_is_not_deleted(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    r = cli("branches", "create", "--name", f"Prune {uuid.uuid4().hex[:8]}", "-o", "json")
    assert r.exit_code == 0, r
    branch = json.loads(r.stdout)["id"]
    made = {}
    for label in ("Busy", "Empty", "Kept"):
        r = cli("clients", "create", "--branch", branch, "--name", label, "-o", "json")
        made[label] = json.loads(r.stdout)["id"]
    r = cli("sites", "create", "--client", made["Busy"], "--name", "Dock", "-o", "json")
    assert r.exit_code == 0, r
    path = write(tmp_path / "c.csv", "name\nKept\n")
    r = cli("clients", "import", str(path), "--branch", branch, "--prune", "--yes", "--allow-deletes", "1")
    assert r.exit_code == 0, r
    assert f"kept: client 'Busy' ({made['Busy']}) still holds 1 site: not deleted" in r.stderr, r
    r = cli("clients", "list", "--branch", branch, "-o", "json")
    assert sorted(c["name"] for c in json.loads(r.stdout)) == ["Busy", "Kept"]


@pytest.fixture(params=["ignore-branch-filter", "put-clears", "default"])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    with Deployment.running(request.param, tmp_path) as deployment:
        yield deployment


def test_a_branch_scoped_prune_never_sees_another_branchs_clients_and_loses_nothing(
        deployment: Deployment, cli: Any, tmp_path: Path) -> None:
    leeds, hull = deployment.branch(), deployment.branch()
    acme = deployment.client(leeds["id"], name="Acme")
    other = deployment.client(hull["id"], name="Other")
    kept = deployment.site(acme["id"], name="Kept")
    gone = deployment.site(acme["id"], name="Gone")
    elsewhere = deployment.site(other["id"], name="Elsewhere")
    env = {"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token}
    path = write(tmp_path / "s.csv", "client,name,phone\nAcme,Kept,+44 1 2\n")
    r = cli("sites", "import", str(path), "--branch", leeds["name"], "--prune", "--on-existing", "update",
            "--yes", "--allow-deletes", "1", env=env)
    assert r.exit_code == 0, r
    assert f"prune: 1 of 2 sites in every client of branch {leeds['name']} to delete\n" in r.stderr, r
    assert deployment.get("sites", gone["id"]) is None
    assert deployment.get("sites", elsewhere["id"]) is not None  # another branch's client: out of scope
    after = deployment.get("sites", kept["id"])
    assert after is not None
    assert after["phone"] == "+44 1 2"
    assert (after["rates"], after["departments"], after["bannedWorkers"]) == \
        (kept["rates"], kept["departments"], kept["bannedWorkers"])  # a PUT that clears: nothing lost


def pruned_two_of_four(cli: Any, tmp_path: Path) -> tuple[str, list[str], Path, Path, list[dict[str, Any]]]:
    """A client of 4 sites and a file keeping the first 2, imported with --prune into a journal of its own:
    (the client's id, the 4 names, the file, the journal, its lines)."""
    cid, _, names = client_with_sites(cli, tmp_path, 4)
    path = write(tmp_path / "k.csv", site_file(names[:2]))
    journal = tmp_path / "run.journal"
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--yes", "--allow-deletes", "2",
            "--journal", str(journal))
    assert r.exit_code == 0, r
    return cid, names, path, journal, [json.loads(line) for line in journal.read_text().splitlines()]


def test_a_killed_prune_resumes_and_deletes_nothing_twice(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, names, path, journal, lines = pruned_two_of_four(cli, tmp_path)
    ids = {line["n"]: line["id"] for line in lines[1:] if "k" in line}
    deletes = [line for line in lines if "k" in line]  # keyed by action: the record's delete, no row number
    assert sorted((tuple(line["k"]), line["s"], line["n"]) for line in deletes) == sorted([  # ids are random: both sorted
        (("site", ids["Site 02"], "delete"), "deleted", "Site 02"), (("site", ids["Site 02"], "delete"), "sending", "Site 02"),
        (("site", ids["Site 03"], "delete"), "deleted", "Site 03"), (("site", ids["Site 03"], "delete"), "sending", "Site 03")])
    # as if killed after its intents: the end line and the outcomes cut; the run resumes them
    cut = [line for line in lines if not line.get("end") and not ("k" in line and line["s"] == "deleted")]
    journal.write_text("".join(json.dumps(line) + "\n" for line in cut))
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--yes", "--journal", str(journal), "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["deleted"] == 2, r  # both went through before the kill: recorded, not sent again
    assert sorted(held(cli, cid)) == names[:2]


def test_a_saved_plan_runs_exactly_as_reviewed_or_refuses_naming_what_changed(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, _, names = client_with_sites(cli, tmp_path, 4)
    ids = {site_name: site["id"] for site_name, site in held(cli, cid).items()}
    path = write(tmp_path / "p.csv", site_file([names[0], "Site 99"]).replace("0 Dock Rd", "0 New Rd") + "Site 01,1 Dock Rd,Picker=12.5,W-1\n")
    plan = tmp_path / "plan.json"
    common = ("sites", "import", str(path), "--client", cid, "--prune", "--on-existing", "update")
    r = cli(*common, "--dry-run", "--allow-deletes", "2", "--plan-out", str(plan))
    assert r.exit_code == 0, r
    assert r.stderr.endswith(f"plan written to {plan}: run it with --plan {plan}\n"), r
    saved = json.loads(plan.read_text())
    assert [(u["name"], u["changes"]) for u in saved["updates"]] == [("Site 00", {"address": ["0 Dock Rd", "0 New Rd"]})]
    assert [c["name"] for c in saved["creates"]] == ["Site 99"]
    assert [(d["name"], d["state"]["rates"]) for d in saved["deletes"]] == [
        ("Site 02", [{"skill": "Picker", "hourlyRate": 13.5}]), ("Site 03", [{"skill": "Picker", "hourlyRate": 14.5}])]
    # someone changes a deleted record since: the run refuses, naming it, and sends nothing
    r = cli("sites", "update", ids["Site 03"], "--phone", "0113", "-o", "json")
    assert r.exit_code == 0, r
    r = cli("sites", "import", str(path), "--client", cid, "--plan", str(plan), "--yes")
    assert r.exit_code == 5, r
    assert f"changed: site 'Site 03' ({ids['Site 03']}): phone changed since the plan\n" in r.stderr, r
    assert sorted(held(cli, cid)) == names
    r = cli("sites", "update", ids["Site 03"], "--phone", "", "-o", "json")
    assert r.exit_code == 0, r
    # a site made since, in scope, is not in the plan: the plan runs as reviewed and leaves it
    r = cli("sites", "create", "--client", cid, "--name", "Newcomer", "-o", "json")
    assert r.exit_code == 0, r
    r = cli("sites", "import", str(path), "--client", cid, "--plan", str(plan), "--yes", "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert (summary["created"], summary["updated"], summary["deleted"]) == (1, 1, 2), r
    after = held(cli, cid)
    assert sorted(after) == ["Newcomer", "Site 00", "Site 01", "Site 99"]
    assert after["Site 00"]["address"] == "0 New Rd"


def test_a_file_with_spreadsheet_damage_refuses_even_when_its_changes_are_accepted(logged_in: Any,
                                                                                 tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    r = cli("sites", "import", str(write(tmp_path / "a.csv", "name,phone\nDock 1,01614960000\nDock 2,\n")),
            "--client", cid)
    assert r.exit_code == 0, r
    damaged = write(tmp_path / "d.csv", "name,phone\nDock 1,1614960000\n")  # a spreadsheet dropped the zero
    for extra in (("--dry-run",), ("--yes", "--accept-spreadsheet-changes")):
        r = cli("sites", "import", str(damaged), "--client", cid, "--on-existing", "update", "--prune",
                "--max-delete-share", "1", *extra)
        assert r.exit_code == 2, r
        assert "error: --prune refuses a file that shows spreadsheet damage (1 row)" in r.stderr, r
    assert sorted(held(cli, cid)) == ["Dock 1", "Dock 2"]
    assert held(cli, cid)["Dock 1"]["phone"] == "01614960000"


def test_a_branch_that_still_holds_clients_is_not_deleted_and_the_plan_says_so(cli: Any, tmp_path: Path) -> None:
    deployment = Deployment([], tmp_path)  # its own service: a branches prune answers for the whole agency
    try:
        busy, empty, kept = (deployment.branch(name=name) for name in ("Busy", "Empty", "Kept"))
        holder = deployment.client(busy["id"], name="Holder")
        env = {"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token}
        path = write(tmp_path / "b.csv", "name\nKept\n")
        r = cli("branches", "import", str(path), "--prune", "--dry-run", "--allow-deletes", "1", env=env)
        assert r.exit_code == 0, r
        said = f"kept: branch 'Busy' ({busy['id']}) still holds 1 client: not deleted (delete them first, or keep a row for it)\n"
        assert said in r.stderr, r
        r = cli("branches", "import", str(path), "--prune", "--yes", "--allow-deletes", "1", env=env)
        assert r.exit_code == 0, r
        assert said in r.stderr and "prune: 1 of 3 branches in the agency to delete\n" in r.stderr, r
        assert deployment.get("branches", empty["id"]) is None
        assert deployment.get("branches", busy["id"]) is not None
        assert deployment.get("clients", holder["id"]) is not None
        assert deployment.get("branches", kept["id"]) is not None
    finally:
        deployment.stop()


def test_a_scope_given_by_whole_id_is_named_and_checked_by_the_imports_own_look_up(
        logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 2)
    path = write(tmp_path / "keep.csv", site_file(names[:1]))
    r = cli("-v", "sites", "import", str(path), "--client", cid, "--prune", "--dry-run", "--allow-deletes", "1")
    reads = [line for line in r.stderr.splitlines() if line.startswith("> GET ") and line.endswith(f"/api/clients/{cid}")]
    assert len(reads) == 1, r.stderr  # the client read once, beside the reads of its sites
    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--yes", "--allow-deletes", "1")
    assert r.exit_code == 0, r
    assert f"prune: 1 of 2 sites in client {name} to delete\n" in r.stderr, r
    assert sorted(held(cli, cid)) == names[:1]
    missing = str(uuid.uuid4())
    r = cli("sites", "import", str(path), "--client", missing, "--prune", "--dry-run", "--allow-deletes", "1")
    assert r.exit_code == 4, r
    assert r.stderr == f"error: no client '{missing}'\n", r
