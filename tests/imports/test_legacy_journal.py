"""Runs journalled before the one executor (issue 31) still list, show, resume and undo.

`legacy/` holds what wfctl wrote before the change, byte for byte: the two journals of one profile and
the sandbox database they were made against. They were made by the code of the time (commit cbcd32a)
against its sandbox (400 ms latency): `sites import sites.csv --client <id> -j 1` stopped by Ctrl-C once
its first row was created (run 261127-19f30c, interrupted), then an import with `--on-existing update`
that created `Legacy Y` and changed the address and phone of `Legacy Z` (run 261127-1fe4e6, complete).
The only thing the test changes is the service's address (`target`), which a new sandbox has anew.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path
from typing import Any

from tests.imports.helpers import runs, sites_of

LEGACY = Path(__file__).parent / "legacy"
TARGET = "http://127.0.0.1:43103"  # the sandbox's address when the journals were written
CLIENT = "859c4b53-de25-4048-a020-d6a85073b5aa"
INTERRUPTED, COMPLETE = "261127-19f30c", "261127-1fe4e6"


def test_runs_journalled_before_the_executor_list_show_resume_and_undo(cli: Any, sandbox_factory: Any,
                                                                       tmp_path: Path) -> None:
    database = tmp_path / "sandbox.db"
    database.write_bytes(gzip.decompress((LEGACY / "sandbox.db.gz").read_bytes()))
    server = sandbox_factory(db_path=str(database))
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    directory = os.path.join(str(cli.tmp_path), "state", "wfctl", "runs", "default")
    os.makedirs(directory, exist_ok=True)
    for run in (INTERRUPTED, COMPLETE):
        text = (LEGACY / f"{run}.journal").read_text(encoding="utf-8")
        Path(directory, f"{run}.journal").write_text(text.replace(TARGET, server.url), encoding="utf-8")

    # list
    listed = {row["run"]: row for row in runs(cli)}
    assert (listed[INTERRUPTED]["state"], listed[INTERRUPTED]["counts"]) == ("interrupted", {"created": 1})
    assert listed[COMPLETE]["state"] == "complete"
    assert {k: n for k, n in listed[COMPLETE]["counts"].items() if n} == {"created": 1, "updated": 1}

    # show
    r = cli("imports", "show", COMPLETE, "-o", "jsonl")
    assert r.exit_code == 0, r
    shown = {row.get("name"): row for row in map(json.loads, r.stdout.splitlines())}
    assert {"Legacy Y", "Legacy Z"} <= set(shown), r.stdout
    r = cli("imports", "show", INTERRUPTED)
    assert r.exit_code == 0 and "Legacy A" in r.stdout, r

    # resume: the run's first row is not sent again, the three others are
    csv = tmp_path / "sites.csv"
    shutil.copyfile(LEGACY / "sites.csv", csv)
    before = sites_of(cli, CLIENT)
    assert {"Legacy A", "Legacy Z", "Legacy Y"} <= set(before) and "Legacy B" not in before
    r = cli("sites", "import", str(csv), "--client", CLIENT)
    assert r.exit_code == 0, r
    assert f"resuming run {INTERRUPTED}" in r.stderr, r.stderr
    after = sites_of(cli, CLIENT)
    assert after["Legacy A"]["id"] == before["Legacy A"]["id"]
    assert {"Legacy B", "Legacy C", "Legacy D"} <= set(after)
    listed = {row["run"]: row for row in runs(cli)}
    assert listed[INTERRUPTED]["state"] == "complete"
    assert {k: n for k, n in listed[INTERRUPTED]["counts"].items() if n} == {"created": 4}

    # undo: the complete run's create deleted and its update put back; then the resumed run's four creates
    r = cli("imports", "undo", COMPLETE, "--yes")
    assert r.exit_code == 0, r
    sites = sites_of(cli, CLIENT)
    assert "Legacy Y" not in sites
    assert (sites["Legacy Z"]["address"], sites["Legacy Z"]["phone"]) == ("8 Low St", "+441000000008")
    r = cli("imports", "undo", INTERRUPTED, "--yes")
    assert r.exit_code == 0, r
    assert not {"Legacy A", "Legacy B", "Legacy C", "Legacy D"} & set(sites_of(cli, CLIENT))
