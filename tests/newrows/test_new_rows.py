"""Rows a person adds to an exported file (issue 43, "Medium and low"), end to end against the sandbox: a
leading zero a spreadsheet dropped from a new row, a totals row, a column of their own, a formula typed
into a workbook's text cell, and every problem of a rates cell at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import client_with_sites, exported_to, new_client
from tests.imports.helpers import sites_of
from tests.spreadsheet.excel_parts import Cell, excel_book

SUSPECT_END = "; check the file (the row is sent as it is)"
NOTHING_SENT = ("error: 1 of 3 rows is invalid; nothing was sent (fix it in the file and run again, or use "
                "--skip-invalid to import the others)")


def seeded(cli: Any, tmp_path: Path, text: str) -> str:
    """A new client holding the sites of `text` (a CSV), imported."""
    return client_with_sites(cli, tmp_path, text)


def test_a_new_row_that_lost_its_leading_zeros_is_a_suspect(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,phone,bannedWorkers\nDock 1,01615550001,007780|007782\n")
    path = tmp_path / "sites.csv"  # the export with two rows typed in a spreadsheet that reads digits as numbers
    path.write_text("name,phone,bannedWorkers\nDock 1,01615550001,007780|007782\nDock 2,01615550002,007783\n"
                    "Dock 3,1615550000,7781\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run")
    assert r.exit_code == 0, r
    assert [line for line in r.stderr.splitlines() if line.startswith("suspect:")] == [
        "suspect: row 3 (Dock 3): phone: 1615550000 looks like a spreadsheet dropped its leading zero (other phone "
        "values start with 0: 01615550001)" + SUSPECT_END,
        "suspect: row 3 (Dock 3): bannedWorkers: 7781 looks like a spreadsheet dropped its leading zero (other "
        "bannedWorkers values start with 0: 007780)" + SUSPECT_END]

    # a column whose values have no leading zero: nothing to say
    path.write_text("name,phone,bannedWorkers\nDock 4,1615550004,7784\nDock 5,1615550005,7785|7786\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 0, r
    assert "suspect:" not in r.stderr
    assert sites_of(cli, cid)["Dock 5"]["phone"] == "1615550005"


@pytest.mark.parametrize(("text", "column", "label", "others"), [
    # LibreOffice's CSV of the sheet: the count's value, `8 sites`
    ("name,address\nDock 1,1 Quay St\nDock 2,2 Quay St\nTotal,8 sites\n", "name", "Total", "'8 sites'"),
    ("id,name,address\n,Dock 1,1 Quay St\n,Dock 2,2 Quay St\nTotal,,8 sites\n", "id", "Total", "'8 sites'"),
    ("name,address\nDock 1,1 Quay St\nDock 2,2 Quay St\nGRAND TOTAL:,\n", "name", "GRAND TOTAL:", ""),
])
def test_a_totals_row_is_refused_by_name(logged_in: Any, tmp_path: Path, text: str, column: str, label: str,
                                         others: str) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "sites.csv"
    path.write_text(text, encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 2, r
    shown = f" (its other cells: {others})" if others else ""
    assert r.stderr.splitlines() == [
        f"invalid: row 3 (line 4), column {column}: {label!r} makes this a totals row, not a site{shown}: remove "
        f"the row from the file (--skip-invalid imports the other rows); a site really named {label!r}: wfctl "
        "sites create", NOTHING_SENT]
    assert "delete" not in r.stderr
    assert sites_of(cli, cid) == {}

    r = cli("sites", "import", str(path), "--client", cid, "--skip-invalid")
    assert r.exit_code == 10, r
    assert sorted(sites_of(cli, cid)) == ["Dock 1", "Dock 2"]


def test_a_totals_row_of_a_workbook_is_refused(logged_in: Any, tmp_path: Path) -> None:
    """The row as Excel saves it: the label a string, the address the formula's computed value."""
    cli = logged_in
    cid = new_client(cli)
    book = excel_book(tmp_path / "sites.xlsx", [
        ["name", "address", "phone"],
        ["Dock 1", "1 Quay St", "0161"],
        ["Dock 2", "2 Quay St", "0162"],
        ["Total", Cell('8 sites', kind="str", formula='COUNTA(C2:C9)&" sites"'), None],
    ])
    r = cli("sites", "import", str(book), "--client", cid, "--dry-run")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == (
        "invalid: row 3 (line 4), column name: 'Total' makes this a totals row, not a site (its other cells: "
        "'8 sites'): remove the row from the file (--skip-invalid imports the other rows); a site really named "
        "'Total': wfctl sites create")
    assert "create Total" not in r.stdout


