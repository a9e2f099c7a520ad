"""A change that is only a spreadsheet program's never goes to the service as the person's (issue 43): the
real programs (LibreOffice Calc headless, Gnumeric's `ssconvert`) open what wfctl exported and save it with
no edit; the import stops before sending (exit 2), naming row, field, before and after, and the one option
that sends it as it is (`--accept-row N`) does. Excel is not on this machine: its yearless date display is
written into a CSV as Excel saves it. A constant formula whose cached value openpyxl dropped is read as
its value."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import client_with_sites, exported_to
from tests.spreadsheet.calc import Calc
from tests.spreadsheet.test_conversions import DATE, NUMBER, said, ssconvert
from tests.spreadsheet.test_round_trip import held

pytestmark = pytest.mark.real_component

LINE_ENDS = "looks like a spreadsheet turned this text's line ends (CRLF) into LF"
ESCAPES = "looks like a spreadsheet wrote this text's workbook escapes (_xHHHH_) as text"
CUT = "looks like the program that saved the workbook cut this cell at 32,767 characters, the most a cell holds"
STOPPED = "error: {} would change records only the way a spreadsheet changes text; nothing was sent"


def seeded(cli: Any, tmp_path: Path, text: str) -> str:
    """A new client whose sites are the CSV `text` (bytes as given: CRLF inside a cell kept)."""
    return client_with_sites(cli, tmp_path, text.encode("utf-8"))


DOCKS = 'name,address,phone\r\nDock 4,"Unit 4\r\nDock Road",0161\r\nDock 5,2 Quay St,0162\r\n'


@pytest.mark.parametrize(("mode", "locale"), [("xlsx", "en_US.UTF-8"), ("csv-text", "de_DE.UTF-8"),
                                              ("csv-text", "fr_FR.UTF-8")])
def test_calc_making_crlf_lf_is_stopped_and_accept_row_sends_it(
        logged_in: Any, calc: Calc, tmp_path: Path, mode: str, locale: str) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, DOCKS)
    before = held(cli, cid)
    assert before["Dock 4"]["address"] == "Unit 4\r\nDock Road"
    source = exported_to(cli, cid, tmp_path / ("sites.xlsx" if mode == "xlsx" else "sites.csv"))
    (saved,) = calc.save_as([source], mode, tmp_path / "calc", locale=locale)

    args = ("sites", "import", str(saved), "--on-existing", "update")
    r = cli(*args)
    assert r.exit_code == 2, r
    row = 1 if list(before) == ["Dock 4", "Dock 5"] else 2
    assert r.stderr.splitlines()[0] == (
        f"spreadsheet: row {row} (Dock 4): address: Unit 4\\r\\nDock Road -> Unit 4\\nDock Road: {LINE_ENDS}")
    assert r.stderr.splitlines()[-1].startswith(STOPPED.format("1 row")), r.stderr
    assert held(cli, cid) == before  # a no-edit round trip changed nothing, line ends included

    plan = cli(*args, "--dry-run")
    assert plan.exit_code == 2, plan
    assert f"  address: Unit 4\\r\\nDock Road -> Unit 4\\nDock Road: {LINE_ENDS}\n" in plan.stdout, plan.stdout
    r = cli(*args, "--accept-row", str(row))
    assert r.exit_code == 0 and r.stderr.endswith(": updated 1, unchanged 1\n"), r
    assert held(cli, cid)["Dock 4"] == {**before["Dock 4"], "address": "Unit 4\nDock Road"}


def test_gnumeric_writing_escapes_into_a_csv_is_stopped(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, 'name,address\r\n_x0041_ Depot,"Unit 4\r\nDock Road"\r\nYard\tB,Gate\x0b2\r\n'
                                "Plain,1 Quay St\r\n")
    before = held(cli, cid)
    saved = ssconvert(exported_to(cli, cid, tmp_path / "sites.xlsx"), tmp_path / "gnumeric.csv")
    text = saved.read_text(encoding="utf-8")
    assert "_x005F_x0041_ Depot" in text and "_x000D_" in text and "Gate_x000B_2" in text  # measured: 1.12

    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 2, r
    assert said(r.stderr) == sorted([
        f"name: _x0041_ Depot -> _x005F_x0041_ Depot: {ESCAPES}",
        f"address: Unit 4 Dock Road -> Unit 4_x000D_ Dock Road: {ESCAPES}",  # one line: a break a space
        f"address: Gate\x0b2 -> Gate_x000B_2: {ESCAPES}".replace("\x0b", "\\x0b")]), r.stderr
    assert r.stderr.splitlines()[-1].startswith(STOPPED.format("2 rows")), r.stderr
    assert held(cli, cid) == before

    # without ids, the escaped name would be a second record beside the first: stopped the same way
    no_ids = tmp_path / "no-ids.csv"
    no_ids.write_text(text.replace(before["_x0041_ Depot"]["id"], ""), encoding="utf-8")
    r = cli("sites", "import", str(no_ids), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert f"creates '_x005F_x0041_ Depot' beside the existing '_x0041_ Depot': it {ESCAPES}" in r.stderr, r.stderr
    assert held(cli, cid) == before


def test_gnumeric_typing_a_csv_it_saves_as_a_workbook(logged_in: Any, tmp_path: Path) -> None:
    """`(123)` becomes a number in an accounting format (`$(123.00)`), stopped; `FALSE` a boolean, read as
    the spreadsheet shows it (`FALSE`), so no change at all."""
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,address\r\n(123),1 Quay St\r\nFALSE,2 Quay St\r\nDock,TRUE\r\n")
    before = held(cli, cid)
    saved = ssconvert(exported_to(cli, cid, tmp_path / "sites.csv"), tmp_path / "gnumeric.xlsx")
    sheet = zipfile.ZipFile(saved).read("xl/worksheets/sheet1.xml").decode()
    assert 't="b"' in sheet, sheet  # measured: Gnumeric 1.12 types FALSE and TRUE as booleans

    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 2, r
    assert said(r.stderr) == [f"name: (123) -> $(123.00): {NUMBER}"], r.stderr
    assert held(cli, cid) == before


def test_excel_showing_a_yearless_date_as_d_mmm_in_a_csv(logged_in: Any, tmp_path: Path) -> None:
    """Excel (en-US) reads `1/2`, `Mar 1` and `3-4` as dates of this year and shows them, and saves them in
    a CSV, as `2-Jan`, `1-Mar` and `4-Mar` (the file is written as Excel writes it: Excel is not here)."""
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,address\r\n1/2,1 Quay St\r\nMar 1,2 Quay St\r\nDock,3-4\r\n")
    before = held(cli, cid)
    ids = {name: site["id"] for name, site in before.items()}
    path = tmp_path / "excel.csv"
    path.write_bytes(f"id,name,address\r\n{ids['1/2']},2-Jan,1 Quay St\r\n{ids['Mar 1']},1-Mar,2 Quay St\r\n"
                     f"{ids['Dock']},Dock,4-Mar\r\n".encode())
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert said(r.stderr) == sorted([f"name: 1/2 -> 2-Jan: {DATE}", f"name: Mar 1 -> 1-Mar: {DATE}",
                                     f"address: 3-4 -> 4-Mar: {DATE}"]), r.stderr
    assert held(cli, cid) == before
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update", "--accept-spreadsheet-changes")
    assert r.exit_code == 0, r
    assert sorted(held(cli, cid)) == ["1-Mar", "2-Jan", "Dock"]


def test_calc_cutting_a_long_cell_in_a_workbook_is_stopped(logged_in: Any, calc: Calc, tmp_path: Path) -> None:
    """A CSV export's 63,000-character bannedWorkers cell, opened in Calc (text columns) and saved as a
    workbook: Calc cuts it at 32,767 characters (measured, 7.4), inside a worker's id."""
    cli = logged_in
    workers = [f"W{i:07d}" for i in range(7000)]
    cid = seeded(cli, tmp_path, "name,bannedWorkers\r\nDock 4," + "|".join(workers) + "\r\nDock 5,W1\r\n")
    before = held(cli, cid)
    (saved,) = calc.save_as([exported_to(cli, cid, tmp_path / "sites.csv")], "csv-text-xlsx", tmp_path / "calc")

    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 2, r
    assert said(r.stderr) == [
        f"bannedWorkers: a cell of 62,999 characters -> 32,767, ending '03636|W0003637|W0003638|W0003639|W000364': {CUT}"]
    assert r.stderr.splitlines()[-1].startswith(STOPPED.format("1 row")), r.stderr
    assert held(cli, cid) == before


