"""A real spreadsheet between `export` and `import` (issue 21 §4): LibreOffice Calc, headless, opens and
saves what wfctl writes; the import afterwards changes nothing and creates nothing, or stops before
sending anything (exit 2) where the spreadsheet changed text, and an edited cell changes that field alone.
On the sandbox and on a deployment whose PUT clears the fields it is not given (`--quirk put-clears`)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import client_with_sites as with_sites
from tests.bulk.helpers import exported_to
from tests.spreadsheet.calc import Calc

pytestmark = pytest.mark.real_component

# leading-zero phones, a name that is digits, banned workers of 6 to 19 digits, non-Latin names
SITES = (
    "name,address,phone,email,assessmentRequired,rates,departments,bannedWorkers\n"
    "Müller Lagerhaus,1 Hafenstraße,01614960000,m@x.test,true,Forklift=13.25,Goods In:Jörg:j@x.test,"
    "004512|4000123412341234|1234567890123456789\n"
    "0427,2 High St,02079460000,b@x.test,false,,,1234567890123456789\n"
    "東京 Warehouse,3 Chiyoda,0312345678,t@x.test,,Picker=11,,000123\n"
    "Seán,4 Main St,+353 1 234 5678,s@x.test,true,,,4000123412341234\n"
)


@pytest.fixture(params=["sandbox", "put-clears"])
def deployment(request: pytest.FixtureRequest, cli: Any, sandbox: Any) -> Any:
    """`cli` logged in to the session sandbox, or to a sandbox whose PUT replaces the record."""
    server = sandbox if request.param == "sandbox" else request.getfixturevalue("sandbox_factory")(
        quirks=["put-clears"])
    r = cli.login_as(server.url, "admin@northwind.test", "sandbox-admin")
    assert r.exit_code == 0, r
    return cli


def client_with_sites(cli: Any, tmp_path: Path) -> str:
    return with_sites(cli, tmp_path, SITES, "sites.csv")


def held(cli: Any, cid: str) -> dict[str, dict[str, Any]]:
    """Every site of the client as the service holds it, by name, without the timestamps."""
    r = cli("sites", "list", "--client", cid, "--all", "-o", "json")
    assert r.exit_code == 0, r
    out = {}
    for site in json.loads(r.stdout):
        full = cli("sites", "get", site["id"], "-o", "json")
        assert full.exit_code == 0, full
        record = json.loads(full.stdout)
        out[record["name"]] = {k: v for k, v in record.items() if k not in ("createdOn", "updatedOn", "modifiedOn")}
    return out


def export_redirected(cli: Any, cid: str, path: Path) -> None:
    """`wfctl sites export --client ID > path` in a real process (stdout a regular file)."""
    env = {**cli.env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with open(path, "wb") as out:
        proc = subprocess.run([sys.executable, "-m", "wfctl", "sites", "export", "--client", cid], stdout=out,
                              stderr=subprocess.PIPE, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


def edit_workbook(path: Path, old: str, new: str) -> None:
    """Change one text cell of a workbook wfctl wrote (as a person typing in it would)."""
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"]
    assert sheet.count(f"<t>{old}</t>".encode()) == 1
    parts["xl/worksheets/sheet1.xml"] = sheet.replace(f"<t>{old}</t>".encode(), f"<t>{new}</t>".encode())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_workbook_round_trip_changes_nothing_and_an_edit_changes_that_field(
        deployment: Any, calc: Calc, tmp_path: Path) -> None:
    cli = deployment
    cid = client_with_sites(cli, tmp_path)
    before = held(cli, cid)
    book = exported_to(cli, cid, tmp_path / "sites.xlsx")
    edited = tmp_path / "edited.xlsx"
    edited.write_bytes(book.read_bytes())
    edit_workbook(edited, "t@x.test", "tokyo@x.test")
    saved, saved_edited = calc.save_as([book, edited], "xlsx", tmp_path / "calc")

    r = cli("sites", "import", str(saved), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": unchanged 4\n"), r.stderr
    assert held(cli, cid) == before

    r = cli("sites", "import", str(saved_edited), "--client", cid, "--on-existing", "update", "--dry-run")
    assert r.exit_code == 0, r
    tokyo = before["東京 Warehouse"]["id"]
    assert r.stdout.startswith("row ") and r.stdout.count("row ") == 1, r.stdout
    client = json.loads(cli("clients", "get", cid, "-o", "json").stdout)["name"]
    assert f"  update  東京 Warehouse  ({tokyo})\n  in client {client}\n  email: t@x.test -> tokyo@x.test\nto create" \
        in r.stdout
    r = cli("sites", "import", str(saved_edited), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 0, r
    after = held(cli, cid)
    assert after["東京 Warehouse"] == {**before["東京 Warehouse"], "email": "tokyo@x.test"}
    assert {k: v for k, v in after.items() if k != "東京 Warehouse"} == {
        k: v for k, v in before.items() if k != "東京 Warehouse"}


def test_csv_opened_as_utf8_is_stopped_before_sending(deployment: Any, calc: Calc, tmp_path: Path) -> None:
    """Calc's import dialog with UTF-8: every digit string becomes a number; the import sends nothing."""
    cli = deployment
    cid = client_with_sites(cli, tmp_path)
    before = held(cli, cid)
    exported = exported_to(cli, cid, tmp_path / "sites.csv")
    (saved,) = calc.save_as([exported], "csv-utf8", tmp_path / "calc")
    text = saved.read_text(encoding="utf-8")
    assert ",1614960000," in text and "1.23456789012346E+018" in text  # what the spreadsheet did

    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 2, r
    muller = before["Müller Lagerhaus"]["id"]
    # the rows in the export's order, which is the service's; each said once, with what changed
    said = sorted(line.split(": ", 2)[2] for line in r.stderr.splitlines() if line.startswith("spreadsheet: row "))
    number = "looks like a spreadsheet turned this text into a number"
    # every row carries its id (export writes it): '0427' -> '427' is that site's change, not a create
    assert said == sorted([
        f"phone: 01614960000 -> 1614960000: {number}", f"phone: 0312345678 -> 312345678: {number}",
        f"bannedWorkers: 000123 -> 123: {number}", f"name: 0427 -> 427: {number}",
        f"phone: 02079460000 -> 2079460000: {number}",
        f"bannedWorkers: 1234567890123456789 -> 1.23456789012346E+018: {number}"]), r.stderr
    assert r.stderr.splitlines()[-1] == (
        "error: 3 rows would change records only the way a spreadsheet changes text; nothing was sent (export "
        "the records as .xlsx and edit that, or open the CSV as UTF-8 with text columns as text; "
        "--accept-spreadsheet-changes sends these changes as they are)")
    assert held(cli, cid) == before

    r = cli("sites", "import", str(saved), "--on-existing", "update", "--dry-run")
    assert r.exit_code == 2, r
    client = json.loads(cli("clients", "get", cid, "-o", "json").stdout)["name"]
    assert f"  update  Müller Lagerhaus  ({muller})\n  in client {client}\n  phone: 01614960000 -> 1614960000: looks like a " \
           "spreadsheet turned this text into a number\n" in r.stdout
    assert "a run would send nothing" in r.stderr


