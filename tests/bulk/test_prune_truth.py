"""Issue 49: undo and interrupted prunes report truthfully. An undo's re-creates are successes (the bar's
`ok`, `imports show`'s rows, the JSON rows carry no `error`); a prune stopped by Ctrl-C never says more rows
done than it had, resumes with the number the person confirmed (`--allow-deletes`), and its resumed summary
counts this run's rows, never a negative number. Ctrl-C and the bar are seen in a real terminal."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import write
from tests.bulk.test_prune import client_with_sites, held, site_file
from tests.messages.helpers import SIZES, finish, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")

IDS = ["80x24", "120x40"]


def _journal(cli: Any) -> Path | None:
    runs = cli.tmp_path / "state" / "wfctl" / "runs" / "default"
    found = sorted(runs.glob("*.journal"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def _deleted(journal: Path) -> int:
    lines = journal.read_text(encoding="utf-8").splitlines()[1:]
    return sum(1 for line in lines if line.endswith("}") and json.loads(line).get("s") == "deleted")


def test_an_undo_of_a_prune_reports_its_re_creates_as_done(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, _, names = client_with_sites(cli, tmp_path, 4)
    gone = held(cli, cid)["Site 03"]["id"]
    r = cli("sites", "import", str(write(tmp_path / "k.csv", site_file(names[:3]))), "--client", cid, "--prune",
            "--yes", "-o", "json")
    assert r.exit_code == 0, r
    run = json.loads(r.stdout)["run"]
    r = cli("imports", "undo", run, "--yes", "-o", "json")
    assert r.exit_code == 0, r
    undone = json.loads(r.stdout)
    again = held(cli, cid)["Site 03"]["id"]
    assert undone["summary"]["recreated"] == 1 and undone["summary"]["failed"] == 0
    [row] = undone["rows"]
    assert "error" not in row, row
    assert (row["status"], row["id"], row["changes"]["id"]) == ("recreated", again, {"old": gone, "new": again})
    # imports show of the undo run: a re-create, the old id beside the new one, no error
    r = cli("imports", "show", undone["summary"]["run"])
    assert r.exit_code == 0, r
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"run {undone['summary']['run']}  site undo of run {run}  started ")
    assert lines[1:4] == [f"re-create  Site 03  ({again})", f"  id: {gone} -> {again}",
                          "  address: 3 Dock Rd"], r.stdout
    assert "error" not in r.stdout
    r = cli("imports", "show", undone["summary"]["run"], "-o", "json")
    assert "error" not in json.loads(r.stdout)["rows"][0]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_undo_bar_counts_re_creates_as_ok(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    cli = logged_in
    cid, _, names = client_with_sites(cli, tmp_path, 8)
    r = cli("sites", "import", str(write(tmp_path / "k.csv", site_file(names[:2]))), "--client", cid, "--prune",
            "--yes", "--allow-deletes", "6", "-o", "json")
    assert r.exit_code == 0, r
    status, text = finish(spawn(cli, "imports", "undo", json.loads(r.stdout)["run"], "--yes", size=size))
    assert status == 0, text
    bar = [line for line in screen_lines(text) if line.startswith("undoing k.csv") and "6/6" in line]
    assert bar, text
    assert " ok 6 " in bar[-1] + " " and "not undone 0" in bar[-1], bar[-1]
    assert [line for line in screen_lines(text) if line.strip()][-1].endswith(": re-created 6 sites (with new ids)")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_prune_stopped_by_ctrl_c_says_no_more_than_its_plan_and_resumes_as_confirmed(
        cli: Any, sandbox_factory: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    slow = sandbox_factory(latency_ms=20)
    assert cli.login_as(slow.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid, name, names = client_with_sites(cli, tmp_path, 80)
    kept = write(tmp_path / "kept.csv", site_file(names[:20]))
    command = ["sites", "import", str(kept), "--client", cid, "--prune", "--yes", "--allow-deletes", "60", "-j", "1"]
    child = spawn(cli, *command, size=size)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # Ctrl-C once some deletes are done, the others not yet
        journal = _journal(cli)
        if journal is not None and _deleted(journal) >= 5:
            break
        time.sleep(0.02)
    child.sendintr()
    status, text = finish(child)
    assert status == 130, text
    last = [line for line in screen_lines(text) if line.strip()][-1]
    said = re.fullmatch(r"error: interrupted: (\d+) of 80 rows done \(the file's 20 and 60 deletes\); run the "
                        r"same command again to resume", last)
    assert said, last
    done = int(said.group(1))
    assert 20 < done < 80
    deleted = 80 - len(held(cli, cid))
    assert done - 20 <= deleted  # a delete in flight may have gone through

    # the same command again: it resumes with the number confirmed (60), the deletes done before included
    r = cli(*command)
    assert r.exit_code == 0, r
    lines = r.stderr.splitlines()
    assert lines[0] == f"resuming run {journal.stem}: {done} of 80 rows already done", r.stderr
    left = 60 - deleted
    assert f"prune: {left} of {80 - deleted} sites in client {name} to delete ({deleted} more deleted before the " \
           "run stopped: 60 in all)" in lines, r.stderr
    summary = re.fullmatch(rf"run {journal.stem}: (\d+) rows? \(of 80; {done} done before\) in [0-9.]+s \(.*(\d+) "
                           rf"rows/s\): deleted (\d+)", lines[-1])
    assert summary, lines[-1]
    assert int(summary.group(1)) == 80 - done and int(summary.group(3)) == 80 - done
    assert sorted(held(cli, cid)) == names[:20]
    r = cli("imports", "list", "-o", "json")
    assert json.loads(r.stdout)[0]["counts"]["deleted"] == 60, r.stdout


def test_a_saved_plan_run_twice_sends_nothing_and_a_stopped_one_resumes(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 4)
    path = write(tmp_path / "p.csv", site_file(names[:2]).replace("0 Dock Rd", "0 New Rd"))
    plan = tmp_path / "plan.json"
    common = ("sites", "import", str(path), "--client", cid, "--on-existing", "update")
    r = cli(*common, "--prune", "--dry-run", "--allow-deletes", "2", "--plan-out", str(plan))
    assert r.exit_code == 0, r
    r = cli(*common, "--plan", str(plan), "--yes", "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert (summary["rows"], summary["updated"], summary["deleted"]) == (1, 1, 2), summary  # what the plan sends
    assert r.stderr.endswith(f"prune: 2 of 4 sites in client {name} to delete\n"), r.stderr
    # run again: the plan's own deletes are not "deleted since the plan"; it was run, and nothing is sent
    r = cli(*common, "--plan", str(plan), "--yes")
    started = json.loads(cli("imports", "list", "-o", "json").stdout)[0]
    assert (r.exit_code, r.stderr) == (0, f"plan {plan} was run already: run {summary['run']} (started "
                                          f"{started['started']}, complete); nothing was sent (to change more, make "
                                          "a new plan with --dry-run --plan-out)\n"), r
    assert sorted(held(cli, cid)) == names[:2]
    # a run of the plan stopped after its update and one delete (its end and last outcome cut): it resumes
    r = cli("imports", "undo", summary["run"], "--yes")
    assert r.exit_code == 0, r
    r = cli(*common, "--prune", "--dry-run", "--allow-deletes", "2", "--plan-out", str(plan))
    assert r.exit_code == 0, r
    again = tmp_path / "again.journal"
    r = cli(*common, "--plan", str(plan), "--yes", "--journal", str(again))
    assert r.exit_code == 0, r
    lines = [json.loads(line) for line in again.read_text().splitlines()]
    last = max(i for i, line in enumerate(lines) if line.get("s") == "deleted")
    again.write_text("".join(json.dumps(line) + "\n" for i, line in enumerate(lines)
                             if not line.get("end") and i != last))
    r = cli(*common, "--plan", str(plan), "--yes", "--journal", str(again), "-o", "json")
    assert r.exit_code == 0, r
    assert "changed since the plan" not in r.stderr and "changed:" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["deleted"] == 2, r
    assert sorted(held(cli, cid)) == names[:2]