def test_calc_cutting_a_long_cell_of_a_new_row_is_stopped_and_accept_sends_it(
        logged_in: Any, calc: Calc, tmp_path: Path) -> None:
    """A new row (a create: no value to compare with) whose 63,000-character bannedWorkers cell Calc cut at
    32,767 characters when it saved the CSV as a workbook: stopped as an update's cut is, and sent as it is
    only with --accept-spreadsheet-changes."""
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,bannedWorkers\r\nDock 5,W1\r\n")
    before = held(cli, cid)
    workers = [f"W{i:07d}" for i in range(7000)]
    path = tmp_path / "new.csv"
    path.write_bytes(("name,bannedWorkers\r\nDock 5,W1\r\nDock 9," + "|".join(workers) + "\r\n").encode())
    (saved,) = calc.save_as([path], "csv-text-xlsx", tmp_path / "calc")

    for dry, ends in (([], "nothing was sent"), (["--dry-run"], "a run would send nothing")):
        r = cli("sites", "import", str(saved), "--client", cid, *dry)
        assert r.exit_code == 2, r
        assert [line for line in r.stderr.splitlines() if line.startswith("spreadsheet: row ")] == [
            f"spreadsheet: row 2 (Dock 9): bannedWorkers: a new cell of 32,767 characters, ending "
            f"'03636|W0003637|W0003638|W0003639|W000364': {CUT}"], r.stderr
        assert r.stderr.splitlines()[-1].startswith(STOPPED.format("1 row").replace("nothing was sent", ends)), r
        assert held(cli, cid) == before  # nothing sent

    r = cli("sites", "import", str(saved), "--client", cid, "--accept-row", "2", "--dry-run")
    assert r.exit_code == 0, r  # the one row's option too
    r = cli("sites", "import", str(saved), "--client", cid, "--accept-spreadsheet-changes")
    assert r.exit_code == 0, r
    assert held(cli, cid)["Dock 9"]["bannedWorkers"] == [*workers[:3640], "W000364"]  # as the file holds it


