"""Issue 33 §4 and the rest of §1's files: a workbook's text cells without the CSV's `'`, a report fed
back, `list -o csv > FILE`'s BOM, the sheet named when the first one is not the records, an .xls file
named as one, a Mac CSV with a line break in a cell, a change of line breaks shown."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import xlsxwriter

from tests.bulk.helpers import client_with_sites, exported_to, new_client
from tests.conftest import require_component
from tests.imports.helpers import sites_of


def seeded(cli: Any, tmp_path: Path, text: str) -> str:
    return client_with_sites(cli, tmp_path, text)


def test_a_workbooks_text_cells_have_no_protective_apostrophe(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,phone,address\nDock 4,+44 20 7946 0000,'=SUM(A1)\n")
    book = exported_to(cli, cid, tmp_path / "sites.xlsx")
    with zipfile.ZipFile(book) as archive:
        sheet = archive.read("xl/worksheets/sheet1.xml").decode()
        strings = archive.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in archive.namelist() \
            else ""
    cells = sheet + strings
    # a text cell runs no formula: `+44 ...` and `=SUM(A1)` as they are (the CSV export writes `'+44 ...`)
    assert ">+44 20 7946 0000<" in cells and ">=SUM(A1)<" in cells and "'" not in cells, cells
    r = cli("sites", "import", str(book), "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": unchanged 1\n"), r.stderr

    old = tmp_path / "old.xlsx"  # as wfctl wrote workbooks before: `'+44 ...`, which still reads as +44
    workbook = xlsxwriter.Workbook(str(old))
    ws = workbook.add_worksheet()
    ws.write_row(0, 0, ["clientId", "name", "phone"])
    ws.write_row(1, 0, [cid, "Dock 4", "'+44 20 7946 0000"])
    workbook.close()
    r = cli("sites", "import", str(old), "--on-existing", "update")
    assert r.exit_code == 0 and r.stderr.endswith(": unchanged 1\n"), r


def test_a_report_is_fed_back_as_it_is(logged_in: Any, tmp_path: Path) -> None:
    """One `id` column, the record's; `status`, `error` and `changes` ignored on import."""
    cli = logged_in
    cid = seeded(cli, tmp_path, "name,phone\nDock 4,01\n")
    listed = tmp_path / "listed.csv"
    text = cli("sites", "list", "--client", cid, "-o", "csv").stdout
    header = text.splitlines()[0]
    columns = header.split(",")
    listed.write_text(text + ",".join("Dock 5" if c == "name" else "" for c in columns) + "\n", encoding="utf-8")
    assert header.startswith("id,"), header
    report = tmp_path / "report.csv"
    r = cli("sites", "import", str(listed), "--client", cid, "--report", str(report))
    assert r.exit_code == 0, r
    lines = report.read_text(encoding="utf-8-sig").splitlines()
    assert lines[0] == header[len("id,"):] + ",status,id,error,changes", lines
    ids = {site["name"]: site["id"] for site in sites_of(cli, cid).values()}
    rows = list(csv.reader(lines[1:]))
    assert [row[-4:-1] for row in rows] == [["skipped", ids["Dock 4"], ""], ["created", ids["Dock 5"], ""]], rows

    again = tmp_path / "again.csv"
    r = cli("sites", "import", str(report), "--client", cid, "--on-existing", "update", "--report", str(again))
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": unchanged 2\n"), r.stderr
    assert again.read_text(encoding="utf-8-sig").splitlines()[0] == lines[0]
    assert len(sites_of(cli, cid)) == 2