def test_csv_opened_with_text_columns_round_trips(deployment: Any, calc: Calc, tmp_path: Path) -> None:
    """The way out docs/csv.md gives: the CSV opened as UTF-8 with its columns as text."""
    cli = deployment
    cid = client_with_sites(cli, tmp_path)
    before = held(cli, cid)
    exported = tmp_path / "sites.csv"
    export_redirected(cli, cid, exported)
    (saved,) = calc.save_as([exported], "csv-text", tmp_path / "calc")
    r = cli("sites", "import", str(saved), "--on-existing", "update")
    assert r.exit_code == 0, r
    assert r.stderr.endswith(": unchanged 4\n"), r.stderr
    assert held(cli, cid) == before


def test_csv_opened_in_the_default_charset(logged_in: Any, calc: Calc, tmp_path: Path) -> None:
    """`export > FILE` starts the file with a BOM, which Calc's default charset reads as UTF-8; a file
    without one (as a pipe gets) comes back as mojibake, which is named and stopped before sending."""
    cli = logged_in
    cid = client_with_sites(cli, tmp_path)
    before = held(cli, cid)
    redirected = tmp_path / "redirected.csv"
    export_redirected(cli, cid, redirected)
    assert redirected.read_bytes().startswith(b"\xef\xbb\xbfid,clientId,")
    piped = tmp_path / "piped.csv"
    piped.write_text(cli("sites", "export", "--client", cid).stdout, encoding="utf-8")
    assert piped.read_bytes().startswith(b"id,clientId,")
    saved_redirected, saved_piped = calc.save_as([redirected, piped], "csv-default", tmp_path / "calc")
    # measured: Calc's default charset (Windows-1252) takes the BOM for three characters, as Excel does not
    assert saved_redirected.read_text(encoding="utf-8").startswith('"ï»¿id",')
    assert "MÃ¼ller Lagerhaus" in saved_piped.read_text(encoding="utf-8")
    way_out = ("re-export as .xlsx with export -f FILE.xlsx, or open the CSV as UTF-8: Unicode (UTF-8) in the "
               "import dialog, Data > From Text/CSV in Excel")

    r = cli("sites", "import", str(saved_redirected), "--on-existing", "update")
    assert r.exit_code == 2, r
    # said once (issue 33 §4: the BOM was named twice, the second time as `'ï»¿id' for '\ufeffid'`), with the
    # first word the text's own reading changed
    import re

    assert re.fullmatch(re.escape(
        f"{saved_redirected}: the file starts with 'ï»¿', a UTF-8 byte order mark that a spreadsheet read as "
        f"Windows-1252 and saved again; its text may be changed the same way (") + r"'\S+' for '\S+'" + re.escape(
        f") ({way_out})"), r.stderr.splitlines()[0]), r.stderr  # the first word read so (the service's order)
    assert r.stderr.count("ï»¿") == 1 and "its text reads like" not in r.stderr, r.stderr
    assert "unknown column" not in r.stderr

    r = cli("sites", "import", str(saved_piped), "--on-existing", "update")
    assert r.exit_code == 2, r
    lines = r.stderr.splitlines()
    import re

    assert re.fullmatch(re.escape(f"{saved_piped}: its text reads like UTF-8 that a spreadsheet opened as "
                                  "Windows-1252 and saved again (") + r"'\S+' for '\S+'" + re.escape(
        f"); rows that would change a record this way are stopped before sending ({way_out})"), lines[0]), lines[0]
    said = sorted(line.split(": ", 2)[2] for line in lines if line.startswith("spreadsheet: row "))
    charset = "looks like a spreadsheet read this UTF-8 text as Windows-1252"
    # every row carries its id (export writes it): a mangled name is that record's change, never a create
    assert not [line for line in said if line.startswith("creates ")], said
    assert "name: 0427 -> 427: looks like a spreadsheet turned this text into a number" in said
    assert f"name: Müller Lagerhaus -> MÃ¼ller Lagerhaus: {charset}" in said
    assert f"name: Seán -> SeÃ¡n: {charset}" in said
    assert f"address: 1 Hafenstraße -> 1 HafenstraÃŸe: {charset}" in said
    assert lines[-1].startswith("error: 4 rows would change records only the way a spreadsheet changes text; "
                                "nothing was sent")
    assert held(cli, cid) == before
