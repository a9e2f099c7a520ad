"""What a spreadsheet makes of text it reads as a value, told apart from an edit (issue 33 §1), one pair
at a time: the pairs measured with Gnumeric and LibreOffice Calc in English, German and French locales
(tests/spreadsheet/test_conversions.py drives the programs themselves), and edits a person makes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from wfctl.files import createdamage as suspects
from wfctl.files import damage
from wfctl.text.changes import lines

NUMBER = "looks like a spreadsheet turned this text into a number"
DATE = "looks like a spreadsheet turned this text into a date"
TIME = "looks like a spreadsheet turned this text into a time"
BOOLEAN = "looks like a spreadsheet turned this text into a boolean"
CHARSET = "looks like a spreadsheet saved this text as Windows-1252, which has no such letters (a ? for each)"


@pytest.mark.parametrize(("old", "new", "why"), [
    # Gnumeric (ssconvert), English
    ("1E3", "1000", NUMBER), ("13.50", "13.5", NUMBER), ("2024-03-01", "2024/03/01", DATE),
    ("1/2", "2026/01/02", DATE), ("Mar 1", "2026/03/01", DATE), ("50%", "0.5", NUMBER), ("(123)", "-123", NUMBER),
    ("12:30", "12:30:00", TIME), ("true", "TRUE", BOOLEAN), ("3:05 PM", "15:05:00", TIME),
    ("1,500", "1500", NUMBER), ("5 €", "5", NUMBER),
    # LibreOffice Calc, en-US and en-GB
    ("1E3", "1.00E+03", NUMBER), ("1/2", "01/02/26", DATE), ("Mar 1", "03/01/26", DATE), ("Mar 1", "01/03/01", DATE),
    ("12:30", "12:30:00 PM", TIME), ("50%", "50.00%", NUMBER), ("$5", "$5.00", NUMBER), ("£13.50", "13.5", NUMBER),
    ("2024-03-01", "01/03/2024", DATE), ("1/3", "01/03/26", DATE),
    # German and French
    ("1E3", "1,00E+03", NUMBER), ("1,500", "1,5", NUMBER), ("13,50 €", "13,5", NUMBER), ("€13,50", "13,5", NUMBER),
    ("50%", "50,00 %", NUMBER), ("1,5", "1.5", NUMBER), ("1.5", "1,5", NUMBER), ("false", "FALSCH", BOOLEAN),
    ("true", "VRAI", BOOLEAN), ("12 345", "12345", NUMBER), ("1. März 2024", "01.03.24", DATE),
    # the four known ones
    ("0999", "999", NUMBER), ("01615550000", "1615550000", NUMBER), ("4000123412341234", "4000123412341230", NUMBER),
    ("1234567890123456789", "1.23456789012346E+018", NUMBER),
    # Windows-1252 "CSV": a letter it has none for is a `?`
    ("東京 Warehouse", "?? Warehouse", CHARSET), ("Gdańsk", "Gda?sk", CHARSET), ("Łódź 🚚", "?ód? ??", CHARSET),
    ("Gdańsk?", "Gda?sk?", CHARSET),
])
def test_a_spreadsheets_conversion_is_named(old: str, new: str, why: str) -> None:
    assert damage.explain(old, new) == why
    assert damage.explain([old, "W-1"], [new, "W-1"]) == why  # a list cell, item by item


@pytest.mark.parametrize(("old", "new"), [
    # a person putting back what a spreadsheet took, or retyping a value: not forms a spreadsheet writes
    ("123", "0123"), ("TRUE", "true"), ("13.5", "13.50"), ("1615550000", "01615550000"),
    # real edits
    ("2024-03-01", "2024-03-02"), ("12", "13"), ("0161 496 0000", "01614960000"), ("+44 20 7946 0000", "442079460000"),
    ("North Yard", "North"), ("Unit 4", "4"), ("a@b.test", "A@B.TEST"), ("W-1", "W-2"), ("1-2", "2026/01/02"),
    ("Gdańsk", "Gdansk"), ("Gdańsk?", "Gdańsk??"), ("Is it?", "Is it??"), ("Dock 4", "?"),
    ("12:30", "12:31:00"), ("true", "FALSE"), ("50%", "0.05"),
])
def test_an_edit_is_not_named(old: str, new: str) -> None:
    assert damage.explain(old, new) is None


def test_a_create_beside_its_original_names_both_as_they_are() -> None:
    """Quoted as written, not escaped (issue 33 §4: `'æ\\uf19d±äº¬ Warehouse'`)."""
    review = damage.Review()
    review.create(3, "æ\uf19d±äº¬ Warehouse", "c1")
    review.create(4, "2026/03/01", "c1")
    existing = {("c1", "東京 warehouse"): {"name": "東京 Warehouse"}, ("c1", "mar 1"): {"name": "Mar 1"}}
    assert [str(f) for f in review.findings(existing)] == [
        "row 3: creates 'æ\uf19d±äº¬ Warehouse' beside the existing '東京 Warehouse': it looks like a spreadsheet "
        "read this UTF-8 text as Windows-1252",
        f"row 4: creates '2026/03/01' beside the existing 'Mar 1': it {DATE}"]


def planned(row: int, body: dict[str, str], existing: bool = False) -> SimpleNamespace:
    return SimpleNamespace(row=row, body=body, existing={"id": "x"} if existing else None)


def find(rows: list[SimpleNamespace], records: list[dict[str, str]]) -> list[suspects.Suspect]:
    """As the plan asks (bulkrun.py): its creates, then every row's body and the records read."""
    creates = [(p.row, p.body) for p in rows if p.existing is None]
    return suspects.find(creates, lambda: [*(p.body for p in rows), *records])


