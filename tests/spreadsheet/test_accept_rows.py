"""A deliberate change that looks like a spreadsheet's (issue 33 §3): `--accept-row N` sends that row's
changes and stops on the others, and a workbook's cell typed as text (a string, or number format `@`) is
what the person typed, never a conversion: only a number cell (what a spreadsheet makes of `0427` typed into
a General cell) is stopped. Workbooks as wfctl writes them, as Excel writes them, and saved by LibreOffice."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client
from tests.imports.helpers import import_file, sites_of
from tests.spreadsheet.calc import Calc
from tests.spreadsheet.excel_parts import Cell, excel_book

TO_NUMBER = "looks like a spreadsheet turned this text into a number"
SITES = "name,phone\nAlpha,01614960001\nBravo,01614960002\nCharlie,01614960003\n"


def _phones(cli: Any, client: str) -> dict[str, str]:
    return {name: site["phone"] for name, site in sites_of(cli, client).items()}


def _client(cli: Any, tmp_path: Path) -> tuple[str, dict[str, str]]:
    client = new_client(cli)
    import_file(cli, "sites", tmp_path / "first.csv", SITES, "--client", client)
    return client, {name: site["id"] for name, site in sites_of(cli, client).items()}


def _damage(row: int, name: str, phone: str) -> str:
    return f"spreadsheet: row {row} ({name}): phone: 0{phone} -> {phone}: {TO_NUMBER}"


def test_accept_row_sends_the_rows_it_names_in_a_csv(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client(cli, tmp_path)
    path = tmp_path / "edited.csv"
    path.write_text(f"id,name,phone\n{ids['Alpha']},Alpha,1614960001\n{ids['Bravo']},Bravo,1614960002\n"
                    f"{ids['Charlie']},Charlie,01614960003\n", encoding="utf-8")
    args = ("sites", "import", str(path), "--client", client, "--on-existing", "update")
    r = cli(*args, "--accept-row", "1")
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == _damage(2, "Bravo", "1614960002")  # row 1 accepted: not named
    assert r.stderr.splitlines()[1].startswith("error: 1 row would change records only the way a spreadsheet "
                                               "changes text; nothing was sent")
    assert _phones(cli, client) == {"Alpha": "01614960001", "Bravo": "01614960002", "Charlie": "01614960003"}
    plan = cli(*args, "--accept-row", "1", "--accept-row", "2", "--dry-run")
    assert plan.exit_code == 0 and "spreadsheet:" not in plan.stderr, plan
    assert plan.stdout.count(f": {TO_NUMBER}; sent as it is (--accept-row ") == 2  # marked, and sent
    assert f"  phone: 01614960001 -> 1614960001: {TO_NUMBER}; sent as it is (--accept-row 1)\n" in plan.stdout
    plan = cli(*args, "--accept-spreadsheet-changes", "--dry-run")
    assert plan.exit_code == 0 and "spreadsheet:" not in plan.stderr, plan
    assert f"  phone: 01614960002 -> 1614960002: {TO_NUMBER}; sent as it is (--accept-spreadsheet-changes)\n" in plan.stdout
    plan = cli(*args, "--accept-row", "1", "--dry-run")  # row 2 is not accepted: marked only, and refused
    assert plan.exit_code == 2 and f"  phone: 01614960002 -> 1614960002: {TO_NUMBER}\n" in plan.stdout, plan
    r = cli(*args, "--accept-row", "1", "--accept-row", "2")
    assert r.exit_code == 0, r
    assert _phones(cli, client) == {"Alpha": "1614960001", "Bravo": "1614960002", "Charlie": "01614960003"}
    r = cli(*args, "--accept-row", "0")
    assert r.exit_code == 2 and r.stderr.endswith(
        "error: --accept-row: 0 is too small (at least 1)\n"), r


def _excel_edit(path: Path, ids: dict[str, str]) -> Path:
    """The export as Excel keeps it after a person's edits: Alpha's phone typed into a text cell (a
    string), Bravo's into a General cell (Excel made it the number 1614960002), Charlie's in a cell of
    number format `@` (text)."""
    return excel_book(path, [
        ["id", "name", "phone"],
        [ids["Alpha"], "Alpha", "1614960001"],
        [ids["Bravo"], "Bravo", Cell("1614960002")],
        [ids["Charlie"], "Charlie", Cell("1614960003", style=1)],
    ], styles=[49])


def test_a_workbooks_text_cells_are_what_was_typed_its_number_cells_are_stopped(
        logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client(cli, tmp_path)
    book = _excel_edit(tmp_path / "edited.xlsx", ids)
    args = ("sites", "import", str(book), "--client", client, "--on-existing", "update")
    r = cli(*args)
    assert r.exit_code == 2, r
    assert [line for line in r.stderr.splitlines() if line.startswith("spreadsheet:")] == [
        _damage(2, "Bravo", "1614960002")]
    diff = cli("sites", "diff", str(book), "--client", client, "-o", "json")
    marked = {row["name"]: row.get("spreadsheet") for row in json.loads(diff.stdout)["records"]}
    assert marked == {"Alpha": None, "Bravo": {"phone": TO_NUMBER},
                      "Charlie": None}, diff
    r = cli(*args, "--accept-row", "2")
    assert r.exit_code == 0, r
    assert _phones(cli, client) == {"Alpha": "1614960001", "Bravo": "1614960002", "Charlie": "1614960003"}


def test_wfctls_own_workbook_and_libreoffices_keep_what_was_typed(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client, ids = _client(cli, tmp_path)
    exported = tmp_path / "sites.xlsx"
    assert cli("sites", "export", "--client", client, "-f", str(exported)).exit_code == 0
    # the person retypes Alpha's phone without its zero: wfctl's text columns keep it as typed, a string
    edited = tmp_path / "typed.xlsx"
    with zipfile.ZipFile(exported) as source, zipfile.ZipFile(edited, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":  # inline strings, as XlsxWriter writes them
                data = data.replace(b"<t>01614960001</t>", b"<t>1614960001</t>")
            target.writestr(item, data)
    r = cli("sites", "import", str(edited), "--client", client, "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0 and "spreadsheet:" not in r.stderr, r
    assert "  phone: 01614960001 -> 1614960001\n" in r.stdout  # typed as text: no spreadsheet's doing

    # LibreOffice opens and saves both workbooks again: strings stay strings, a number a number
    saved = Calc(tmp_path / "profile").save_as([edited, _excel_edit(tmp_path / "excel.xlsx", ids)], "xlsx",
                                              tmp_path / "calc")
    r = cli("sites", "import", str(saved[0]), "--client", client, "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0 and "spreadsheet:" not in r.stderr, r
    r = cli("sites", "import", str(saved[1]), "--client", client, "--on-existing", "update")
    assert r.exit_code == 2, r
    assert [line for line in r.stderr.splitlines() if line.startswith("spreadsheet:")] == [
        _damage(2, "Bravo", "1614960002")]
    assert _phones(cli, client) == {"Alpha": "01614960001", "Bravo": "01614960002", "Charlie": "01614960003"}
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
