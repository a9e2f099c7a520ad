"""`sites diff` of an exported file when a site in it was deleted in the service meanwhile, or re-made with a
new id (issue 49): a difference, "only in the file", exit 1; never "nothing was compared"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.drift.test_diff import client_with_sites, site_ids


def _exported(cli: Any, tmp_path: Path, client: str) -> Path:
    exported = tmp_path / "export.csv"
    assert cli("sites", "export", "--client", client, "--file", str(exported)).exit_code == 0
    return exported


def test_a_site_deleted_since_the_export_is_only_in_the_file_exit_1(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    exported = _exported(cli, tmp_path, client)
    ids = site_ids(cli, client)
    assert cli("sites", "delete", ids["East Yard"], "--yes").exit_code == 0  # a colleague's delete

    r = cli("sites", "diff", str(exported), "--client", client, "-o", "jsonl")
    assert r.exit_code == 1, r
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(d["difference"], d["name"], d["id"]) for d in lines[:-1]] == [("onlyInFile", "East Yard", None)]
    assert lines[-1] == {"onlyInFile": 1, "changed": 0, "onlyInService": 0, "same": 2}
    r = cli("sites", "import", str(exported), "--client", client, "--dry-run")  # an import still refuses it
    assert r.exit_code == 2 and f"no site with id {ids['East Yard']!r}" in r.stderr, r


def test_a_site_made_again_with_a_new_id_is_a_difference(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    exported = _exported(cli, tmp_path, client)
    ids = site_ids(cli, client)
    assert cli("sites", "delete", ids["North Yard"], "--yes").exit_code == 0
    assert cli("sites", "create", "--client", client, "--name", "North Yard").exit_code == 0  # as an undo would
    new_id = site_ids(cli, client)["North Yard"]

    r = cli("sites", "diff", str(exported), "--client", client)
    assert r.exit_code == 1, r
    row = 1 + [line.split(",")[2] for line in exported.read_text(encoding="utf-8-sig").splitlines()[1:]].index(
        "North Yard")  # the export's order: same-second records by id
    assert f"only in the file: North Yard  (row {row})" in r.stdout, r.stdout
    assert f"only in the service: North Yard  ({new_id})" in r.stdout, r.stdout
    assert r.stdout.endswith("only in the file     1\nchanged              0\nonly in the service  1\n"
                             "the same             2\n"), r.stdout
