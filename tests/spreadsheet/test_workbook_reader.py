"""The workbook reader's two paths give the same CSV (issue 21 §2): plain sheet XML is read by regular
expressions, anything else by the XML parser; both give every cell as a person sees it, with the sheet's
row numbers."""

from __future__ import annotations

import datetime
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter

from tests.spreadsheet.calc import Calc
from wfctl.files import sheetxml, workbook
from wfctl.files.errors import FileError

TEXTS = ["0427", "a & b <c> \"q\" 'x'", "two\nlines", "Müller 東京 😀", " spaced ", "=1+2", "'+44 1", "tab\there"]


def written_workbook(path: Path, *, constant_memory: bool) -> Path:
    """Shared strings (or inline strings), numbers, booleans, dates, a formula, empty rows, gaps, a second
    sheet."""
    book = xlsxwriter.Workbook(str(path), {"constant_memory": constant_memory})
    sheet = book.add_worksheet("Sites")
    dates = book.add_format({"num_format": "yyyy-mm-dd"})
    sheet.write_row(0, 0, ["name", "phone", "assessmentRequired", "bannedWorkers", "address"])
    for r, text in enumerate(TEXTS, start=2):  # row 2 (sheet row 2) empty
        sheet.write_string(r, 0, text)
        sheet.write_number(r, 1, 4000123412341234 + r)
        sheet.write_boolean(r, 2, r % 2 == 0)
        sheet.write_formula(r, 3, f'="W-"&{r}', None, f"W-{r}")
        if r % 3:
            sheet.write_datetime(r, 4, datetime.datetime(2024, 1, r), dates)  # else a gap: no cell
    sheet.write_number(20, 1, 13.25)
    sheet.write_number(21, 6, 1)  # a trailing column
    book.add_worksheet("Other").write_string(0, 0, "x")
    book.close()
    return path


def read(path: Path, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[int]]:
    monkeypatch.setattr(workbook, "FAST", fast)
    spool, lines, _ = workbook.sheet_to_csv(str(path), path.name, None)
    try:
        return Path(spool).read_text(encoding="utf-8"), list(lines)
    finally:
        os.unlink(spool)


def parser_unused(*args: Any) -> Any:
    raise AssertionError("the parser read a plain sheet")


@pytest.mark.parametrize("constant_memory", [False, True], ids=["shared-strings", "inline-strings"])
def test_plain_sheets_are_read_fast_as_the_parser_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, constant_memory: bool) -> None:
    path = written_workbook(tmp_path / "book.xlsx", constant_memory=constant_memory)
    expected = read(path, fast=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert read(path, fast=True, monkeypatch=monkeypatch) == expected
    text, lines = expected
    assert text.splitlines()[:3] == ["name,phone,assessmentRequired,bannedWorkers,address",
                                     "0427,4000123412341240,TRUE,W-2,2024-01-02",
                                     '"a & b <c> ""q"" \'x\'",4000123412341240,FALSE,W-3']
    assert '"two\nlines",4000123412341240,TRUE,W-4,2024-01-04\nMüller 東京 😀,' in text
    assert text.endswith("\n,13.25\n,,,,,,1\n")
    assert lines == [0, 1, 3, 4, 5, 5, 6, 7, 8, 9, 10, 21, 22]  # each line's sheet row


def test_a_sheet_libreoffice_saved_is_read_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = written_workbook(tmp_path / "book.xlsx", constant_memory=False)
    (saved,) = Calc(tmp_path / "profile").save_as([path], "xlsx", tmp_path / "calc")
    expected = read(saved, fast=False, monkeypatch=monkeypatch)
    assert expected[0] == read(path, fast=False, monkeypatch=monkeypatch)[0]
    monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert read(saved, fast=True, monkeypatch=monkeypatch) == expected


SHEET = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
         '<sheetData>{rows}</sheetData></worksheet>')
PLAIN_ROWS = ('<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>phone</t>'
              '</is></c></row><row r="3"><c r="A3" t="inlineStr"><is><t>A &amp; B&#10;C</t></is></c><c r="B3">'
              '<v>1614960000</v></c></row>')


