"""Run states in `imports list` (interrupted, running), `imports prune`, and undo of an interrupted run:
journals written with the journal API, next to records on the sandbox."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from tests.bulk.helpers import new_client
from tests.imports.helpers import get, runs
from wfctl.runs import journal


def header(run: str, started: str, target: str = "", path: str = "/data/sites.csv") -> dict[str, Any]:
    return {"run": run, "nonce": "n", "kind": "site", "file": run * 2, "path": path, "target": target,
            "profile": "default", "parent": "", "onExisting": "skip", "started": started, "undo": None}


def runs_dir(cli: Any) -> str:
    return os.path.join(str(cli.tmp_path), "state", "wfctl", "runs", "default")


def test_states_limit_and_prune(cli: Any) -> None:
    directory = runs_dir(cli)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    old = journal.Journal(journal.journal_path(directory, "250101-aaaaaa"), header("250101-aaaaaa",
                                                                                   "2025-01-01T10:00:00Z"))
    old.record(1, "created", "id-1", name="A", changes={"name": [None, "A"]})
    old.finish({"created": 1})
    stopped = journal.Journal(journal.journal_path(directory, "261001-bbbbbb"),
                              header("261001-bbbbbb", now, path="/data/b.csv"))
    stopped.record(1, "created", "id-2", name="B")
    stopped.intend(2)
    stopped.finish(None)
    assert [(r["run"], r["state"]) for r in runs(cli)] == [("261001-bbbbbb", "interrupted"),
                                                          ("250101-aaaaaa", "complete")]
    with journal.ImportLock(directory, journal.header_of(stopped.path) or {}):
        assert runs(cli)[0]["state"] == "running"
        r = cli("--base-url", "http://127.0.0.1:9", "imports", "undo", "261001", "--yes")
        assert (r.exit_code, r.stderr) == (2, "error: run 261001-bbbbbb is still running; wait for it to end "
                                              "(or stop it) before undoing it\n")
    assert runs(cli)[0]["counts"] == {"created": 1, "sending": 1}
    r = cli("imports", "list", "--limit", "1")
    assert r.stdout.splitlines()[1].split() == ["261001-bbbbbb", "site", "/data/b.csv", now,
                                                "created", "1,", "sending", "1", "interrupted"]

    r = cli("--no-color", "imports", "list", tty=True, env={"COLUMNS": "80"})  # ids and times are never wrapped
    assert r.stderr == "runs of profile default, newest first\n"
    lines = r.stdout.splitlines()
    # one line a run at 80 columns: kind and started give way (issue 24 §5: the file was cut in 10-character pieces)
    assert lines[0].split() == ["run", "file", "counts", "state"]
    assert lines[2].startswith("261001-bbbbbb   /data/b.csv   ") and lines[2].endswith("   interrupted")
    assert any(line.startswith("250101-aaaaaa   ") and line.endswith("   complete") for line in lines)
    assert lines[-1] == "not shown: kind, started; -o wide shows all"
    assert max(len(line) for line in lines) <= 80
    r = cli("--no-color", "imports", "list", tty=True, env={"COLUMNS": "120"})
    assert r.stdout.splitlines()[0].split() == ["run", "kind", "file", "started", "counts", "state"]
    assert f"   {now}   " in r.stdout.splitlines()[2]

    r = cli("imports", "prune", "--older-than", "soon")
    assert (r.exit_code, r.stderr) == (2, "error: --older-than: 'soon' is not an age like 30d, 12h, 90m, 2w\n")
    r = cli("imports", "prune", "--older-than", "30d", "--dry-run", "-o", "json")
    assert r.exit_code == 0, r
    assert [p["run"] for p in json.loads(r.stdout)] == ["250101-aaaaaa"]
    assert len(runs(cli)) == 2
    r = cli("imports", "prune", "--older-than", "30d")
    assert r.exit_code == 0 and r.stdout.splitlines()[1].startswith("250101-aaaaaa  site  2025-01-01T10:00:00Z"), r
    assert [row["run"] for row in runs(cli)] == ["261001-bbbbbb"]
    assert not os.path.exists(old.path)


def test_empty_profile_lists_nothing(cli: Any) -> None:
    r = cli("imports", "list", "-o", "json")
    assert (r.exit_code, r.stdout) == (0, "[]\n")
    r = cli("imports", "list", tty=True)
    assert (r.exit_code, r.stdout) == (0, "")
    assert r.stderr == "no runs yet in profile default: `wfctl sites import FILE` makes one\n"


def test_undo_of_an_interrupted_run_reports_rows_of_unknown_outcome(logged_in: Any, sandbox: Any) -> None:
    cli = logged_in
    cid = new_client(cli)
    site = json.loads(cli("sites", "create", "--client", cid, "--name", "Made", "--address", "1 Road",
                          "-o", "json").stdout)
    run = journal.Journal(journal.journal_path(runs_dir(cli), "261002-cccccc"),
                          header("261002-cccccc", "2026-10-02T10:00:00Z", target=sandbox.url))
    run.record(1, "created", site["id"], name="Made", changes={"name": [None, "Made"], "address": [None, "1 Road"]})
    run.intend(2)
    run.finish(None)
    r = cli("imports", "undo", "261002-cccccc", "--yes")
    assert r.exit_code == 10, r
    assert r.stderr.splitlines()[0] == ("row 2  failed  error: the run stopped before this row's answer arrived, "
                                        "and its journal (written by an older wfctl) does not say what was sent: "
                                        "check the record by hand")
    assert r.stderr.splitlines()[-1].endswith("of run 261002-cccccc: deleted 1 site, 1 failed")
    assert get(cli, "sites", site["id"]) is None
    assert {row["run"]: row["state"] for row in runs(cli)}["261002-cccccc"] == "partly undone"

    r = cli("--base-url", "http://127.0.0.1:9", "imports", "undo", "261002-cccccc", "--yes")
    assert r.exit_code == 2 and f"was made against {sandbox.url}, but this profile uses http://127.0.0.1:9" in r.stderr


def test_nothing_to_prune_is_said_and_a_run_is_found_by_its_own_part(cli: Any) -> None:
    """Issue 49: a prune with nothing to remove says so; `imports show 397049` finds run 261206-397049."""
    directory = runs_dir(cli)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    run = journal.Journal(journal.journal_path(directory, "261206-397049"), header("261206-397049", now))
    run.record(1, "created", "id-1", name="A", changes={"name": [None, "A"]})
    run.finish({"created": 1})
    r = cli("imports", "prune", "--older-than", "30d", tty=True)
    assert (r.exit_code, r.stdout, r.stderr) == (
        0, "", "no run of profile default started more than 30d ago: nothing removed (1 run kept)\n")
    r = cli("imports", "prune", "--older-than", "30d", "--dry-run", tty=True)
    assert r.stderr == "no run of profile default started more than 30d ago: nothing would be removed (1 run kept)\n"
    for wanted in ("397049", "3970", "261206-397049", "2612"):
        r = cli("imports", "show", wanted, "-o", "json")
        assert (r.exit_code, json.loads(r.stdout)["summary"]["run"]) == (0, "261206-397049"), wanted
    r = cli("imports", "show", "9999")
    assert (r.exit_code, r.stderr) == (4, "error: no run '9999' in this profile (`wfctl imports list` shows the "
                                          "runs)\n")
