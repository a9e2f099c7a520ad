"""`wfctl imports list|show|undo` on real `wfctl sites import` runs against the sandbox (real socket)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client
from tests.imports.helpers import get, import_file, runs, sites_of

FIRST = "name,address,email\nSite A,1 High St,a@x.test\nSite B,2 High St,b@x.test\nSite C,3 High St,\n"
SECOND = ("name,address,email\nSite A,9 Low St,a@x.test\nSite B,2 High St,bb@x.test\nSite C,3 High St,\n"
          "Site D,4 High St,d@x.test\n")


def two_runs(cli: Any, tmp_path: Path) -> tuple[str, str, str]:
    """A client with three sites made by one import and changed by a second; (client, run 1, run 2)."""
    cid = new_client(cli)
    first = import_file(cli, "sites", tmp_path / "first.csv", FIRST, "--client", cid)
    second = import_file(cli, "sites", tmp_path / "second.csv", SECOND, "--client", cid, "--on-existing", "update")
    return cid, first, second


def test_list_and_show_a_run(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, first, second = two_runs(cli, tmp_path)
    sites = sites_of(cli, cid)
    listed = runs(cli)
    assert [(r["run"], r["kind"], r["state"], r["undo"]) for r in listed] == [
        (second, "site", "complete", None), (first, "site", "complete", None)]
    assert {k: v for k, v in listed[0]["counts"].items() if v} == {"created": 1, "updated": 2, "unchanged": 1}
    r = cli("imports", "list")
    assert r.exit_code == 0, r
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["run", "kind", "file", "started", "counts", "state"]
    assert lines[1].startswith(f"{second}  site  {tmp_path / 'second.csv'}  ")
    assert lines[1].endswith("  created 1, updated 2, unchanged 1  complete")

    r = cli("imports", "show", second)
    assert r.exit_code == 0, r
    a, b, d = sites["Site A"]["id"], sites["Site B"]["id"], sites["Site D"]["id"]
    started = listed[0]["started"]
    assert r.stdout == (
        f"run {second}  site import  {tmp_path / 'second.csv'}  started {started}  complete\n"
        f"row 1  update  Site A  ({a})\n  address: 1 High St -> 9 Low St\n"
        f"row 2  update  Site B  ({b})\n  email: b@x.test -> bb@x.test\n"
        f"row 4  create  Site D  ({d})\n  address: 4 High St\n  email: d@x.test\n"
        "created    1\nupdated    2\nunchanged  1\nskipped    0\nfailed     0\n")  # aligned in a pipe too (issue 49)
    r = cli("imports", "show", second, tty=True)  # issue 36: a terminal reads the counts in a column, not tabbed
    assert r.stdout.endswith("created    1\nupdated    2\nunchanged  1\nskipped    0\nfailed     0\n"), r.stdout
    # a unique beginning of the id is enough (9 characters, or more where the two runs' ids share them:
    # 2 of the hex digits after the date, so 1 run in 256 did, and the test failed once)
    unique = next(n for n in range(9, len(second) + 1) if second[:n] != first[:n])
    r = cli("imports", "show", second[:unique], "-o", "jsonl")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows[0] == {"row": 1, "action": "update", "status": "updated", "id": a, "name": "Site A",
                       "changes": {"address": {"old": "1 High St", "new": "9 Low St"}}}
    assert [row["row"] for row in rows] == [1, 2, 4] and rows[2]["action"] == "create"
    document = json.loads(cli("imports", "show", second, "-o", "json").stdout)
    assert document["rows"] == rows
    assert document["summary"] == {**listed[0]}
    r = cli("imports", "show", "999999-000000")
    assert (r.exit_code, r.stderr) == (4, "error: no run '999999-000000' in this profile "
                                          "(`wfctl imports list` shows the runs)\n")


def test_undo_restores_and_deletes_newest_first_then_says_nothing_to_do(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, first, second = two_runs(cli, tmp_path)
    before = sites_of(cli, cid)
    a, b, d = before["Site A"]["id"], before["Site B"]["id"], before["Site D"]["id"]
    r = cli("imports", "undo", second, "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout == (
        f"row 4  delete  Site D  ({d})\n  name: Site D -> (empty)\n  address: 4 High St -> (empty)\n"
        "  email: d@x.test -> (empty)\n"
        f"row 2  restore  Site B  ({b})\n  email: bb@x.test -> b@x.test\n"
        f"row 1  restore  Site A  ({a})\n  address: 9 Low St -> 1 High St\n"
        "to delete              1\nto restore             2\nalready gone           0\n"
        "changed since the run  0\ncannot undo            0\n")
    assert set(sites_of(cli, cid)) == {"Site A", "Site B", "Site C", "Site D"}  # a dry run changes nothing

    r = cli("imports", "undo", second)  # no terminal, no --yes
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert "refusing to undo without confirmation: no terminal to ask on; pass --yes" in r.stderr

    r = cli("imports", "undo", second, "--yes")
    assert r.exit_code == 0, r
    undo_run = runs(cli)[0]
    assert undo_run["undo"] == second and undo_run["file"] == str(tmp_path / "second.csv")
    assert r.stderr == f"undo run {undo_run['run']} of run {second}: deleted 1 site, restored 2\n"
    after = sites_of(cli, cid)
    assert set(after) == {"Site A", "Site B", "Site C"}
    assert (after["Site A"]["address"], get(cli, "sites", b)["email"]) == ("1 High St", "b@x.test")  # type: ignore[index]
    states = {row["run"]: row["state"] for row in runs(cli)}
    assert states == {undo_run["run"]: "complete", second: "undone", first: "complete"}
    # issue 49: the undone run names the run that undid it (`undo` names the run an undo run took back)
    assert {row["run"]: row["undoneBy"] for row in runs(cli)} == {undo_run["run"]: None, second: undo_run["run"],
                                                                 first: None}
    r = cli("imports", "show", second)
    assert r.stdout.splitlines()[0].endswith(f"  undone by run {undo_run['run']}"), r.stdout

    r = cli("imports", "undo", second, "--yes")  # again: nothing changes, and it says so
    assert (r.exit_code, r.stderr) == (0, f"run {second} is undone already (by run {undo_run['run']}): "
                                          "nothing to do\n"), r
    assert len(runs(cli)) == 3
    r = cli("imports", "undo", second, "--yes", "-o", "json")
    assert json.loads(r.stdout)["summary"]["message"].endswith("nothing to do")

    r = cli("imports", "show", undo_run["run"], "-o", "jsonl")
    shown = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(row["row"], row["action"]) for row in shown] == [(1, "undo"), (2, "undo"), (4, "undo")]
    assert shown[0]["changes"] == {"address": {"old": "9 Low St", "new": "1 High St"}}
    r = cli("imports", "undo", undo_run["run"], "--yes")
    assert r.exit_code == 2 and "an undo cannot be undone" in r.stderr, r

    # the first run (three creates) undone too, as JSON: every site of the client is gone
    r = cli("imports", "undo", first, "--yes", "-o", "json")
    assert r.exit_code == 0, r
    document = json.loads(r.stdout)
    assert [row["row"] for row in document["rows"]] == [3, 2, 1]
    assert {k: v for k, v in document["summary"].items() if k != "run"} == {
        "undo": first, "kind": "site", "dryRun": False, "deleted": 3, "restored": 0, "gone": 0, "changed": 0,
        "failed": 0}
    assert sites_of(cli, cid) == {}


def test_changed_since_the_run_is_not_overwritten_unless_forced(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, _, second = two_runs(cli, tmp_path)
    sites = sites_of(cli, cid)
    a, d = sites["Site A"]["id"], sites["Site D"]["id"]
    assert cli("sites", "update", a, "--address", "5 Other St").exit_code == 0
    assert cli("sites", "update", d, "--email", "someone@x.test").exit_code == 0
    r = cli("imports", "undo", second, "--yes")
    assert r.exit_code == 10, r
    lines = r.stderr.splitlines()
    assert lines[:3] == [
        f"row 4  changed  Site D  ({d})  error: changed since the run (email); --force deletes it anyway",
        "  email: d@x.test -> someone@x.test",
        f"row 1  changed  Site A  ({a})  error: changed since the run (address); --force overwrites it anyway"]
    assert lines[-1].endswith(f"of run {second}: restored 1 site, 2 changed since the run")
    assert get(cli, "sites", d) is not None and get(cli, "sites", a)["address"] == "5 Other St"  # type: ignore[index]
    assert {r["run"]: r["state"] for r in runs(cli)}[second] == "partly undone"

    r = cli("imports", "undo", second, "--yes", "--force")  # only the two rows not undone yet
    assert r.exit_code == 0, r
    assert r.stderr.endswith(f"of run {second}: deleted 1 site, restored 1\n"), r
    assert get(cli, "sites", d) is None and get(cli, "sites", a)["address"] == "1 High St"  # type: ignore[index]
    assert {r["run"]: r["state"] for r in runs(cli)}[second] == "undone"


def test_prompt_on_a_terminal(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    first = import_file(cli, "sites", tmp_path / "first.csv", FIRST, "--client", cid)
    r = cli("imports", "undo", first, tty=True, input="n\n")
    assert (r.exit_code, r.stdout) == (2, ""), r
    started = next(run["started"] for run in runs(cli) if run["run"] == first)[:16].replace("T", " ")
    assert r.stderr == f"Undo run {first} (first.csv, started {started} UTC): delete 3 sites? [y/N] Not undone.\n"
    assert len(sites_of(cli, cid)) == 3
    second = import_file(cli, "sites", tmp_path / "second.csv", SECOND, "--client", cid, "--on-existing", "update")
    r = cli("imports", "undo", second, tty=True, input="y\n")
    assert r.exit_code == 0, r
    assert r.stderr.startswith(f"Undo run {second} (second.csv, started ")
    assert " UTC): delete 1 site, restore 2? [y/N] " in r.stderr
    assert set(sites_of(cli, cid)) == {"Site A", "Site B", "Site C"}