def sheet_book(path: Path, sheet: str, encoding: str = "utf-8") -> Path:
    """A workbook of one sheet whose XML is `sheet`."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("xl/workbook.xml", '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/'
                         'main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                         '<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>')
        archive.writestr("xl/_rels/workbook.xml.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/'
                         'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
                         'org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
                         '</Relationships>')
        archive.writestr("xl/worksheets/sheet1.xml", sheet.encode(encoding))
    return path


@pytest.mark.parametrize("sheet", [
    SHEET.format(rows=PLAIN_ROWS.replace('<row r="3">', "<row>")),  # rows without numbers
    SHEET.format(rows=PLAIN_ROWS.replace("<c ", "\n  <c ").replace("</row>", "\n</row>")),  # indented
    SHEET.format(rows=PLAIN_ROWS.replace('r="B3"', 'r="B3" s="0" t="n"').replace("<v>1", '<f>1+0</f><v>1')),
    SHEET.format(rows=PLAIN_ROWS + '<row r="4" spans="1:2"/>'),
])
def test_other_plain_forms_are_read_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sheet: str) -> None:
    path = sheet_book(tmp_path / "s.xlsx", sheet)
    expected = read(path, fast=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert read(path, fast=True, monkeypatch=monkeypatch) == expected
    assert expected[0] == 'name,phone\n"A & B\nC",1614960000\n'


NOT_PLAIN = {
    "prefixed": SHEET.replace("<worksheet xmlns=", "<x:worksheet xmlns:x=").replace("</worksheet>", "</x:worksheet>")
    .replace("<sheetData>", "<x:sheetData>").replace("</sheetData>", "</x:sheetData>")
    .format(rows=PLAIN_ROWS.replace("<row", "<x:row").replace("</row", "</x:row").replace("<c ", "<x:c ")
            .replace("</c>", "</x:c>").replace("<is>", "<x:is>").replace("</is>", "</x:is>")
            .replace("<t>", "<x:t>").replace("</t>", "</x:t>").replace("<v>", "<x:v>").replace("</v>", "</x:v>")),
    "cdata": SHEET.format(rows=PLAIN_ROWS.replace("<t>name</t>", "<t><![CDATA[name]]></t>")),
    "comment": SHEET.format(rows=PLAIN_ROWS.replace("</row>", "<!-- x --></row>", 1)),
    "carriage return": SHEET.format(rows=PLAIN_ROWS.replace("&#10;", "\r\n")),
    "single quotes": SHEET.format(rows=PLAIN_ROWS.replace('r="B3"', "r='B3'")),
    "rich text": SHEET.format(rows=PLAIN_ROWS.replace("<is><t>name</t></is>", "<is><r><t>na</t></r><r><t>me</t></r>"
                                                      "</is>")),
    "attributes in another order": SHEET.format(rows=PLAIN_ROWS.replace('<c r="B1" t="inlineStr">',
                                                                        '<c t="inlineStr" r="B1">')),
    "an entity of the DTD": SHEET.replace("<worksheet", '<!DOCTYPE worksheet [<!ENTITY e "name">]><worksheet')
    .format(rows=PLAIN_ROWS.replace("<t>name</t>", "<t>&e;</t>")),
    "utf-16": SHEET.replace("UTF-8", "UTF-16").format(rows=PLAIN_ROWS),
}


@pytest.mark.parametrize("name", sorted(NOT_PLAIN))
def test_sheets_the_fast_path_does_not_know_are_read_by_the_parser(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    sheet = NOT_PLAIN[name]
    path = sheet_book(tmp_path / "s.xlsx", sheet, "utf-16" if name == "utf-16" else "utf-8")
    expected = 'name,phone\n"A & B\nC",1614960000\n'
    assert read(path, fast=False, monkeypatch=monkeypatch)[0] == expected
    assert read(path, fast=True, monkeypatch=monkeypatch) == read(path, fast=False, monkeypatch=monkeypatch)


def test_a_sheet_the_fast_path_leaves_after_some_rows_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = "".join(f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>S{n}</t></is></c></row>' for n in range(1, 5000))
    path = sheet_book(tmp_path / "s.xlsx", SHEET.format(rows=rows + '<row r="5000"><c r="A5000" t="inlineStr"><is>'
                                                        "<t><![CDATA[last]]></t></is></c></row>"))
    monkeypatch.setattr(workbook, "_CHUNK", 4096)  # many reads before the row it does not know
    text, lines = read(path, fast=True, monkeypatch=monkeypatch)
    assert (text, lines) == read(path, fast=False, monkeypatch=monkeypatch)
    assert text.splitlines()[0] == "S1" and text.splitlines()[-1] == "last" and len(lines) == 5001


def test_a_broken_sheet_is_named_by_either_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = sheet_book(tmp_path / "s.xlsx", SHEET.format(rows=PLAIN_ROWS.replace("&amp;", "&nope;")))
    for fast in (True, False):
        with pytest.raises(FileError, match=r"^s.xlsx: cannot read the workbook: undefined entity"):
            read(path, fast=fast, monkeypatch=monkeypatch)


def with_strings(path: Path, items: str) -> Path:
    """A workbook of one column whose cells are shared strings 0 to 3, their `<si>`s as `items` has them."""
    from tests.spreadsheet.excel_parts import excel_book

    excel_book(path, [["name"], ["0"], ["1"], ["2"], ["3"]])
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    parts["xl/sharedStrings.xml"] = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<sst xmlns="http://'
                                     'schemas.openxmlformats.org/spreadsheetml/2006/main" count="5" uniqueCount="5">'
                                     f"<si><t>name</t></si>{items}</sst>").encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


PLAIN_SI = ('<si><t>A &amp; B</t></si><si><t xml:space="preserve"> x_x000B_y </t></si><si><t>&#233;_x005F_x0041_</t>'
            "</si>\n<si><t>01614960000</t></si>")
SHARED = 'name\nA & B\n x\x0by \né_x0041_\n01614960000\n'


@pytest.mark.parametrize(("items", "plain"), [
    (PLAIN_SI, True),
    (PLAIN_SI.replace("<si><t>A &amp; B</t></si>", "<si><r><t>A &amp;</t></r><r><rPr><b/></rPr><t> B</t></r></si>"),
     False),  # rich text
    (PLAIN_SI.replace("<t>01614960000</t>", "<t>01614960000</t><rPh sb=\"0\" eb=\"1\"><t>x</t></rPh>"), False),
])
def test_shared_strings_are_read_fast_as_the_parser_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: str, plain: bool) -> None:
    path = with_strings(tmp_path / "s.xlsx", items)
    expected = read(path, fast=False, monkeypatch=monkeypatch)
    assert expected[0] == SHARED
    parsed: list[bool] = []
    real = workbook.SharedStrings._read_plain

    def fast_read(self: Any, f: Any) -> None:
        try:
            real(self, f)
        except Exception:
            parsed.append(True)
            raise

    monkeypatch.setattr(workbook.SharedStrings, "_read_plain", fast_read)
    assert read(path, fast=True, monkeypatch=monkeypatch) == expected
    assert parsed == ([] if plain else [True])
    monkeypatch.setattr(sheetxml, "CHUNK", 16)  # a string's XML across chunks
    assert read(path, fast=True, monkeypatch=monkeypatch) == expected
    assert parsed == ([] if plain else [True, True])
