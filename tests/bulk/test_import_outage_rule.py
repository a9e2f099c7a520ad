"""An import's rows meet an outage through the run's one stop rule (issue 46: `wfctl.runs.engine.stop_cause`,
which a rates, bans, edit, undo or prune run asks too). Behind a proxy that answers 503 (Retry-After: 1) for a
while: a window shorter than the outage budget is ridden out (no row failed); one that outlasts it stops the
run with the documented line, resumable, and the run that resumes it sends what is left."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.bulk.helpers import site_names
from tests.bulk.test_ride_out import import_behind_503s

ROWS = 40


def test_an_import_rides_out_a_503_window_and_fails_no_row(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    with import_behind_503s(cli, sandbox_factory, path, ROWS, "Window", seconds=3, after=10) as (proxy, cid):
        r = cli("sites", "import", str(path), "--client", cid, "-j", "4", env={"WFCTL_OUTAGE_SECONDS": "30"})
        assert r.exit_code == 0, r
        assert proxy.refused >= 4
        assert "failed" not in r.stderr and "stopped" not in r.stderr, r.stderr
        assert site_names(cli, cid) == [f"Window {i:04d}" for i in range(ROWS)]


def test_an_import_stops_by_the_one_rule_when_the_503s_outlast_the_budget(cli: Any, sandbox_factory: Any,
                                                                          tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    with import_behind_503s(cli, sandbox_factory, path, ROWS, "Outlast", seconds=600, after=10) as (proxy, cid):
        r = cli("sites", "import", str(path), "--client", cid, "-j", "2", env={"WFCTL_OUTAGE_SECONDS": "2"})
        assert r.exit_code == 7, r
        last = r.stderr.splitlines()[-1]
        match = re.fullmatch(r"error: stopped: the service is unreachable \(the service is unavailable "
                             rf"\(HTTP 503 for \d+ s\): .+\); (\d+) of {ROWS} rows done; run the same command again "
                             r"to resume", last)
        assert match, r.stderr
        assert "failed" not in r.stderr  # rows not sent are not counted as failed
        proxy.armed, proxy.until = False, 0.0  # the service is back
        done = site_names(cli, cid)
        assert len(done) == int(match.group(1)) < ROWS

        r = cli("sites", "import", str(path), "--client", cid, "-j", "2")
        assert r.exit_code == 0, r
        assert site_names(cli, cid) == [f"Outlast {i:04d}" for i in range(ROWS)]
        runs = json.loads(cli("imports", "list", "-o", "json").stdout)
        assert [run["state"] for run in runs] == ["complete"], runs  # the stopped run, resumed: one run
