"""Import runs end to end (issues 12 and 14): a nonce per run, the service's natural key, capped column
problems, files that are never replaced, no dry-run journal left behind, the advice for invalid rows,
and plan and run speaking the same words. The slow subprocess ones (kills, Ctrl-C, an unreachable
service, an unwritable journal, a second run at once) are in test_runs_faults.py."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_names, write
from tests.fixtures.cli import REPO_ROOT

SUMMARY_KEYS = {"run", "rows", "created", "updated", "unchanged", "skipped", "failed", "invalid", "skippedDiffer", "notInFile", "blank",
                "seconds", "dryRun"}


def report(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def sites(cli: Any, client_id: str) -> list[dict[str, Any]]:
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return list(json.loads(r.stdout))


def state_journals(cli: Any) -> list[Path]:
    return sorted(Path(cli.env["XDG_STATE_HOME"]).rglob("*.journal"))


# -- issue 12 High: a nonce per run ----------------------------------------------------------------

def test_reimport_after_delete_creates_the_deleted_row_again(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,phone\nDock A,01482 1\nDock B,01482 2\n")
    r = cli("sites", "import", str(path), "--client", cid, "--report", str(tmp_path / "r1.csv"), "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["created"] == 2
    first = {row["name"]: row["id"] for row in report(tmp_path / "r1.csv")}
    r = cli("sites", "delete", first["Dock A"], "--yes")
    assert r.exit_code == 0, r
    assert cli("sites", "get", first["Dock A"]).exit_code == 4

    r = cli("sites", "import", str(path), "--client", cid, "--report", str(tmp_path / "r2.csv"), "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    second = {row["name"]: (row["status"], row["id"]) for row in report(tmp_path / "r2.csv")}
    for _, record_id in second.values():  # the report lists only ids that exist
        assert cli("sites", "get", record_id, "-o", "json").exit_code == 0, (record_id, second)
    assert second["Dock A"][0] == "created" and second["Dock A"][1] != first["Dock A"]
    assert second["Dock B"] == ("skipped", first["Dock B"])
    assert (summary["created"], summary["skipped"]) == (1, 1), summary
    assert sorted(s["id"] for s in sites(cli, cid)) == sorted(i for _, i in second.values())
    # each run has its own id (and nonce): two finished journals
    runs = [json.loads(p.read_text().splitlines()[0]) for p in state_journals(cli)]
    runs = [h for h in runs if h.get("parent") == cid]
    assert len(runs) == 2 and runs[0]["run"] != runs[1]["run"] and runs[0]["nonce"] != runs[1]["nonce"]
    assert all(h["nonce"] for h in runs)


# -- issue 12 Low 12: the service's natural key ----------------------------------------------------

def test_inner_whitespace_is_part_of_the_name(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,phone\nNorth Yard,01 1\nNorth  Yard,01 2\n")
    r = cli("sites", "import", str(path), "--client", cid, "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["created"] == 2
    assert site_names(cli, cid) == ["North  Yard", "North Yard"]

    update = write(tmp_path / "u.csv", "name,phone\nNorth Yard,01 9\n")
    r = cli("sites", "import", str(update), "--client", cid, "--on-existing", "update", "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert (summary["updated"], summary["created"]) == (1, 0), summary
    by_name = {s["name"]: s for s in sites(cli, cid)}
    assert set(by_name) == {"North Yard", "North  Yard"}  # nothing renamed
    assert by_name["North  Yard"]["phone"] == "01 2"  # untouched
    r = cli("sites", "get", by_name["North Yard"]["id"], "-o", "json")
    assert json.loads(r.stdout)["phone"] == "01 9"


def test_names_equal_after_trim_and_casefold_are_still_duplicates(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name\nSouth Gate\n south GATE \n")
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 2, r
    assert "row 2" in r.stderr and "already row 1" in r.stderr
    assert site_names(cli, cid) == []


# -- issue 12 Low 14: unknown columns are capped ---------------------------------------------------

def test_twenty_thousand_unknown_columns_print_a_few_lines(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    columns = [f"junk{i}" for i in range(20_000)]
    path = write(tmp_path / "s.csv", ",".join(["name", *columns]) + "\n" + ",".join(["A", *[""] * 20_000]) + "\n")
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 2, r
    lines = r.stderr.splitlines()
    assert len(lines) <= 15, len(lines)
    assert any("19990 more unknown columns" in line for line in lines), r.stderr[:2000]
    assert "junk0" in r.stderr and "junk19999" not in r.stderr
    assert site_names(cli, cid) == []


# -- issue 12 Low 15: --journal and --report never replace the input (or a file that is no journal) ----

def test_journal_or_report_naming_the_input_is_refused(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    text = "name\nKeep A\nKeep B\n"
    path = write(tmp_path / "s.csv", text)
    for option in ("--journal", "--report"):
        for spelling in (str(path), "s.csv", f"{tmp_path}/./s.csv"):
            cwd = os.getcwd()
            os.chdir(tmp_path)
            try:
                r = cli("sites", "import", str(path), "--client", cid, option, spelling)
            finally:
                os.chdir(cwd)
            assert r.exit_code == 2, r
            assert "is the input file" in r.stderr, r
            assert path.read_text() == text
    assert site_names(cli, cid) == []


def test_journal_naming_a_file_that_is_no_journal_is_refused(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name\nKeep C\n")
    precious = write(tmp_path / "notes.txt", "my notes\nline 2\n")
    r = cli("sites", "import", str(path), "--client", cid, "--journal", str(precious))
    assert r.exit_code == 2, r
    assert "not a wfctl journal" in r.stderr and "nothing was sent" in r.stderr
    assert precious.read_text() == "my notes\nline 2\n"
    empty = write(tmp_path / "empty.journal", "")
    r = cli("sites", "import", str(path), "--client", cid, "--journal", str(empty))
    assert r.exit_code == 2, r
    assert empty.read_text() == ""
    assert site_names(cli, cid) == []


def test_report_to_a_missing_folder_is_refused_before_sending(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name\nNope A\nNope B\n")
    r = cli("sites", "import", str(path), "--client", cid, "--report", str(tmp_path / "missing" / "r.csv"))
    assert r.exit_code == 2, r
    assert "cannot write" in r.stderr and "missing" in r.stderr
    assert site_names(cli, cid) == []
    assert state_journals(cli) == []  # not even a run was started


# -- issue 12 Low 16: a dry run leaves no journal behind ------------------------------------------------

def test_dry_run_leaves_nothing_in_the_temporary_directory(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name\nPlan A\nPlan B\n")
    bad = write(tmp_path / "bad.csv", "name,email\nPlan C,not-an-email\n")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**cli.env, "TMPDIR": str(tmpdir), "PYTHONPATH": str(REPO_ROOT)}
    wfctl = REPO_ROOT / ".venv" / "bin" / "wfctl"
    command = [str(wfctl)] if wfctl.exists() else [sys.executable, "-m", "wfctl"]
    for args, code in (([str(path)], 0), ([str(path), "-o", "json"], 0), ([str(bad)], 2)):
        proc = subprocess.run([*command, "sites", "import", *args, "--client", cid, "--dry-run"], env=env,
                              capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
        assert proc.returncode == code, proc.stderr
        assert sorted(os.listdir(tmpdir)) == [], (args, os.listdir(tmpdir))
    assert state_journals(cli) == []
    assert site_names(cli, cid) == []


# -- issue 14 §3: invalid rows are not failed rows ----------------------------------------------------

def test_invalid_rows_get_their_own_advice(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,email\nGood A,a@example.com\nBad B,not-an-email\nGood C,\n")
    r = cli("sites", "import", str(path), "--client", cid, "--skip-invalid")
    assert r.exit_code == 10, r
    assert f"1 invalid row was not sent: fix it in {path} and run again" in r.stderr
    assert "run the same command again" not in r.stderr
    assert site_names(cli, cid) == ["Good A", "Good C"]


# -- issue 14 §2: plan and run use the same words and keys --------------------------------------------

def test_plan_and_run_share_words_and_json_keys(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,phone\nWord A,1\nWord B,2\nWord C,3\n")
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run", "-o", "json")
    assert r.exit_code == 0, r
    plan = json.loads(r.stdout)
    assert set(plan) == {"rows", "summary"}
    assert set(plan["summary"]) == SUMMARY_KEYS, plan["summary"]
    assert plan["summary"]["dryRun"] is True and plan["summary"]["created"] == 3
    assert [(row["row"], row["action"]) for row in plan["rows"]] == [(1, "create"), (2, "create"), (3, "create")]

    r = cli("sites", "import", str(path), "--client", cid, "-o", "json")
    assert r.exit_code == 0, r
    run = json.loads(r.stdout)
    assert set(run) == SUMMARY_KEYS, run
    assert run["dryRun"] is False and run["created"] == 3 and run["run"]
    assert all(" " not in key for key in run)

    # 3 rows that exist, never compared under --on-existing skip: skipped, in the plan as in the run
    changed = write(tmp_path / "s.csv", "name,phone\nWord A,9\nWord B,2\nWord C,3\n")
    r = cli("sites", "import", str(changed), "--client", cid, "--dry-run")
    assert r.exit_code == 0, r
    assert "skipped (exist)  3\n" in r.stdout and "unchanged        0\n" in r.stdout, r
    r = cli("sites", "import", str(changed), "--client", cid, "--dry-run", "-o", "json")
    plan = json.loads(r.stdout)["summary"]
    r = cli("sites", "import", str(changed), "--client", cid, "-o", "json")
    run = json.loads(r.stdout)
    assert set(plan) == set(run) == SUMMARY_KEYS
    assert {k: plan[k] for k in ("rows", "created", "updated", "unchanged", "skipped", "invalid")} == \
           {k: run[k] for k in ("rows", "created", "updated", "unchanged", "skipped", "invalid")} == \
           {"rows": 3, "created": 0, "updated": 0, "unchanged": 0, "skipped": 3, "invalid": 0}
    r = cli("sites", "import", str(changed), "--client", cid)
    assert r.exit_code == 0, r
    assert "skipped (exist) 3" in r.stderr and "unchanged" not in r.stderr, r

    # --on-existing update: 1 to update, 2 unchanged, and the run says the same
    r = cli("sites", "import", str(changed), "--client", cid, "--dry-run", "--on-existing", "update", "-o", "json")
    plan = json.loads(r.stdout)["summary"]
    r = cli("sites", "import", str(changed), "--client", cid, "--on-existing", "update", "-o", "json")
    run = json.loads(r.stdout)
    assert (plan["updated"], plan["unchanged"]) == (run["updated"], run["unchanged"]) == (1, 2), (plan, run)


# -- a row whose answer is lost every time (while others get through) is recorded as failed ---------

def test_a_row_whose_answer_is_always_lost_is_accounted_for(cli: Any, sandbox: Any, tmp_path: Path) -> None:
    from wfctl.sandbox.injectors import FaultProxy

    assert cli.login_as(sandbox.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,phone\nLost A,1\nLost B,2\nLost C,3\n")
    assert cli("sites", "import", str(path), "--client", cid).exit_code == 0
    target = next(s["id"] for s in sites(cli, cid) if s["name"] == "Lost B")
    proxy = FaultProxy(sandbox.url, drop=lambda method, p: method == "PUT" and p.endswith(target))
    proxy.random = type("Always", (), {"random": lambda self: 0.0})()  # drop every answer to that PUT
    try:
        assert cli.login_as(proxy.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
        write(path, "name,phone\nLost A,9\nLost B,9\nLost C,9\n")
        r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update", "--concurrency", "2",
                "--report", str(tmp_path / "r.csv"), "-o", "json", env={"WFCTL_UNREACHABLE_SECONDS": "2"})
    finally:
        proxy.stop()
    statuses = {row["name"]: row["status"] for row in report(tmp_path / "r.csv")}
    assert statuses == {"Lost A": "updated", "Lost B": statuses["Lost B"], "Lost C": "updated"}, statuses
    if r.exit_code == 10:  # the others got through meanwhile: the row failed, and the run says so
        assert statuses["Lost B"] == "failed" and json.loads(r.stdout)["failed"] == 1, r
    else:  # nothing got through for a while: the run stops, resumable, and the row is not "not sent"
        assert r.exit_code == 7, r
        assert statuses["Lost B"] == "no answer", statuses
        error = json.loads(r.stderr.splitlines()[-1])["error"]  # -o json: the error is the JSON object too
        assert error["title"].endswith("; 2 of 3 rows done; run the same command again to resume"), r


# -- a row whose update was applied when the run was killed is an update when the run resumes -------

def test_a_resumed_update_row_is_not_taken_for_a_create(logged_in: Any, tmp_path: Path) -> None:
    """Killed after the PUT of a row was applied and before its outcome was written (the journal ends
    with the row's intent): the resumed run reports the row updated, and undo puts the old value back
    instead of deleting a record the run did not create."""
    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,phone\nKept A,1\nKept B,2\n")
    assert cli("sites", "import", str(path), "--client", cid).exit_code == 0
    before = {s["name"]: s["id"] for s in sites(cli, cid)}
    write(path, "name,phone\nKept A,9\nKept B,9\n")
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update", "--concurrency", "1")
    assert r.exit_code == 0, r
    journal_path = next(p for p in state_journals(cli) if '"onExisting": "update"' in p.read_text(encoding="utf-8"))
    lines = journal_path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1]).get("end") and json.loads(lines[-2])["s"] == "updated", lines
    journal_path.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")  # killed: the intent, no outcome

    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update",
            "--report", str(tmp_path / "r.csv"), "-o", "json")
    assert r.exit_code == 0, r
    statuses = {row["name"]: row["status"] for row in report(tmp_path / "r.csv")}
    assert statuses == {"Kept A": "updated", "Kept B": "updated"}, statuses
    run = json.loads(lines[0])["run"]
    r = cli("imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    after = {s["name"]: (s["id"], s["phone"]) for s in sites(cli, cid)}
    assert after == {"Kept A": (before["Kept A"], "1"), "Kept B": (before["Kept B"], "2")}, after


# -- a run stopped by invalid rows closes its journal -------------------------------------------------

def test_invalid_rows_leave_no_file_open(logged_in: Any, tmp_path: Path) -> None:
    """A run or plan that validation stops closes its journal (a plan's, already removed, held its disk
    space until the process ended) and stops the journal's fsync thread."""
    import threading

    cli = logged_in
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,email\nGood,a@b.co\nBad,not-mail\n")
    cli("sites", "list", "--client", cid)  # the client's session is up before counting
    before = set(os.listdir("/proc/self/fd"))
    for extra in ((), ("--dry-run",)):
        r = cli("sites", "import", str(path), "--client", cid, *extra)
        assert r.exit_code == 2, r
    opened = [os.readlink(f"/proc/self/fd/{fd}") for fd in set(os.listdir("/proc/self/fd")) - before
              if os.path.lexists(f"/proc/self/fd/{fd}")]
    assert not [p for p in opened if "journal" in p], opened
    assert not [t for t in threading.enumerate() if t.name == "wfctl-journal-fsync"]
    r = cli("imports", "list", "-o", "json")  # a run that sent nothing leaves no run behind
    assert r.exit_code == 0 and json.loads(r.stdout) == [], r
