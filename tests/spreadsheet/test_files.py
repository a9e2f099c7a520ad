"""Files spreadsheets write, read as a person means them (issue 21 §2, §3): workbooks typed by hand,
headers as people type them, CR-only line ends, UTF-16 "Unicode Text", a BOM read in the wrong
charset, tab-separated files; and what `export -f FILE.xlsx` writes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter

from tests.bulk.helpers import exported_to, new_client
from tests.imports.helpers import sites_of
from wfctl.files import damage


def typed_workbook(path: Path, cid: str) -> Path:
    """A workbook as a person types it: numbers, booleans, text ids with leading zeros, a formula,
    headers in words, an empty row, a second sheet."""
    book = xlsxwriter.Workbook(str(path))
    other = book.add_worksheet("Notes")
    other.write_string(0, 0, "not the sites")
    sheet = book.add_worksheet("Sites")
    sheet.write_row(0, 0, ["Client Id", "Name", "Phone", "Assessment Required", "banned_workers", "Rates"])
    sheet.write_row(1, 0, [cid, "0427"])  # text, leading zero kept
    sheet.write_number(1, 2, 1614960000)  # a number in a text column: its digits
    sheet.write_boolean(1, 3, True)
    sheet.write_string(1, 4, "004512|W-7")
    sheet.write_string(1, 5, "Forklift=13.25")
    sheet.write_row(3, 0, [cid, "Depot 12"])  # row 3 (sheet row 3) is empty: left out
    sheet.write_number(3, 2, 4000123412341234)
    sheet.write_boolean(3, 3, False)
    sheet.write_number(3, 4, 123456)
    sheet.write_formula(3, 5, '="Picker="&(10+1)', None, "Picker=11")  # its computed value
    book.close()
    return path


def test_a_workbook_typed_by_hand_imports_exactly(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    # named .csv: a workbook is known by what it holds
    path = typed_workbook(tmp_path / "typed.csv", cid)
    r = cli("sites", "import", str(path), "--sheet", "sites")
    assert r.exit_code == 0, r
    sites = sites_of(cli, cid)
    assert sorted(sites) == ["0427", "Depot 12"]
    full = {name: json.loads(cli("sites", "get", site["id"], "-o", "json").stdout) for name, site in sites.items()}
    assert (full["0427"]["phone"], full["0427"]["assessmentRequired"], full["0427"]["bannedWorkers"],
            full["0427"]["rates"]) == ("1614960000", True, ["004512", "W-7"],
                                       [{"skill": "Forklift", "hourlyRate": 13.25}])
    assert (full["Depot 12"]["phone"], full["Depot 12"]["assessmentRequired"], full["Depot 12"]["bannedWorkers"],
            full["Depot 12"]["rates"]) == ("4000123412341230", False, ["123456"],
                                           [{"skill": "Picker", "hourlyRate": 11}])

    r = cli("sites", "import", str(path), "--sheet", "9")
    assert (r.exit_code, r.stderr) == (2, f"error: {path}: no sheet '9'; the sheets are 'Notes', 'Sites' "
                                          "(--sheet NAME, or its number from 1)\n")
    r = cli("sites", "import", str(path), "--dry-run")  # the first sheet: its header is not the format's
    assert r.exit_code == 2 and "invalid: line 1, column not the sites: unknown column" in r.stderr, r


def test_a_workbook_row_error_names_the_sheet_row(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    book = xlsxwriter.Workbook(str(tmp_path / "bad.xlsx"))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["name", "assessmentRequired"])
    sheet.write_row(3, 0, ["A", "perhaps"])
    book.close()
    r = cli("sites", "import", str(tmp_path / "bad.xlsx"), "--client", cid)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == ("invalid: row 1 (line 4), column assessmentRequired: 'perhaps' is not a "
                                        "boolean (use true/false, yes/no or 1/0)")


def test_export_writes_a_workbook_of_text(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    source = tmp_path / "in.csv"
    source.write_text("name,phone,assessmentRequired,bannedWorkers\n0427,01614960000,true,004512\n"
                      "=cmd,02079460000,false,\n", encoding="utf-8")
    assert cli("sites", "import", str(source), "--client", cid).exit_code == 0
    path = exported_to(cli, cid, tmp_path / "out.xlsx")
    with zipfile.ZipFile(path) as archive:
        sheet = archive.read("xl/worksheets/sheet1.xml").decode()
        styles = archive.read("xl/styles.xml").decode()
    assert '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' in sheet
    import re

    width = len(re.search(r'<row r="1"[^>]*>(.*?)</row>', sheet).group(1).split("</c>")) - 1  # type: ignore[union-attr]
    assert f'<autoFilter ref="A1:{chr(64 + width)}3"/>' in sheet
    assert "<t>01614960000</t>" in sheet and "<t>0427</t>" in sheet and "<t>004512</t>" in sheet
    assert "<t>=cmd</t>" in sheet  # a text cell runs no formula: no protective `'` (issue 33 §4)
    assert re.search(r'<c r="[A-Z][23]" t="b"[^>]*><v>1</v>', sheet)  # a boolean (rows in createdOn, then id, order)
    assert 'formatCode="@"' in styles  # text cells formatted as text
    assert "<cols>" in sheet  # widths


@pytest.mark.parametrize(("name", "data", "rows"), [
    ("mac.csv", b"Name,Phone\rA,01\rB,02\r", [("A", "01"), ("B", "02")]),
    ("unicode.txt", "Name\tPhone\r\nMüller\t01\r\n".encode("utf-16"), [("Müller", "01")]),
    ("headers.csv", b"NAME,Banned Workers,PHONE\nA,W-1,01\n", [("A", "01")]),
])
def test_files_spreadsheets_write(logged_in: Any, tmp_path: Path, name: str, data: bytes,
                                  rows: list[tuple[str, str]]) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / name
    path.write_bytes(data)
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 0, r
    sites = sites_of(cli, cid)
    assert sorted((n, s.get("phone")) for n, s in sites.items()) == rows


def test_tab_separated_gets_a_delimiter_hint_and_a_misread_bom_is_named(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text("name\tphone\nA\t01\n", encoding="utf-8")
    r = cli("sites", "import", str(tabbed), "--client", cid)
    assert (r.exit_code, r.stderr) == (2, f"error: {tabbed}: line 1 is separated by tabs, not ',' or ';': run again "
                                          "with --delimiter $'\\t' (or save the file as CSV UTF-8)\n")
    assert cli("sites", "import", str(tabbed), "--client", cid, "--delimiter", "\t").exit_code == 0

    misread = tmp_path / "misread.csv"
    misread.write_text("ï»¿Name,Banned_Workers\nB,1\n", encoding="utf-8")
    r = cli("sites", "import", str(misread), "--client", cid)
    assert r.exit_code == 0, r
    assert r.stderr.startswith(f"{misread}: the file starts with 'ï»¿', a UTF-8 byte order mark that a "
                               "spreadsheet read as Windows-1252 and saved again;")
    assert sorted(sites_of(cli, cid)) == ["A", "B"]


@pytest.mark.parametrize(("old", "new", "reason"), [
    ("01614960000", "1614960000", damage.NUMBER), ("+441614960000", "441614960000", damage.NUMBER),
    ("004512", "4512", damage.NUMBER), ("4000123412341234", "4000123412341230", damage.NUMBER),
    ("1234567890123456789", "1.23456789012346E+018", damage.NUMBER),
    ("1234567890123456789", "1.23457E+18", damage.NUMBER),
    ("Müller", "MÃ¼ller", damage.MOJIBAKE), ("東京", "æ±äº¬", damage.MOJIBAKE), ("Seán", "SeÃ¡n", damage.MOJIBAKE),
    (["004512", "W-1"], ["4512", "W-1"], damage.NUMBER),
    ("0427", "428", None), ("123", "1230", None), ("4000123412341234", "4000123412341200", None),
    (["004512", "W-1"], ["4512", "W-2"], None), ("Muller", "Müller", None), ("1234567890123456789", "1.3E+18", None),
])
def test_what_a_spreadsheet_does_is_told_from_an_edit(old: Any, new: Any, reason: str | None) -> None:
    assert damage.explain(old, new) == reason


@pytest.mark.parametrize(("name", "text", "said"), [
    ("sites.json", '[\n  {"name": "A", "phone": "01"}\n]\n', "JSON"),
    ("sites.jsonl", '{"name": "A"}\n{"name": "B"}\n', "JSON Lines"),
    ("site.json", '\ufeff{"name": "A"}', "JSON"),
])
def test_a_json_file_is_named_with_what_takes_json(logged_in: Any, tmp_path: Path, name: str, text: str,
                                                   said: str) -> None:
    """Issue 49: a JSON or JSONL file given to import or diff said `unknown column` of its first line."""
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    for verb in ("import", "diff"):
        r = cli("sites", verb, str(path), "--client", cid)
        assert (r.exit_code, r.stdout) == (2, ""), r
        assert r.stderr == (f"error: {path}: this is {said}, not CSV: import and diff read CSV or an .xlsx workbook "
                            "(`wfctl help csv`; `wfctl sites export` writes one); `wfctl sites create --from-file` "
                            "takes one record as a JSON object\n"), r
    assert sites_of(cli, cid) == {}
    r = cli("clients", "import", "-", "--branch", "Manchester Central", input=text)
    assert r.exit_code == 2 and "`wfctl clients create --from-file`" in r.stderr, r
