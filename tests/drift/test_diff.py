"""`wfctl sites|clients|branches diff` (issue 32 §1) against real sandboxes: exact output in a pipe, the
exit codes a CI drift check reads, its formats, and that it never disagrees with `import --dry-run
--on-existing update` on the same data, on the sandbox and on deployments playing the contract's
tolerances (a PUT that clears what it leaves out, a branch filter ignored)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client
from tests.fixtures.sandbox import ADMIN

HEADER = "name,address,email,rates,bannedWorkers"
START = (f"{HEADER}\nNorth Yard,1 High St,n@x.test,Forklift=13.25|Picker=11.00,W-1\n"
         "South Yard,2 High St,s@x.test,Picker=11.00,\nEast Yard,3 High St,,,\n")
# North Yard: address and a rate changed, a banned worker added; South Yard: the same; East Yard: gone;
# West Yard: new
EDITED = (f"{HEADER}\nNorth Yard,9 Low St,n@x.test,Forklift=14.00|Picker=11.00,W-1|W-2\n"
          "South Yard,2 High St,s@x.test,Picker=11.00,\nWest Yard,4 High St,w@x.test,,\n")


def client_with_sites(cli: Any, tmp_path: Path, name: str | None = None) -> str:
    client = new_client(cli, name)
    path = tmp_path / "start.csv"
    path.write_text(START, encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", client)
    assert r.exit_code == 0, r
    return client


def site_ids(cli: Any, client: str) -> dict[str, str]:
    r = cli("sites", "list", "--client", client, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return {site["name"]: site["id"] for site in json.loads(r.stdout)}


def client_name(cli: Any, client: str) -> str:
    return str(json.loads(cli("clients", "get", client, "-o", "json").stdout)["name"])


def test_an_export_compared_with_the_service_is_the_same_exit_0(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    exported = tmp_path / "export.csv"
    assert cli("sites", "export", "--client", client, "--file", str(exported)).exit_code == 0
    r = cli("sites", "diff", str(exported), "--client", client)
    assert (r.exit_code, r.stdout, r.stderr) == (
        0, "only in the file     0\nchanged              0\nonly in the service  0\nthe same             3\n", "")
    xlsx = tmp_path / "export.xlsx"  # a workbook reads as import reads it
    assert cli("sites", "export", "--client", client, "--file", str(xlsx)).exit_code == 0
    r = cli("sites", "diff", str(xlsx), "--client", client, "-o", "json")
    assert (r.exit_code, json.loads(r.stdout)) == (
        0, {"records": [], "summary": {"onlyInFile": 0, "changed": 0, "onlyInService": 0, "same": 3}})


def test_each_difference_in_a_pipe_as_text_jsonl_json_and_markdown_exit_1(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    ids = site_ids(cli, client)
    name = client_name(cli, client)
    path = tmp_path / "edited.csv"
    path.write_text(EDITED, encoding="utf-8")
    r = cli("sites", "diff", str(path), "--client", name)
    assert (r.exit_code, r.stderr) == (1, ""), r
    assert r.stdout == (
        f"changed: North Yard  (row 1; {ids['North Yard']})\n"
        f"  in client {name}\n"
        "  address: 1 High St -> 9 Low St\n"
        "  rate Forklift: 13.25 -> 14.00\n"
        "  + banned worker W-2\n"
        "only in the file: West Yard  (row 3)\n"
        f"  in client {name}\n"
        "  address: 4 High St\n"
        "  email: w@x.test\n"
        "  rates: (empty)\n"
        "  bannedWorkers: (empty)\n"
        f"only in the service: East Yard  ({ids['East Yard']})\n"
        f"  in client {name}\n"
        "only in the file     1\nchanged              1\nonly in the service  1\nthe same             1\n")

    r = cli("sites", "diff", str(path), "--client", client, "-o", "jsonl")
    assert r.exit_code == 1, r
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    parent = {"id": client, "name": name}
    assert lines[0] == {
        "difference": "changed", "kind": "site", "name": "North Yard", "id": ids["North Yard"], "row": 1,
        "parent": parent, "changes": {
            "address": {"old": "1 High St", "new": "9 Low St"},
            "rates": {"old": [{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11.0}],
                      "new": [{"skill": "Forklift", "hourlyRate": 14.0}, {"skill": "Picker", "hourlyRate": 11.0}]},
            "bannedWorkers": {"old": ["W-1"], "new": ["W-1", "W-2"]}}}
    assert (lines[1]["difference"], lines[1]["name"], lines[1]["id"], lines[1]["row"]) == (
        "onlyInFile", "West Yard", None, 3)
    assert lines[1]["changes"]["address"] == {"old": None, "new": "4 High St"}
    assert lines[2] == {"difference": "onlyInService", "kind": "site", "name": "East Yard", "id": ids["East Yard"],
                        "row": None, "parent": parent, "changes": {}}
    assert lines[3] == {"onlyInFile": 1, "changed": 1, "onlyInService": 1, "same": 1}
    document = json.loads(cli("sites", "diff", str(path), "--client", client, "-o", "json").stdout)
    assert document == {"records": lines[:3], "summary": lines[3]}

    r = cli("sites", "diff", str(path), "--client", client, "--markdown")
    assert r.exit_code == 1, r
    assert r.stdout == (
        "| difference | site | client | fields |\n"
        "|---|---|---|---|\n"
        "| changed | North Yard | " + name + " | address: 1 High St -> 9 Low St<br>rate Forklift: 13.25 -> 14.00"
        "<br>+ banned worker W-2 |\n"
        "| only in the file | West Yard | " + name + " | address: 4 High St<br>email: w@x.test<br>rates: (empty)"
        "<br>bannedWorkers: (empty) |\n"
        "| only in the service | East Yard | " + name + " |  |\n"
        "\n1 only in the file, 1 changed, 1 only in the service, 1 the same\n")

    r = cli("sites", "diff", str(path), "--client", client, "--ignore-fields", "address,rates,bannedWorkers",
            "-o", "jsonl")
    assert [json.loads(line).get("difference") for line in r.stdout.splitlines()] == [
        "onlyInFile", "onlyInService", None]
    assert json.loads(r.stdout.splitlines()[-1])["same"] == 2
    assert r.exit_code == 1


def test_errors_are_never_exit_1(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    path = tmp_path / "edited.csv"
    path.write_text(EDITED, encoding="utf-8")
    cases = [
        (["sites", "diff", str(path), "--client", client, "--ignore-fields", "colour"],
         "error: --ignore-fields: colour is not a field of a site; the fields: name, address, phone, email, "
         "assessmentRequired, departments, rates, bannedWorkers\n"),
        (["sites", "diff", str(path), "--client", client, "--markdown", "-o", "json"], None),
        (["sites", "diff", "--client", client],
         "error: give the FILE to compare (or --from-profile PROFILE); e.g. wfctl sites diff sites.csv\n"),
        (["sites", "diff", str(path)],
         "error: give one of --client, --branch or --all-clients to say which sites the file is the truth for\n"),
        (["sites", "diff", str(path), "--client", client, "--map", "email:a=b"],
         "error: --map changes what another profile holds: give --from-profile too\n"),
    ]
    for args, stderr in cases:
        r = cli(*args)
        assert r.exit_code == 2, (args, r)
        assert r.stdout == ""
        if stderr is not None:
            assert r.stderr == stderr, args
    bad = tmp_path / "bad.csv"
    bad.write_text(f"{HEADER}\nNorth Yard,1 High St,n@x.test,Forklift=lots,\n", encoding="utf-8")
    r = cli("sites", "diff", str(bad), "--client", client)
    assert r.exit_code == 2 and r.stdout == "", r
    assert r.stderr.splitlines()[-1] == (
        "error: 1 of 1 rows is invalid; nothing was compared (fix them in the file and run again)")


def _plan_and_diff(cli: Any, path: Path, *scope: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    r = cli("sites", "import", str(path), *scope, "--on-existing", "update", "--dry-run", "-o", "json")
    assert r.exit_code == 0, r
    plan = json.loads(r.stdout)
    r = cli("sites", "diff", str(path), *scope, "-o", "jsonl")
    assert r.exit_code in (0, 1), r
    return plan, [json.loads(line) for line in r.stdout.splitlines()]


def assert_agree(plan: dict[str, Any], drift: list[dict[str, Any]]) -> None:
    """What the dry run would create is only in the file, what it would update changed with the same
    fields, what it leaves as it is the same."""
    records, counts = drift[:-1], drift[-1]
    creates = [(row["row"], row["name"], row["changes"]) for row in plan["rows"] if row["action"] == "create"]
    updates = [(row["row"], row["id"], row["changes"]) for row in plan["rows"] if row["action"] == "update"]
    assert [(d["row"], d["name"], d["changes"]) for d in records if d["difference"] == "onlyInFile"] == creates
    assert [(d["row"], d["id"], d["changes"]) for d in records if d["difference"] == "changed"] == updates
    summary = plan["summary"]
    assert (counts["onlyInFile"], counts["changed"], counts["same"]) == (
        summary["created"], summary["updated"], summary["unchanged"])


@pytest.mark.parametrize("quirks", [[], ["put-clears", "ignore-branch-filter"]], ids=["sandbox", "tolerances"])
def test_diff_and_import_dry_run_agree(cli: Any, sandbox_factory: Any, tmp_path: Path, quirks: list[str]) -> None:
    server = sandbox_factory(quirks=quirks)
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    if quirks:
        assert cli("config", "set", "put_clears", "true").exit_code == 0
    client = client_with_sites(cli, tmp_path)
    exported = tmp_path / "export.csv"
    assert cli("sites", "export", "--client", client, "--file", str(exported)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(exported.read_text(encoding="utf-8-sig"), newline="")))
    named = {row["name"]: row for row in rows}
    named["North Yard"]["address"] = "9 Low St"  # an update through the id column
    named["North Yard"]["departments"] = "Goods In:Ann Lee:ann@x.test"
    named["South Yard"]["email"] = ""  # a field cleared: the PUT-clearing deployment must say it the same way
    rows.append({**named["East Yard"], "id": "", "name": "West Yard"})  # a create
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    edited = tmp_path / "edited.csv"
    edited.write_text(out.getvalue(), encoding="utf-8")
    plan, drift = _plan_and_diff(cli, edited, "--client", client)
    assert_agree(plan, drift)
    assert [d["difference"] for d in drift[:-1]] == ["changed", "changed", "onlyInFile"]
    assert drift[-1] == {"onlyInFile": 1, "changed": 2, "onlyInService": 0, "same": 1}
    by_name = tmp_path / "by-name.csv"  # rows matched by name, not id
    by_name.write_text(EDITED, encoding="utf-8")
    plan, drift = _plan_and_diff(cli, by_name, "--client", client)
    assert_agree(plan, drift)
    assert drift[-1] == {"onlyInFile": 1, "changed": 1, "onlyInService": 1, "same": 1}


def test_a_branch_scope_never_reaches_another_branchs_clients(cli: Any, sandbox_factory: Any,
                                                               tmp_path: Path) -> None:
    """--branch (sites) and clients --branch on a deployment that ignores the branch filter (G9): the
    records only in the service are those of the branch, never another's."""
    server = sandbox_factory(quirks=["ignore-branch-filter"])
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    branches = {b["name"]: b["id"] for b in json.loads(cli("branches", "list", "-o", "json").stdout)}
    leeds = branches["Leeds Riverside"]
    empty = tmp_path / "empty.csv"
    empty.write_text("clientId,name\n", encoding="utf-8")
    r = cli("sites", "diff", str(empty), "--branch", "Leeds Riverside", "-o", "jsonl")
    assert r.exit_code == 1, r
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    clients = json.loads(cli("clients", "list", "--all", "-o", "json").stdout)
    of_leeds = {c["id"] for c in clients if c["branchId"] == leeds}
    assert {d["parent"]["id"] for d in lines[:-1]} == of_leeds
    assert len(lines) - 1 == sum(len(site_ids(cli, c)) for c in of_leeds)
    no_clients = tmp_path / "clients.csv"
    no_clients.write_text("branchId,name\n", encoding="utf-8")
    r = cli("clients", "diff", str(no_clients), "--branch", leeds, "-o", "jsonl")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.exit_code == 1, r
    assert {d["id"] for d in lines[:-1]} == of_leeds