def test_list_as_csv_into_a_file_starts_with_a_bom(logged_in: Any, tmp_path: Path) -> None:
    """As `export > FILE` does (docs/csv.md): a spreadsheet reads the file as UTF-8; a pipe gets none."""
    cli = logged_in
    cid = seeded(cli, tmp_path, "name\nMüller Lagerhaus\n")
    env = {**cli.env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    argv = [sys.executable, "-m", "wfctl", "sites", "list", "--client", cid, "-o", "csv"]
    out = tmp_path / "sites.csv"
    with open(out, "wb") as f:
        proc = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith("\ufeffid,".encode())
    piped = subprocess.run(argv, capture_output=True, env=env, timeout=60, check=False)
    assert piped.stdout.startswith(b"id,"), piped.stdout[:20]
    r = cli("sites", "import", str(out), "--client", cid, "--on-existing", "update")  # still fed back
    assert r.exit_code == 0 and r.stderr.endswith(": unchanged 1\n"), r
    with open(out, "ab") as f:  # appended to: no BOM in the middle of a file
        subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, env=env, timeout=60, check=True)
    assert out.read_bytes().count("\ufeff".encode()) == 1


def test_a_workbook_whose_first_sheet_is_not_the_records_says_which_sheet(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    empty = tmp_path / "empty-first.xlsx"
    book = xlsxwriter.Workbook(str(empty))
    book.add_worksheet("Cover")
    book.add_worksheet("Sites").write_row(0, 0, ["name"])
    book.close()
    r = cli("sites", "import", str(empty), "--client", cid)
    assert (r.exit_code, r.stderr) == (2, f"error: {empty}: sheet 'Cover' is empty (expected a header row) (the "
                                          "first); the workbook's other sheets are 'Sites': --sheet NAME (or its "
                                          "number from 1) reads another\n")

    notes = tmp_path / "notes-first.xlsx"
    book = xlsxwriter.Workbook(str(notes))
    book.add_worksheet("Notes").write_string(0, 0, "Sites for the March audit")
    book.add_worksheet("Sites").write_row(0, 0, ["name"])
    book.close()
    r = cli("sites", "import", str(notes), "--client", cid)
    assert r.exit_code == 2, r
    assert ("invalid: line 1: sheet 'Notes' was read (the first); the workbook's other sheets are 'Sites': "
            "--sheet NAME (or its number from 1) reads another\n") in r.stderr, r.stderr
    r = cli("sites", "import", str(notes), "--client", cid, "--sheet", "2")
    assert r.exit_code == 0, r


def test_an_xls_file_is_named_as_one(logged_in: Any, tmp_path: Path) -> None:
    binary = shutil.which("ssconvert")
    require_component("ssconvert (gnumeric)", binary is not None)
    source = tmp_path / "sites.csv"
    source.write_text("name\nDock 4\n", encoding="utf-8")
    xls = tmp_path / "sites.xls"
    subprocess.run([str(binary), str(source), str(xls)], capture_output=True, timeout=120, check=True)
    r = logged_in("sites", "import", str(xls), "--client", new_client(logged_in))
    assert (r.exit_code, r.stderr) == (2, f"error: {xls}: an Excel 97-2003 workbook (.xls), which wfctl does not "
                                          "read; save it as .xlsx (Excel Workbook) or CSV UTF-8 and run again\n")


def test_a_mac_csv_with_a_line_break_in_a_cell_is_read(logged_in: Any, tmp_path: Path) -> None:
    """Excel for Mac's "CSV (Macintosh)": CR ends each row; a cell's line break (LF, as Excel keeps it, or CR)
    inside quotes."""
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "mac.csv"
    path.write_bytes(b'name,address\r"Dock 4","1 Quay St\nLeeds"\r"Dock 5","2 Quay St\rLeeds"\rDock 6,3 Quay St\r')
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 0, r
    full = {name: json.loads(cli("sites", "get", site["id"], "-o", "json").stdout)
            for name, site in sites_of(cli, cid).items()}
    assert {name: site["address"] for name, site in full.items()} == {
        "Dock 4": "1 Quay St\nLeeds", "Dock 5": "2 Quay St\nLeeds", "Dock 6": "3 Quay St"}


def test_a_change_of_line_breaks_in_a_cell_is_shown(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = seeded(cli, tmp_path, 'name,address\nDock 4,"1 Quay St\nLeeds"\n')
    path = tmp_path / "crlf.csv"
    path.write_bytes(b'name,address\r\nDock 4,"1 Quay St\r\nLeeds"\r\n')
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0, r
    assert "  address: 1 Quay St\\nLeeds -> 1 Quay St\\r\\nLeeds\n" in r.stdout, r.stdout
