"""Profile to profile (issue 32 §3): `sites diff --from-profile` and `sites copy --from-profile` between two
real sandboxes (two servers, two profiles), the client looked up by its name in each; the copy journalled
(undo takes it back), `--map`, and the refusal when both profiles are the same service and scope."""

from __future__ import annotations

import json
from typing import Any

from tests.drift.conftest import CLIENT, client_id, staged_sites
from tests.fixtures.sandbox import ADMIN


def test_diff_from_another_profile_matches_by_name(two: Any) -> None:
    cli = two
    changed, gone = cli.names
    production = staged_sites(cli, "default")
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT, "-o", "jsonl")
    assert r.exit_code == 1, r
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    said = [(d["difference"], d["name"], d["id"]) for d in lines[:-1]]
    assert said == [("changed", changed, production[changed]["id"]), ("onlyInFile", "Staging Only Depot", None),
                    ("onlyInService", gone, production[gone]["id"])]
    assert lines[0]["changes"]["address"]["new"] == "1 Staging Way"
    assert lines[0]["parent"]["id"] == client_id(cli, "default")  # this profile's client, not staging's
    assert lines[-1]["same"] == len(production) - 2
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT,
            "--map", "email:@staging.example=@example.com", "-o", "jsonl")
    mapped = [json.loads(line) for line in r.stdout.splitlines()]
    assert mapped[0]["changes"]["email"]["new"] == "ops@example.com"
    assert mapped[1]["changes"]["email"] == {"old": None, "new": "depot@example.com"}


def test_two_profiles_are_named_as_the_two_sides(two: Any) -> None:
    """Issue 49: a diff between profiles said "only in the file" of a file no one sees, with its row numbers,
    and a client missing in one profile did not say which."""
    cli = two
    changed, gone = cli.names
    production = staged_sites(cli, "default")
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT)
    assert r.exit_code == 1, r
    lines = r.stdout.splitlines()
    assert f"changed: {changed}  ({production[changed]['id']})" in lines
    assert "only in profile staging: Staging Only Depot" in lines
    assert f"only in profile default: {gone}  ({production[gone]['id']})" in lines
    assert lines[-4:] == ["only in profile staging  1", "changed                  1", "only in profile default  1",
                          f"the same                 {len(production) - 2}"], r.stdout
    assert "row " not in r.stdout
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT, "-o", "json")
    assert {record["row"] for record in json.loads(r.stdout)["records"]} == {None}
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT, "--markdown")
    assert r.stdout.splitlines()[-1] == (f"1 only in profile staging, 1 changed, 1 only in profile default, "
                                         f"{len(production) - 2} the same"), r.stdout
    made = cli("-p", "staging", "clients", "create", "--branch", staged_branch(cli), "--name", "Staging Only Foods",
               "-o", "json")
    assert made.exit_code == 0, made
    for args in (["sites", "diff"], ["sites", "copy", "--yes"]):
        r = cli(*args, "--from-profile", "staging", "--client", "Staging Only Foods")
        assert (r.exit_code, r.stderr) == (4, "error: profile default: no client 'Staging Only Foods'\n"), r
        r = cli(*args, "--from-profile", "staging", "--client", "Pennine Food Ltd")
        assert (r.exit_code, r.stderr) == (4, "error: profile staging: no client 'Pennine Food Ltd'; did you mean "
                                              "'Pennine Foods Ltd'?\n"), r


def staged_branch(cli: Any) -> str:
    r = cli("-p", "staging", "branches", "list", "-o", "json")
    return str(json.loads(r.stdout)[0]["id"])


def test_copy_plans_asks_runs_and_undoes(two: Any) -> None:
    cli = two
    changed, gone = cli.names
    before = staged_sites(cli, "default")
    r = cli("sites", "copy", "--from-profile", "staging", "--client", CLIENT)  # no terminal, no --yes
    assert (r.exit_code, r.stderr) == (2, "error: refusing to copy into profile default without confirmation: "
                                          "no terminal to ask on; pass --yes (or --dry-run to see the plan)\n")
    r = cli("sites", "copy", "--from-profile", "staging", "--client", CLIENT, "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout.endswith(f"to create        1\nto update        1\nunchanged        {len(before) - 2}\n"
                             "skipped (exist)  0\ninvalid          0\n"), r.stdout
    assert staged_sites(cli, "default") == before  # a plan sends nothing
    r = cli("sites", "copy", "--from-profile", "staging", "--client", CLIENT, "--yes",
            "--map", "email:@staging.example=@example.com")
    assert r.exit_code == 0, r
    after = staged_sites(cli, "default")
    assert after[changed]["address"] == "1 Staging Way" and after[changed]["email"] == "ops@example.com"
    assert after["Staging Only Depot"]["email"] == "depot@example.com"
    assert gone in after  # prune is off: a site only here stays
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT, "--map",
            "email:@staging.example=@example.com", "-o", "json")
    assert r.exit_code == 1  # only the site prune would delete differs
    assert [d["difference"] for d in json.loads(r.stdout)["records"]] == ["onlyInService"]
    run = json.loads(cli("imports", "list", "-o", "json").stdout)[0]
    assert (run["kind"], run["state"], run["file"]) == (  # as docs/imports.md names it (issue 49: a temporary path)
        "site", "complete", "staging-sites-Pennine-Foods-Ltd.csv")
    r = cli("imports", "undo", run["run"], "--yes")
    assert r.exit_code == 0, r
    assert staged_sites(cli, "default").keys() == before.keys()
    assert staged_sites(cli, "default")[changed]["address"] == before[changed]["address"]


