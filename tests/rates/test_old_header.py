"""A `rates set` run journalled by an earlier version (its change spelt in `file` as `"rates:<sha>"`, before
RunRecord, and each site's entry under a row number made up for it, before entries were keyed by action,
issue 46), stopped while a site was being sent, resumes under this version: the same run, no site changed
twice, and `imports undo` takes it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, site_rows
from tests.rates.test_kill import forklift_rates


def _as_an_earlier_version_left_it(journal: Path) -> str:
    """Rewrite the journal as versions before RunRecord and action keys wrote it (the change in `file`, each
    site under a row numbered from 1 in the order the run met it), and cut the run's end and its last
    site's outcome (its intent stays: it was being sent). Returns the run id."""
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    header, rows = lines[0], [line for line in lines[1:] if not line.get("end")]
    assert header["command"] == "rates set" and "file" not in header, header
    header["file"] = "rates:" + header.pop("change")
    numbers: dict[str, int] = {}
    for line in rows:
        kind, site_id, verb = line.pop("k")
        assert (kind, verb) == ("site", "update") and site_id == line["id"], line
        line["r"] = numbers.setdefault(site_id, len(numbers) + 1)
    last = max(i for i, line in enumerate(rows) if line["s"] == "updated")
    del rows[last]
    journal.write_text("".join(json.dumps(line) + "\n" for line in [header, *rows]), encoding="utf-8")
    return str(header["run"])


def test_an_earlier_versions_stopped_rate_change_resumes_and_undoes(cli: Any, sandbox_factory: Any,
                                                                    tmp_path: Path) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id = new_client(cli)
    (tmp_path / "sites.csv").write_text(site_rows(6), encoding="utf-8")
    assert cli("sites", "import", str(tmp_path / "sites.csv"), "--client", client_id).exit_code == 0
    before = forklift_rates(cli, client_id)
    command = ["rates", "set", "--client", client_id, "--skill", "forklift driver", "--by", "+10%"]
    r = cli(*command)
    assert r.exit_code == 0, r
    after = forklift_rates(cli, client_id)
    journal = next(path for path in (tmp_path / "state" / "wfctl" / "runs").rglob("*.journal")
                   if '"command": "rates set"' in path.read_text(encoding="utf-8").splitlines()[0])
    run_id = _as_an_earlier_version_left_it(journal)

    r = cli(*command)
    assert r.exit_code == 0, r
    last = r.stderr.splitlines()[-1]  # the same run, resumed (its note is a terminal's)
    assert last.startswith(f"run {run_id}: 6 sites in ") and last.endswith(": updated 6"), r.stderr
    assert forklift_rates(cli, client_id) == after  # the site it was sending holds the change: not sent again
    runs = json.loads(cli("imports", "list", "-o", "json").stdout)
    assert [(run["run"], run["state"]) for run in runs if run["run"] == run_id] == [(run_id, "complete")]

    r = cli("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    assert forklift_rates(cli, client_id) == before
