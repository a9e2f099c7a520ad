"""Every branches/clients/sites verb and option end to end on the sandbox: writes, validation before
sending, dry runs, confirmation, and the exit codes 4, 5, 6 and 8 reached by real requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.sandbox import STAFF
from tests.resources.conftest import as_json, make_tree


def test_branch_lifecycle(wf: Any, tag: str) -> None:
    created = as_json(wf("branches", "create", "--name", f" {tag} Leeds ", "--address", "3 Wharf", "--phone", "0113",
                         "--email", "leeds@example.com", "-o", "json"))
    assert (created["name"], created["address"], created["email"]) == (f"{tag} Leeds", "3 Wharf", "leeds@example.com")
    bid = created["id"]
    r = wf("branches", "update", bid, "--phone", "0114")
    assert r.exit_code == 0, r
    lines = dict(line.split(":", 1) for line in r.stdout.splitlines())
    assert {k: v.strip() for k, v in lines.items() if k in ("name", "address", "phone", "email")} == {
        "name": f"{tag} Leeds", "address": "3 Wharf", "phone": "0114", "email": "leeds@example.com"}
    assert "modifiedOn" in lines and "createdOn" in lines  # the whole record, not only the answer
    got = as_json(wf("branches", "get", bid, "-o", "json"))
    assert got["phone"] == "0114" and got["address"] == "3 Wharf"
    listed = as_json(wf("branches", "list", "--all", "-o", "json"))
    assert bid in [b["id"] for b in listed]
    r = wf("branches", "delete", bid, "--yes", "-o", "json")
    assert json.loads(r.stdout) == {"status": "success", "message": "branch deleted"}
    r = wf("branches", "get", bid)
    assert r.exit_code == 4 and r.stderr == f"error: Not Found: branch {bid} not found (HTTP 404)\n"


def test_client_lifecycle_and_branch_filter(wf: Any, tag: str) -> None:
    tree = make_tree(wf, tag)
    other = make_tree(wf, tag + "x")
    r = wf("clients", "list", "--branch", tree["branch"], "--all", "-o", "jsonl")
    assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == [tree["client"]]
    r = wf("clients", "update", tree["client"], "--billing-address", "1 Quay St", "--email", "ap@example.com",
           "-o", "json")
    updated = json.loads(r.stdout)
    assert (updated["name"], updated["billingAddress"], updated["branchId"]) == (
        f"{tag} client", "1 Quay St", tree["branch"])
    r = wf("clients", "get", tree["client"], "--fields", "name,billingAddress")
    assert r.stdout == f"name:           {tag} client\nbillingAddress: 1 Quay St\n"
    # a client with sites, a branch with clients: 409 in words, exit 5, nothing deleted
    r = wf("clients", "delete", tree["client"], "--yes")
    assert r.exit_code == 5
    assert r.stderr == f"error: Conflict: client {tree['client']} still has 2 site(s); delete them first (HTTP 409)\n"
    r = wf("branches", "delete", tree["branch"], "--yes")
    assert r.exit_code == 5 and "still has 1 client(s)" in r.stderr
    for t in (tree, other):
        for key in ("site1", "site2"):
            assert wf("sites", "delete", t[key], "--yes").exit_code == 0
        assert wf("clients", "delete", t["client"], "--yes").stdout == "client deleted\n"
        assert wf("branches", "delete", t["branch"], "--yes").stdout == "branch deleted\n"


def test_site_create_update_from_file_and_stdin(wf: Any, tag: str, site_file: Path) -> None:
    tree = make_tree(wf, tag)
    created = as_json(wf("sites", "create", "--client", tree["client"], "--from-file", str(site_file),
                         "--phone", "01", "-o", "json"))
    assert (created["name"], created["address"], created["phone"]) == ("From file", "9 File Rd", "01")
    assert created["rates"] == [{"skill": "driver", "hourlyRate": 14}]
    sid = created["id"]
    body = json.dumps({"assessmentRequired": True, "bannedWorkers": ["w1", "w2"]})
    r = wf("sites", "update", sid, "--from-file", "-", "--department", "Dock:Bo", "-o", "json", input=body)
    site = json.loads(r.stdout)
    assert site["assessmentRequired"] is True and site["bannedWorkers"] == ["w1", "w2"]
    assert site["departments"] == [{"name": "Dock", "contactPerson": "Bo", "email": ""}]
    assert site["rates"] == [{"skill": "driver", "hourlyRate": 14}]  # left alone, and shown: the whole record
    assert site["address"] == "9 File Rd"
    # `get -o json` output can be edited and fed back (read-only fields are dropped)
    as_file = Path(wf.tmp_path) / "edit.json"
    as_file.write_text(wf("sites", "get", sid, "-o", "json").stdout.replace("9 File Rd", "10 File Rd"))
    r = wf("sites", "update", sid, "--from-file", str(as_file), "-o", "json", "--fields", "address,documents")
    assert json.loads(r.stdout) == {"address": "10 File Rd", "documents": []}
    r = wf("sites", "update", sid, "--no-assessment-required", "--rate", "driver=15", "--banned-worker", "w9",
           "--fields", "assessmentRequired,bannedWorkers")
    assert r.stdout == "assessmentRequired: false\n\nbannedWorkers (1):\n  w9\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--email", "not-an-address"], "--email: 'not-an-address' is not an e-mail address"),
    (["--rate", "forklift=-1"], "--rate: rate of 'forklift': -1 is negative; a rate must be 0 or more"),
    (["--rate", "forklift=12.505"], "--rate: 12.505 has more than 2 decimals"),
    (["--rate", "forklift=12", "--rate", "forklift=13"], "--rate: skill 'forklift' is given twice"),
    (["--rate", "forklift"], "--rate: 'forklift' is not SKILL=RATE"),
    (["--name", "  "], "--name: must not be empty"),
    (["--name", "x" * 201], "--name: is longer than 200 characters"),
    (["--department", "Dock:Bo:nope"], "--department: 'nope' is not an e-mail address"),
    (["--banned-worker", "w1", "--banned-worker", "w1"], "--banned-worker: banned worker 'w1' is given twice"),
])
def test_invalid_input_is_one_line_naming_the_option_and_exit_2(wf: Any, args: list[str], message: str) -> None:
    args = args if "--name" in args else ["--name", "Valid", *args]
    r = wf("sites", "create", "--client", "any-client", *args)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {message}\n")
    r = wf("sites", "create", "--client", "any-client", *args, "-o", "json")
    error = json.loads(r.stderr)["error"]
    assert error["title"] == "invalid input" and error["errors"]


def test_branch_and_client_input_rules(wf: Any) -> None:
    r = wf("branches", "create", "--address", "x")
    assert (r.exit_code, r.stderr) == (2, "error: missing option --name\n")  # as `sites list` says --client (issue 49)
    r = wf("clients", "create", "--name", "Acme")
    assert (r.exit_code, r.stderr) == (2, "error: missing option --branch\n")
    r = wf("clients", "update", "any", "--billing-address", "x" * 501)
    assert (r.exit_code, r.stderr) == (2, "error: --billing-address: is longer than 500 characters\n")
    r = wf("branches", "update", "any")
    assert r.exit_code == 2 and "nothing to update" in r.stderr
    r = wf("sites", "list")
    assert (r.exit_code, r.stderr) == (2, "error: missing option --client\n")


def test_from_file_problems(wf: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",')
    r = wf("branches", "create", "--from-file", str(bad))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: --from-file {bad}: not valid JSON")
    bad.write_text('{"name": "x", "colour": "red", "email": "nope"}')
    r = wf("branches", "create", "--from-file", str(bad))
    assert r.stderr == ("error: --from-file: email: 'nope' is not an e-mail address; "
                        "--from-file: colour: is not a field of this record\n")
    r = wf("branches", "create", "--from-file", str(tmp_path / "missing.json"))
    assert r.exit_code == 2 and "cannot read" in r.stderr


def test_dry_run_sends_nothing(wf: Any, tag: str) -> None:
    tree = make_tree(wf, tag)
    before = wf("sites", "get", tree["site1"], "-o", "json").stdout
    r = wf("sites", "create", "--client", tree["client"], "--name", "Dry", "--rate", "a=1", "--dry-run", "-o", "json")
    assert json.loads(r.stdout) == {"dryRun": True, "method": "POST", "path": f"/api/clients/{tree['client']}/sites",
                                    "body": {"name": "Dry", "rates": [{"skill": "a", "hourlyRate": 1}]}}
    r = wf("branches", "update", tree["branch"], "--phone", "9", "--dry-run", "-o", "json")
    assert json.loads(r.stdout)["body"] == {"phone": "9"}  # the sandbox keeps what a PUT leaves out (G13)
    assert wf("config", "set", "put_clears", "true").exit_code == 0  # a deployment that clears it
    r = wf("branches", "update", tree["branch"], "--phone", "9", "--dry-run", "-o", "json")
    assert json.loads(r.stdout)["body"] == {"name": f"{tag} branch", "address": "", "phone": "9", "email": ""}
    assert wf("config", "unset", "put_clears").exit_code == 0
    r = wf("sites", "update", tree["site1"], "--name", "Renamed", "--dry-run")
    assert r.stdout == (f"dry run: would send PUT /api/sites/{tree['site1']} (nothing sent): 1 field would change\n"
                        f"  name: {tag} site 1 -> Renamed\n")
    r = wf("sites", "delete", tree["site1"], "--dry-run")
    assert r.stdout == f"dry run: would send DELETE /api/sites/{tree['site1']} (nothing sent)\n"
    assert wf("sites", "get", tree["site1"], "-o", "json").stdout == before
    assert len(as_json(wf("sites", "list", "--client", tree["client"], "-o", "json"))) == 2


def test_delete_confirms_on_a_terminal_and_refuses_without_one(wf: Any, tag: str) -> None:
    tree = make_tree(wf, tag)
    r = wf("sites", "delete", tree["site1"])
    assert r.exit_code == 2
    assert r.stderr == (f"error: refusing to delete site {tree['site1']} without confirmation: "
                        "no terminal to ask on; pass --yes\n")
    named = f'site "{tag} site 1" ({tree["site1"][:8]}…)'
    r = wf("sites", "delete", tree["site1"], tty=True, input="n\n")
    assert r.exit_code == 2  # cancelled (issue 11); the prompt names the record, "n" is not an error (issue 15)
    assert r.stderr == f"Delete {named} of client {tag} client? [y/N]: Not deleted.\n"
    assert wf("sites", "get", tree["site1"]).exit_code == 0
    r = wf("sites", "delete", tree["site1"], tty=True, input="y\n")
    assert (r.exit_code, r.stdout) == (0, f"Deleted {named}\n")
    assert wf("sites", "get", tree["site1"]).exit_code == 4


def test_exit_codes_by_real_requests(wf: Any, cli: Any, service: Any, tag: str) -> None:
    # 4: not found
    assert wf("sites", "get", "no-such-site").exit_code == 4
    # 5: conflict (a second branch with the same name, any case)
    as_json(wf("branches", "create", "--name", f"{tag} Unique", "-o", "json"))
    r = wf("branches", "create", "--name", f"{tag} UNIQUE")
    assert r.exit_code == 5 and "(HTTP 409)" in r.stderr
    # 6: the service's own validation (skills differing only in case pass here, not there)
    tree = make_tree(wf, tag)
    r = wf("sites", "update", tree["site1"], "--rate", "Forklift=1", "--rate", "forklift=2")
    assert r.exit_code == 6 and "(HTTP 400)" in r.stderr and "duplicate skill" in r.stderr
    # 8: staff may not write branches
    assert cli.login_as(service.url, *STAFF).exit_code == 0
    r = cli("branches", "create", "--name", f"{tag} by staff")
    assert r.exit_code == 8 and r.stderr.startswith("error: not allowed for your role:")
    r = cli("branches", "update", tree["branch"], "--phone", "1", "-o", "json")
    assert r.exit_code == 8 and json.loads(r.stderr)["error"]["status"] == 403


def test_lists_of_branches_and_clients_on_a_terminal_end_with_the_page(wf: Any) -> None:
    total = len(as_json(wf("clients", "list", "--all", "-o", "json")))
    r = wf("--no-color", "clients", "list", "--page-size", "2", "--fields", "name", tty=True)
    more = "; more: --page 2, or --all" if total > 2 else ""
    assert r.stdout.splitlines()[-1] == f"page 1 of {-(-total // 2)}, {total} clients{more}"
    r = wf("branches", "list", "--page-size", "1", "--fields", "name")
    assert r.stdout.splitlines()[0] == "name" and len(r.stdout.splitlines()) == 2  # no footer in a pipe


def test_a_file_that_carries_an_id_is_that_record(wf: Any, tag: str, tmp_path: Path) -> None:
    """A record's file (`get -o json`) is that record (issue 21 §1): create refuses it (no duplicate), update
    refuses it for another record; the SDK's create refuses a body with an id."""
    tree = make_tree(wf, tag)
    site = as_json(wf("sites", "get", tree["site1"], "-o", "json"))
    path = tmp_path / "site.json"
    path.write_text(json.dumps(site), encoding="utf-8")
    r = wf("sites", "create", "--client", tree["client"], "--from-file", str(path))
    assert r.exit_code == 2, r
    assert r.stderr == (f"error: --from-file {path} is site {site['id']}: `wfctl sites update {site['id']} "
                        f"--from-file {path}` changes it; to create a new site from it, remove its \"id\"\n")
    r = wf("sites", "update", tree["site2"], "--from-file", str(path))
    assert r.exit_code == 2, r
    assert r.stderr == (f"error: --from-file {path} is site {site['id']}, not {tree['site2']}: give that id, or "
                        "remove the file's \"id\" to use its fields for this one\n")
    site["address"] = "1 Renamed Road"
    path.write_text(json.dumps(site), encoding="utf-8")
    r = wf("sites", "update", tree["site1"], "--from-file", str(path), "-o", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["address"] == "1 Renamed Road", r
    names = [s["name"] for s in json.loads(wf("sites", "list", "--client", tree["client"], "--all",
                                               "-o", "json").stdout)]
    assert names.count(site["name"]) == 1

    from wfctl.api import Client
    from wfctl.api.errors import InvalidId

    with Client("http://127.0.0.1:9") as sdk, pytest.raises(InvalidId, match="it is that record"):
        sdk.create_record("site", tree["client"], site)
