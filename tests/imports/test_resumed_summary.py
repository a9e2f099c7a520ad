"""A resumed import's summary counts that run's rows, and shows the whole run's totals labelled (issue 45):
the line on stderr says `N rows (of TOTAL; M done before) ...: created N`, and `-o json` keeps the whole
run's counts where they were and adds `thisRun` (its own rows and counts, and `doneBefore`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_names


def _unfinish(cli: Any, rows: set[int], client: str) -> None:
    """Make the run's journal say it stopped with `rows` failed (their records made all the same, as after an
    answer lost), and no end line: the same command resumes it."""
    (journal,) = (Path(cli.tmp_path) / "state" / "wfctl" / "runs" / "default").glob("*.journal")
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    kept = []
    for line in lines[:-1]:
        if line.get("r") in rows and line.get("s") == "created":
            n = line["r"]
            line = {"r": n, "s": "failed", "e": "no answer from the service (HTTP 502)", "n": f"Depot {n}",
                    "b": {"name": f"Depot {n}", "address": f"{n} Quay"}, "p": client}
        kept.append(json.dumps(line))
    journal.write_text("\n".join(kept) + "\n", encoding="utf-8")


def _stopped_run(cli: Any, tmp_path: Path, failed: set[int]) -> tuple[str, list[str]]:
    """A client, and the command of a run of 5 rows that stopped with the rows `failed` to send again."""
    client = new_client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {n},{n} Quay\n" for n in range(1, 6)), encoding="utf-8")
    args = ["sites", "import", str(path), "--client", client]
    assert cli(*args).exit_code == 0
    _unfinish(cli, failed, client)
    return client, args


def test_a_resumed_runs_summary_counts_its_rows_and_labels_the_whole_runs(logged_in, tmp_path):
    client, args = _stopped_run(logged_in, tmp_path, {4, 5})

    r = logged_in(*args, "-o", "json")
    assert r.exit_code == 0, r
    assert r.stderr.startswith("resuming run ") and ": 3 of 5 rows already done\n" in r.stderr, r.stderr
    summary = json.loads(r.stdout)
    assert (summary["rows"], summary["created"]) == (5, 5)  # the whole run's, as `imports list` counts it
    assert summary["thisRun"] == {"rows": 2, "doneBefore": 3, "created": 2, "updated": 0, "unchanged": 0,
                                  "skipped": 0, "failed": 0, "invalid": 0}
    assert sorted(site_names(logged_in, client)) == [f"Depot {n}" for n in range(1, 6)]


def test_a_resumed_runs_line_says_this_runs_rows(logged_in, tmp_path):
    _, args = _stopped_run(logged_in, tmp_path, {5})

    r = logged_in(*args)
    assert r.exit_code == 0, r
    last = r.stderr.splitlines()[-1]
    assert ": 1 row (of 5; 4 done before) in " in last and last.endswith(": created 1"), r.stderr


def test_a_run_not_resumed_has_no_this_run(logged_in, tmp_path):
    client = new_client(logged_in)
    path = tmp_path / "sites.csv"
    path.write_text("name\nDepot 1\n", encoding="utf-8")
    r = logged_in("sites", "import", str(path), "--client", client, "-o", "json")
    assert r.exit_code == 0, r
    assert "thisRun" not in json.loads(r.stdout)
