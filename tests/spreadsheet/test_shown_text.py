"""Workbooks are read as the sheet shows them (issue 33 §2): number formats (a phone's leading zeros,
currency, times), the 1904 date system, `_xHHHH_` escapes, error values and formulas with no value;
and a value too long for a workbook cell never leaves `export -f FILE.xlsx` cut.

Workbooks are written as Excel writes them (tests/spreadsheet/excel_parts.py), and the text read is
checked against what LibreOffice and Gnumeric show for the same cells."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import exported_to, new_client
from tests.conftest import require_component
from tests.imports.helpers import sites_of
from tests.spreadsheet.calc import Calc
from tests.spreadsheet.excel_parts import Cell, excel_book
from wfctl.files import workbook

PHONE, POUNDS, DATE, TIME, GROUPED, PERCENT, SPACED, STAMP = range(1, 9)  # the styles below
FORMATS = {164: "00000000000", 165: "[$£-809]#,##0.00", 166: "yyyy-mm-dd", 167: "00000 000000",
           168: "yyyy-mm-dd hh:mm"}
STYLES = [164, 165, 166, 20, 4, 10, 167, 168]  # numFmtId of each style: 20 is h:mm, 4 #,##0.00, 10 0.00%


def read(path: Path, *, fast: bool = True, monkeypatch: pytest.MonkeyPatch | None = None) -> str:
    if monkeypatch is not None:
        monkeypatch.setattr(workbook, "FAST", fast)
    spool, _, _ = workbook.sheet_to_csv(str(path), path.name, None)
    try:
        return Path(spool).read_text(encoding="utf-8")
    finally:
        os.unlink(spool)


def parser_unused(*args: Any) -> Any:
    raise AssertionError("the parser read a plain sheet")


def sites_book(path: Path, *, date1904: bool) -> Path:
    """Sites as an ops engineer's sheet holds them: a phone pasted as a number under `00000000000`,
    a date, a time, an amount in pounds, a number with a thousands separator."""
    march_1 = "43890" if date1904 else "45352"  # 2024-03-01 on either system
    return excel_book(path, [
        ["name", "phone", "address", "email", "bannedWorkers"],
        ["Dock 1", Cell("1614960123", PHONE), Cell(march_1, DATE), "d1@x.test", Cell("4512", PHONE)],
        ["Dock 2", Cell("1614960124", SPACED), Cell("0.520833333333333", TIME), "d2@x.test", None],
        ["Dock 3", "0161 496 0125", Cell("13.5", POUNDS), "d3@x.test", Cell("1234.5", GROUPED)],
        ["Dock 4", None, Cell(f"{march_1}.75", STAMP), None, Cell("0.125", PERCENT)],
    ], formats=FORMATS, styles=STYLES, date1904=date1904)


SHOWN = ("name,phone,address,email,bannedWorkers\n"
         "Dock 1,01614960123,2024-03-01,d1@x.test,00000004512\n"
         "Dock 2,01614 960124,12:30,d2@x.test\n"
         "Dock 3,0161 496 0125,£13.50,d3@x.test,\"1,234.50\"\n"
         "Dock 4,,2024-03-01 18:00,,12.50%\n")


@pytest.mark.parametrize("date1904", [False, True], ids=["1900", "1904"])
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "parser"])
def test_numbers_are_read_as_their_format_shows_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, date1904: bool, fast: bool) -> None:
    path = sites_book(tmp_path / "sites.xlsx", date1904=date1904)
    if fast:
        monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert read(path, fast=fast, monkeypatch=monkeypatch) == SHOWN


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "parser"])
def test_escapes_errors_and_formulas_without_a_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool) -> None:
    path = excel_book(tmp_path / "book.xlsx", [
        ["name", "phone", "address"],
        ["Line one_x000B_Line two", "x_x005F_x000B_y", Cell("a_x0009_b", kind="str", formula='"a"&CHAR(9)&"b"')],
        ["E", Cell("#N/A", kind="e"), Cell("#DIV/0!", kind="e", formula="1/0")],
        ["F", Cell(formula="A2*2"), Cell(formula='IF(A1="","x","")', kind="str", value="")],
    ])
    if fast:
        monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert list(csv.reader(io.StringIO(read(path, fast=fast, monkeypatch=monkeypatch)))) == [
        ["name", "phone", "address"],
        ["Line one\x0bLine two", "x_x000B_y", "a\tb"],
        ["E", "#N/A", "#DIV/0!"],
        ["F", "#\ufdd0A2*2", ""],  # csvformat.NO_VALUE, then the formula: an error of its row
    ]



@pytest.mark.parametrize("fast", [True, False], ids=["fast", "parser"])
def test_a_constant_formula_without_a_value_is_its_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool) -> None:
    """Issue 43: `=FALSE()` as LibreOffice writes a boolean, once openpyxl dropped its value; a number (in
    its cell's format) and a string literal likewise. Any other formula with no value stays an error."""
    path = excel_book(tmp_path / "book.xlsx", [
        ["name", "phone", "address", "assessmentRequired"],
        ["A", Cell(formula="12", style=PHONE), Cell(formula='"1 ""Quay"" St"'), Cell(formula="FALSE()")],
        ["B", Cell(formula="-1.5E2"), Cell(formula="\"W&1\""), Cell(formula="true")],
        ["C", Cell(formula="1+2"), Cell(formula='"a"&"b"'), Cell(formula="TRUE()", kind="b")],
    ], formats=FORMATS, styles=STYLES)
    if fast:
        monkeypatch.setattr(workbook, "_parsed_rows", parser_unused)
    assert list(csv.reader(io.StringIO(read(path, fast=fast, monkeypatch=monkeypatch)))) == [
        ["name", "phone", "address", "assessmentRequired"],
        ["A", "00000000012", '1 "Quay" St', "FALSE"],
        ["B", "-150", "W&1", "TRUE"],
        ["C", "#\ufdd01+2", '#\ufdd0"a"&"b"', "TRUE"],
    ]
    # `<v></v>` (openpyxl's `<v />` written out): the fast path leaves it to the parser, which knows the formula
    path = excel_book(tmp_path / "empty.xlsx", [["name", "assessmentRequired"],
                                                ["D", Cell(formula="TRUE()", kind="b", value="")]])
    monkeypatch.undo()
    assert read(path, fast=fast, monkeypatch=monkeypatch) == "name,assessmentRequired\nD,TRUE\n"

def test_openpyxl_formulas_have_no_value(tmp_path: Path) -> None:
    """openpyxl (and pandas through it) writes `<f>..</f><v />`: nothing a sheet showed."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["name", "phone"])
    sheet.append(["A", "=1+2"])
    book.save(tmp_path / "book.xlsx")
    assert read(tmp_path / "book.xlsx") == "name,phone\nA,#\ufdd01+2\n"


def shown_by(program: str, path: Path, out_dir: Path) -> list[list[str]]:
    """The cells of the workbook's sheet as `program` shows them, saved as CSV."""
    out_dir.mkdir(exist_ok=True)
    if program == "gnumeric":
        binary = shutil.which("ssconvert")
        require_component("ssconvert (gnumeric)", binary is not None)
        out = out_dir / (path.stem + ".txt")  # the configurable text exporter: cells as shown
        r = subprocess.run([str(binary), "-T", "Gnumeric_stf:stf_assistant", "-O", "format=preserve separator=,",
                            str(path), str(out)], capture_output=True, text=True, timeout=120, check=False)
        assert out.exists(), r.stderr
    else:
        (out,) = _calc_csv(Calc(out_dir / "profile"), path, out_dir)  # Calc skips or fails without soffice
    text = out.read_text(encoding="utf-8").replace("\u2212", "-")  # Gnumeric's minus sign
    return list(csv.reader(io.StringIO(text)))


def _calc_csv(calc: Calc, path: Path, out_dir: Path) -> list[Path]:
    """The workbook saved as CSV by Calc (cells as shown: the filter's default)."""
    argv = [calc.binary, f"-env:UserInstallation={calc.profile.as_uri()}", "--headless", "--norestore",
            "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1", "--outdir", str(out_dir), str(path)]
    env = {**os.environ, "HOME": str(calc.profile), "LANG": "C.UTF-8"}
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    out = out_dir / (path.stem + ".csv")
    assert out.exists(), r.stdout + r.stderr
    return [out]


@pytest.mark.real_component
@pytest.mark.parametrize("program", ["libreoffice", "gnumeric"])
@pytest.mark.parametrize("date1904", [False, True], ids=["1900", "1904"])
def test_numbers_read_as_spreadsheet_programs_show_them(tmp_path: Path, program: str, date1904: bool) -> None:
    """Every format above and some more, on numbers a sheet shows alike in Excel, LibreOffice and Gnumeric
    (dates after February 1900, which LibreOffice counts differently; up to 15 digits)."""
    formats = {**FORMATS, 169: "0.0#", 170: '"Tel "0', 171: "#,##0.00;[Red]-#,##0.00", 172: "[h]:mm",
               173: "0.00E+00", 174: "mm:ss", 175: "#,##0 ;(#,##0)"}
    styles = [*STYLES, *range(169, 176), 1, 2, 3, 21, 18]  # 1 0, 2 0.00, 3 #,##0, 21 h:mm:ss, 18 h:mm AM/PM
    numbers = ["1614960123", "13.5", "1234567.891", "2.005", "1.25", "0.125", "-1234.5", "0", "999999999999999"]
    dates = ["45352", "45352.75", "61.5", "36525.5", "2957003"]  # 2957003: 9999-12-31 (1904), 9995 (1900)
    times = [*dates[:-1], "0.520833333333333", "0.125", "1.25", "0"]
    shown = {style: dates if style in (166, 168) else times if style in (20, 172, 174, 21, 18) else numbers
             for style in styles}
    rows: list[list[object]] = [["values"]]
    rows += [[Cell(value, index) for value in shown[style]] for index, style in enumerate(styles, start=1)]
    path = excel_book(tmp_path / "formats.xlsx", rows, formats=formats, styles=styles, date1904=date1904)
    ours = list(csv.reader(io.StringIO(read(path))))
    theirs = shown_by(program, path, tmp_path / program)
    differ = [(formats.get(style, style), shown[style][c], ours[r][c], theirs[r][c])
              for r, style in enumerate(styles, start=1) for c in range(len(shown[style]))
              if ours[r][c] != theirs[r][c]]
    assert differ == [], differ


@pytest.mark.real_component
def test_escapes_read_as_libreoffice_reads_them(tmp_path: Path) -> None:
    path = excel_book(tmp_path / "escapes.xlsx", [["name", "phone"], ["Line one_x000B_Line two", "x_x005F_x000B_y"]])
    assert list(csv.reader(io.StringIO(read(path)))) == shown_by("libreoffice", path, tmp_path / "calc") == [
        ["name", "phone"], ["Line one\x0bLine two", "x_x000B_y"]]


# -- end to end: what the service holds, the row errors, the exit code -----------------------------------

@pytest.mark.parametrize("date1904", [False, True], ids=["1900", "1904"])
def test_a_workbook_excel_saved_imports_what_its_sheet_shows(logged_in: Any, tmp_path: Path, date1904: bool) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = sites_book(tmp_path / "sites.xlsx", date1904=date1904)
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 0, r
    held = {name: json.loads(cli("sites", "get", site["id"], "-o", "json").stdout)
            for name, site in sites_of(cli, cid).items()}
    assert {name: (s["phone"], s["address"], s["bannedWorkers"]) for name, s in held.items()} == {
        "Dock 1": ("01614960123", "2024-03-01", ["00000004512"]),
        "Dock 2": ("01614 960124", "12:30", []),
        "Dock 3": ("0161 496 0125", "£13.50", ["1,234.50"]),
        "Dock 4": ("", "2024-03-01 18:00", ["12.50%"]),
    }


def test_error_values_and_formulas_without_a_value_are_row_errors(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    book = excel_book(tmp_path / "errors.xlsx", [
        ["name", "phone", "address", "bannedWorkers"],
        ["Dock 1", Cell("#N/A", kind="e", formula="VLOOKUP(A2,Phones!A:B,2,0)"), "1 Quay St", None],
        ["Dock 2", "0161", Cell(formula="B3&\" Quay St\""), None],
        ["Dock 3", "0162", "3 Quay St", Cell("#REF!", kind="e")],
        ["Dock 4", "0163", "4 Quay St", "W-1"],
    ])
    r = cli("sites", "import", str(book), "--client", cid)
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[:3] == [
        "invalid: row 1 (line 2), column phone: '#N/A' is a spreadsheet's error value (a formula that failed): "
        "put the value itself in the cell",
        "invalid: row 2 (line 3), column address: a formula '=B3&\" Quay St\"' with no computed value: the "
        "program that saved the workbook did not calculate it (openpyxl and pandas do not); open and save it in "
        "a spreadsheet, or type the value",
        "invalid: row 3 (line 4), column bannedWorkers: '#REF!' is a spreadsheet's error value (a formula that "
        "failed): put the value itself in the cell"], r.stderr
    assert sites_of(cli, cid) == {}

    text = tmp_path / "errors.csv"  # the same values saved as CSV: the error's text
    text.write_text("name,phone,rates,departments\nDock 1,#DIV/0!,,\nDock 2,,#VALUE!,\nDock 3,,,#NAME?\n"
                    "Dock 4,'#N/A,,\n", encoding="utf-8")
    r = cli("sites", "import", str(text), "--client", cid, "--skip-invalid")
    assert r.exit_code == 10, r
    said = [line for line in r.stderr.splitlines() if line.startswith("invalid: ")]
    assert [line.split(": ", 2)[1] for line in said] == [
        "row 1 (line 2), column phone", "row 2 (line 3), column rates", "row 3 (line 4), column departments"], said
    assert all(line.endswith("is a spreadsheet's error value (a formula that failed): put the value itself in "
                             "the cell") for line in said), said
    assert {name: site.get("phone") for name, site in sites_of(cli, cid).items()} == {"Dock 4": "'#N/A"}


def test_an_export_with_control_characters_and_escapes_comes_back_unchanged(
        logged_in: Any, tmp_path: Path) -> None:
    """XlsxWriter writes a vertical tab as `_x000B_` and a literal `_x000B_` as `_x005F_x000B_`."""
    cli = logged_in
    cid = new_client(cli)
    source = tmp_path / "in.csv"
    source.write_text('name,address,departments\nDock 1,"Line one\x0bLine two",Goods_x000B_In\n'
                      "Dock_x005F_2,tab\there,\n", encoding="utf-8")
    r = cli("sites", "import", str(source), "--client", cid)
    assert r.exit_code == 0, r
    book = exported_to(cli, cid, tmp_path / "out.xlsx")
    r = cli("sites", "import", str(book), "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout.startswith("to create        0\nto update        0\nunchanged        2\n"), r.stdout
    held = {name: json.loads(cli("sites", "get", site["id"], "-o", "json").stdout)
            for name, site in sites_of(cli, cid).items()}
    assert held["Dock 1"]["address"] == "Line one\x0bLine two"
    assert held["Dock 1"]["departments"][0]["name"] == "Goods_x000B_In"
    assert "Dock_x005F_2" in held


def test_a_value_too_long_for_a_workbook_cell_refuses_the_export(logged_in: Any, tmp_path: Path) -> None:
    """A site banning 900 workers: its bannedWorkers cell is 34,000 characters, over Excel's 32,767."""
    cli = logged_in
    cid = new_client(cli)
    workers = [f"W-{uuid.uuid4()}" for _ in range(900)]
    source = tmp_path / "in.csv"
    source.write_text(f"name,bannedWorkers\nBig Yard,{'|'.join(workers)}\nSmall Yard,W-1\n", encoding="utf-8")
    r = cli("sites", "import", str(source), "--client", cid)
    assert r.exit_code == 0, r
    big = sites_of(cli, cid)["Big Yard"]["id"]
    length = len("|".join(workers))
    assert length > 32_767

    book = tmp_path / "out.xlsx"
    book.write_bytes(b"an older export")
    r = cli("sites", "export", "--client", cid, "-f", str(book))
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[-1] == (
        f"error: 1 site holds a value longer than a workbook cell holds (32,767 characters), which a spreadsheet "
        f"would cut: 'Big Yard' ({big}), bannedWorkers: {length:,} characters; no workbook was written: export "
        "to CSV instead (-f FILE.csv), which holds every value whole"), r.stderr
    assert book.read_bytes() == b"an older export"  # left as it was
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left

    exported = exported_to(cli, cid, tmp_path / "out.csv")
    r = cli("sites", "import", str(exported), "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": unchanged 2\n"), r.stderr
    full = json.loads(cli("sites", "get", big, "-o", "json").stdout)
    assert full["bannedWorkers"] == workers


def test_the_sheet_writer_refuses_a_cell_excel_would_cut(tmp_path: Path) -> None:
    """Counted as Excel counts: UTF-16 units (an emoji is two), and named by record."""
    from wfctl.files.errors import BulkError
    from wfctl.files.sheetwriter import SheetWriter

    sheet = SheetWriter(str(tmp_path / "a.xlsx"), ["id", "name", "address"], record="site")
    sheet.write(["i1", "Fits", "x" * 32_767])
    sheet.write(["i2", "Emoji", "😀" * 16_384])  # 16,384 characters, 32,768 units
    for i in range(7):
        sheet.write([f"j{i}", f"Long {i}", "y" * 40_000])
    with pytest.raises(BulkError) as caught:
        sheet.close()
    assert caught.value.message.startswith(
        "8 sites hold a value longer than a workbook cell holds (32,767 characters), which a spreadsheet would "
        "cut: 'Emoji' (i2), address: 32,768 characters; 'Long 0' (j0), address: 40,000 characters; ")
    assert "; and 3 more; no workbook was written" in caught.value.message

    fits = SheetWriter(str(tmp_path / "b.xlsx"), ["name"])
    fits.write(["x" * 32_767])
    fits.close()
    assert read(tmp_path / "b.xlsx") == "name\n" + "x" * 32_767 + "\n"


@pytest.mark.parametrize(("code", "value", "shown"), [
    ("00000000000", 1614960123, "01614960123"), ("00000 000000", 1614960123, "01614 960123"),
    ("[$£-809]#,##0.00", 13.5, "£13.50"), ("[$£-809]#,##0.00", -1234.5, "-£1,234.50"), ("#,##0", 1234567.4, "1,234,567"),
    ("0.0#", 1.5, "1.5"), ("0.0#", 1.25, "1.25"), (".00", 1.5, "1.50"), ("0%", 0.125, "13%"), ("0.00E+00", 0, "0.00E+00"),
    ("0.00E+00", 9.996, "1.00E+01"), ('"Tel "0', 123, "Tel 123"), ('"Tel "@', 12, "12"), ('General" units"', 1.5, "1.5 units"),
    ("#,##0 ;(#,##0)", -1234, "(1,234)"), ("#,##0.00;[Red]-#,##0.00", -5, "-5.00"), ("#", 0, ""), ("0", 0, "0"),
    ('_(* #,##0.00_);_(* (#,##0.00);_(* "-"??_);_(@_)', 13.5, " 13.50 "),
    ("h:mm", 0.520833333333333, "12:30"), ("h:mm", 0.125, "3:00"), ("hh:mm", 0.125, "03:00"), ("mm:ss", 0.01, "14:24"),
    ("h:mm AM/PM", 0.75, "6:00 PM"), ("h:mm:ss AM/PM", 0.25, "6:00:00 AM"), ("[h]:mm", 1.25, "30:00"),
    ("[mm]:ss", 0.1, "144:00"), ("yyyy-mm-dd", 45352, "2024-03-01"), ("dd/mm/yyyy", 45352, "2024-03-01"),
    ("d-mmm-yy", 45352.5, "2024-03-01"), ("m/d/yy h:mm", 45352.5, "2024-03-01 12:00"), ("yyyy-mm-dd", 60, "1900-02-29"),
    ("yyyy-mm-dd", 1, "1900-01-01"), ("yyyy-mm-dd", -1, "-1"), ("yyyy-mm-dd", 2958466, "2958466"),
    ("[<100]0;0.00", 5, None), ("# ?/?", 1.5, None), ("General", 1.5, None), ("@", 1.5, None),
])
def test_number_formats(code: str, value: float, shown: str | None) -> None:
    from wfctl.files.cellformat import formatter

    render = formatter(code, False)
    assert (render(value) if render else None) == shown


def test_the_1904_date_system() -> None:
    from wfctl.files.cellformat import formatter

    render = formatter("yyyy-mm-dd", True)
    assert render is not None and (render(43890), render(0), render(2957003)) == ("2024-03-01", "1904-01-01",
                                                                                    "9999-12-31")