def test_branches_diff_names_the_agencys_branches_only_in_the_service(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    exported = tmp_path / "branches.csv"
    assert cli("branches", "export", "--file", str(exported)).exit_code == 0
    assert cli("branches", "diff", str(exported)).exit_code == 0
    first = exported.read_text(encoding="utf-8-sig").splitlines()
    exported.write_text("\n".join(first[:1] + first[2:]) + "\n", encoding="utf-8")
    r = cli("branches", "diff", str(exported), "--markdown")
    assert r.exit_code == 1, r
    assert r.stdout.startswith("| difference | branch | fields |\n|---|---|---|\n| only in the service | ")


def test_a_change_that_looks_like_a_spreadsheets_is_marked_as_the_plan_marks_it(logged_in: Any,
                                                                                 tmp_path: Path) -> None:
    cli = logged_in
    client = new_client(cli)
    assert cli("sites", "create", "--client", client, "--name", "Dock", "--phone", "01614960000").exit_code == 0
    path = tmp_path / "damaged.csv"
    path.write_text("name,phone\nDock,1614960000\n", encoding="utf-8")
    r = cli("sites", "diff", str(path), "--client", client)
    assert r.exit_code == 1, r
    assert "  phone: 01614960000 -> 1614960000: looks like a spreadsheet turned this text into a number\n" in r.stdout
    r = cli("sites", "diff", str(path), "--client", client, "-o", "jsonl")
    assert json.loads(r.stdout.splitlines()[0])["spreadsheet"] == {
        "phone": "looks like a spreadsheet turned this text into a number"}