def test_a_site_named_total_is_a_site(logged_in: Any, tmp_path: Path) -> None:
    """A record of that name exists: its row is that record, not a totals row."""
    cli = logged_in
    r = cli("sites", "create", "--client", (cid := new_client(cli)), "--name", "Total", "--address", "Old Rd")
    assert r.exit_code == 0, r
    path = tmp_path / "sites.csv"
    path.write_text("name,address\nTotal,New Rd\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert sites_of(cli, cid)["Total"]["address"] == "New Rd"


def test_ignore_columns_keeps_a_persons_own_column(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address,Notes,Checked By\nDock 1,1 Quay St,call first,Ann\nDock 2,2 Quay St,,\n",
                    encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid)  # the default stays strict
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0].startswith("invalid: line 1, column Notes: unknown column; ")
    assert sites_of(cli, cid) == {}

    r = cli("sites", "import", str(path), "--client", cid, "--ignore-columns", "notes, checked_by")
    assert r.exit_code == 0, r
    assert {name: site["address"] for name, site in sites_of(cli, cid).items()} == {
        "Dock 1": "1 Quay St", "Dock 2": "2 Quay St"}

    # diff reads the same file the same way: nothing differs
    r = cli("sites", "diff", str(path), "--client", cid, "--ignore-columns", "Notes,Checked By")
    assert r.exit_code == 0, r
    r = cli("sites", "diff", str(path), "--client", cid, "--ignore-columns", "Notes")
    assert r.exit_code == 2, r
    assert "column Checked By: unknown column" in r.stderr

    # a column of the format is not the person's own: leaving it out of the file is the way
    r = cli("sites", "import", str(path), "--client", cid, "--ignore-columns", "Notes,Checked By,address")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == (
        "invalid: line 1, column address: --ignore-columns names a column of the format; leave the column out "
        "of the file instead (a column left out leaves its field as it is)")


def test_a_formula_typed_into_a_workbooks_text_cell_is_refused(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,address\nDock 1,'=SUM(A1)\nDock 2,2 Quay St\n")
    book = exported_to(cli, cid, tmp_path / "sites.xlsx")
    import openpyxl

    sheet_book = openpyxl.load_workbook(book)
    sheet = sheet_book.active
    assert sheet is not None
    rows = {row[2].value: row for row in sheet.iter_rows(min_row=2)}
    # typed into the text-formatted cells (`@`): a spreadsheet keeps what is typed as text
    rows["Dock 2"][3].value = '=C3&" Dock Rd"'
    sheet.append([None, cid, "Dock 3", '=B3&" Quay St"'])
    for row in sheet.iter_rows(min_row=2):
        if isinstance(row[3].value, str) and row[3].value.startswith("="):
            row[3].data_type = "s"
    sheet_book.save(book)
    line = rows["Dock 2"][3].row  # the export's order: created, then id
    r = cli("sites", "import", str(book), "--on-existing", "update")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines() == [
        f"invalid: row {line - 1} (line {line}), column address: a formula typed into a text cell, '=C3&\" Dock Rd\"': the "
        "workbook keeps it as its text and never runs it; type the value itself (a text that starts with '=' as "
        "it is: '= in a CSV file)",
        "invalid: row 3 (line 4), column address: a formula typed into a text cell, '=B3&\" Quay St\"': the "
        "workbook keeps it as its text and never runs it; type the value itself (a text that starts with '=' as "
        "it is: '= in a CSV file)",
        "error: 2 of 3 rows are invalid; nothing was sent (fix them in the file and run again, or use "
        "--skip-invalid to import the others)"]
    # the record that holds `=SUM(A1)` already comes back unchanged; nothing was sent
    assert {name: site["address"] for name, site in sites_of(cli, cid).items()} == {
        "Dock 1": "=SUM(A1)", "Dock 2": "2 Quay St"}


def test_every_problem_of_a_rates_cell_is_said(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,rates\nDock 1,Driver=1.234|Cleaner=-5|Picker=11|Picker=12|=9|Loader\n", encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", cid, "-o", "json")
    assert r.exit_code == 2, r
    error = json.loads(r.stderr)["error"]
    assert [(e["row"], e["column"], e["message"]) for e in error["errors"]] == [(1, "rates", message) for message in [
        "rate of 'Cleaner': -5 is negative; a rate must be 0 or more",
        "'Loader' is not SKILL=RATE",
        "rate of 'Driver': 1.234 has more than 2 decimals",
        "skill 'Picker' is given twice",
        "'=9' has no skill (SKILL=RATE)"]], error