def test_new_rows_whose_cells_look_converted_are_suspects() -> None:
    rows = [planned(1, {"name": "A", "phone": "01615550001", "address": "1 Quay St"}, existing=True),
            planned(2, {"name": "B", "phone": "01615550002", "address": "2 Quay St"}),
            planned(3, {"name": "C", "phone": "1615550000", "address": "01/03/26"}),
            planned(4, {"name": "D", "phone": "999", "address": "12:30:00"})]
    records = [{"name": "Old", "phone": "0998", "address": "9 Dock Rd"}]
    assert [str(s) for s in find(rows, records)] == [
        "row 3 (C): phone: 1615550000 looks like a spreadsheet dropped its leading zero (other phone values start "
        "with 0: 01615550001); check the file (the row is sent as it is)",
        "row 3 (C): address: 01/03/26 looks like a date or time a spreadsheet wrote (the column's other values are "
        "text); check the file (the row is sent as it is)",
        "row 4 (D): phone: 999 looks like a spreadsheet dropped its leading zero (other phone values start with 0: "
        "0998); check the file (the row is sent as it is)",
        "row 4 (D): address: 12:30:00 looks like a date or time a spreadsheet wrote (the column's other values are "
        "text); check the file (the row is sent as it is)"]


def test_new_rows_like_their_column_are_not_suspects() -> None:
    rows = [planned(1, {"name": "A", "phone": "1615550001", "address": "2024/03/01"}),
            planned(2, {"name": "B", "phone": "1615550002", "address": "2024/03/02"}),
            planned(3, {"name": "C", "phone": "07", "address": "1 Quay St"})]
    assert find(rows, [{"phone": "01"}]) == []


def test_a_file_without_a_candidate_cell_is_read_once(tmp_path: Path) -> None:
    path = tmp_path / "sites.csv"
    path.write_text("name;phone;address\r\nSite 000001;'+44 1482 000001;1 Dock Road, Hull HU1 1AA\r\n", encoding="utf-8")
    assert not suspects.in_file(str(path))
    for cell in ("1615550000", '"01/03/26"', "12:30:00 PM", "999"):
        path.write_text(f"name,phone\nDock 4,{cell}\n", encoding="utf-8")
        assert suspects.in_file(str(path)), cell


def test_a_change_of_line_breaks_in_a_cell_is_shown() -> None:
    """LF -> CRLF inside a cell printed as `X -> X` (issue 33 §4)."""
    assert lines("site", {"address": ("1 Quay St\nLeeds", "1 Quay St\r\nLeeds")}) == [
        "address: 1 Quay St\\nLeeds -> 1 Quay St\\r\\nLeeds"]
    assert lines("site", {"address": ("1 Quay St\nLeeds", "2 Quay St\nLeeds")}) == [
        "address: 1 Quay St\nLeeds -> 2 Quay St\nLeeds"]