def test_the_same_service_and_scope_is_refused(two: Any) -> None:
    cli = two
    production_url = cli("config", "get", "base_url").stdout.strip()
    assert cli("-p", "again", "login", "--base-url", production_url, "--username", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1]).exit_code == 0
    for args in (["sites", "diff", "--from-profile", "again", "--client", CLIENT],
                 ["sites", "copy", "--from-profile", "again", "--client", CLIENT, "--yes"]):
        r = cli(*args)
        assert (r.exit_code, r.stdout, r.stderr) == (
            2, "", "error: profiles again and default are the same service and agency, and this is the same "
                   "scope: nothing to compare or copy\n"), args
    r = cli("sites", "diff", "--from-profile", "nowhere", "--client", CLIENT)
    assert r.exit_code == 2 and r.stderr.startswith("error: --from-profile: no profile 'nowhere'"), r
    r = cli("sites", "diff", "--from-profile", "staging", "--all-clients")
    assert (r.exit_code, r.stderr) == (2, "error: with --from-profile, give one --client <ref>: it is looked up by "
                                          "that reference in each profile\n")
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT, "--map", "colour:a=b")
    assert r.exit_code == 2 and r.stderr.startswith("error: --map 'colour:a=b': 'colour' is not a column"), r


def test_copy_with_prune_deletes_what_only_this_profile_has_within_the_guards(two: Any) -> None:
    cli = two
    _, gone = cli.names
    before = staged_sites(cli, "default")
    args = ["sites", "copy", "--from-profile", "staging", "--client", CLIENT, "--prune"]
    r = cli(*args, "--yes", "--max-deletes", "0")  # over a limit: nothing is sent, exit 12
    assert r.exit_code == 12, r
    assert staged_sites(cli, "default") == before
    r = cli(*args, "--yes")
    assert r.exit_code == 0, r
    after = staged_sites(cli, "default")
    assert gone not in after and "Staging Only Depot" in after
    r = cli("sites", "diff", "--from-profile", "staging", "--client", CLIENT)
    assert r.exit_code == 0, r  # equal now
    run = json.loads(cli("imports", "list", "-o", "json").stdout)[0]["run"]
    assert cli("imports", "undo", run, "--yes").exit_code == 0
    assert staged_sites(cli, "default").keys() == before.keys()  # re-created (a new id)


def test_a_client_one_profile_lacks_is_named_with_the_profile_and_the_nearest(two: Any) -> None:
    """Issue 49: a client missing in the other profile of a copy said `no client 'X'`, of neither profile."""
    cli = two
    assert cli("clients", "create", "--branch", "Manchester Central", "--name", "Only Here Foods Ltd").exit_code == 0
    r = cli("sites", "copy", "--from-profile", "staging", "--client", "Only Here Foods Ltd", "--dry-run")
    assert (r.exit_code, r.stdout, r.stderr) == (4, "", "error: profile staging: no client 'Only Here Foods Ltd'\n")
    r = cli("sites", "diff", "--from-profile", "staging", "--client", "Penine Foods Ltd")
    assert (r.exit_code, r.stderr) == (4, "error: profile staging: no client 'Penine Foods Ltd'; did you mean "
                                          "'Pennine Foods Ltd'?\n"), r
    assert cli("-p", "staging", "clients", "create", "--branch", "Manchester Central", "--name",
               "Only There Ltd").exit_code == 0
    r = cli("sites", "copy", "--from-profile", "staging", "--client", "Only There Ltd", "--yes")
    assert (r.exit_code, r.stderr) == (4, "error: profile default: no client 'Only There Ltd'\n"), r
