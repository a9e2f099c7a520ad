"""`wfctl rates list -f FILE`: a workbook (ids and names as text, hourlyRate as a number shown with two
decimals, so a sheet sorts and sums it) or CSV, written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from tests.matrix.conftest import Deployment, Run

pytestmark = pytest.mark.parametrize("deployment", ["default"], indirect=True)

HEADER = ["clientId", "client", "siteId", "site", "skill", "hourlyRate"]


def test_a_workbook_holds_ids_as_text_and_rates_as_numbers(deployment: Deployment, run: Run, tmp_path: Path) -> None:
    client = deployment.client(name="=Pennine 0042")
    site = deployment.site(client["id"], name="0427", rates=[{"skill": "Picker Packer", "hourlyRate": 11.5},
                                                              {"skill": "Forklift Driver", "hourlyRate": 13.25}])
    path = tmp_path / "rates.xlsx"
    r = run("rates", "list", "--client", client["id"], "-f", str(path))
    assert (r.exit_code, r.stdout) == (0, ""), r
    sheet = openpyxl.load_workbook(path).active
    rows = [[(c.value, c.data_type, c.number_format) for c in row] for row in sheet.iter_rows()]
    assert [[v for v, _, _ in row] for row in rows] == [
        HEADER,
        [client["id"], "=Pennine 0042", site["id"], "0427", "Picker Packer", 11.5],  # a text cell: no formula
        [client["id"], "=Pennine 0042", site["id"], "0427", "Forklift Driver", 13.25],
    ]
    for row in rows[1:]:
        assert [(t, f) for _, t, f in row[:5]] == [("s", "@")] * 5  # text, formatted as text: "0427" stays
        assert row[5][1:] == ("n", "0.00")  # a number, shown 11.50

    csv_path = tmp_path / "rates.csv"
    r = run("rates", "list", "--client", client["id"], "--skill", "forklift driver", "-f", str(csv_path))
    assert r.exit_code == 0, r
    assert csv_path.read_bytes() == (
        "\ufeffclientId,client,siteId,site,skill,hourlyRate\r\n"
        f"{client['id']},'=Pennine 0042,{site['id']},0427,Forklift Driver,13.25\r\n").encode()


@pytest.mark.parametrize("name", ["rates.xlsx", "rates.csv"])
def test_a_failed_read_leaves_the_file_as_it_was(deployment: Deployment, run: Run, tmp_path: Path, name: str) -> None:
    client = deployment.client()
    for _ in range(40):  # rows are written before the unknown site fails the command
        deployment.site(client["id"])
    (tmp_path / "out").mkdir()
    path = tmp_path / "out" / name
    path.write_bytes(b"the file of yesterday")
    r = run("rates", "list", "--client", client["id"], "--site", "no-such-site", "-f", str(path))
    assert (r.exit_code, r.stderr) == (4, "error: no site 'no-such-site'\n"), r
    assert path.read_bytes() == b"the file of yesterday"
    assert sorted(p.name for p in path.parent.iterdir()) == [name]  # no partial file left beside it


def test_file_with_another_output_format_is_refused_before_reading(deployment: Deployment, run: Run,
                                                                    tmp_path: Path) -> None:
    r = run("rates", "list", "--all-clients", "-o", "json", "-f", str(tmp_path / "r.xlsx"))
    assert r.exit_code == 2, r  # -o json: the error is the JSON object
    assert json.loads(r.stderr)["error"]["title"] == ("--file writes CSV, or a workbook when its name ends in "
                                                      ".xlsx; leave out -o"), r
    r = run("rates", "list", "--all-clients", "-o", "table", "-f", str(tmp_path / "r.xlsx"))
    assert (r.exit_code, r.stderr) == (
        2, "error: --file writes CSV, or a workbook when its name ends in .xlsx; leave out -o\n"), r
    r = run("rates", "list", "--all-clients", "-f", str(tmp_path / "no" / "r.xlsx"))
    assert (r.exit_code, r.stderr) == (2, f"error: cannot write {tmp_path}/no/r.xlsx: no such directory "
                                          f"{tmp_path}/no\n"), r