def test_a_constant_formula_without_its_value_is_read_as_its_value(
        logged_in: Any, calc: Calc, tmp_path: Path) -> None:
    """Calc writes a boolean as the formula `=FALSE()`; a script's openpyxl keeps the formula and drops its
    value. The one address the script changed is the only change."""
    openpyxl = pytest.importorskip("openpyxl")
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,address,assessmentRequired\r\nDock 4,1 Quay St,false\r\n"
                                "Dock 5,2 Quay St,true\r\n")
    before = held(cli, cid)
    (saved,) = calc.save_as([exported_to(cli, cid, tmp_path / "sites.xlsx")], "xlsx", tmp_path / "calc")
    assert 'false">FALSE()</f>' in zipfile.ZipFile(saved).read("xl/worksheets/sheet1.xml").decode()  # measured: 7.4
    book = openpyxl.load_workbook(saved)
    sheet = book.active
    column = [cell.value for cell in sheet[1]].index("address") + 1
    for row in range(2, sheet.max_row + 1):
        if sheet.cell(row, column).value == "2 Quay St":
            sheet.cell(row, column).value = "2 Quay Street"
    book.save(saved)

    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": updated 1, unchanged 1\n"), r.stderr
    assert held(cli, cid) == {**before, "Dock 5": {**before["Dock 5"], "address": "2 Quay Street"}}
