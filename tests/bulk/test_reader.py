"""Reading input files: BOM, CRLF, `;`, quoted delimiters and newlines, encodings, what spreadsheets
write, and hostile files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names
from wfctl.files.errors import BulkError
from wfctl.files.reader import MAX_CELL_CHARS, CsvInput

DATA = Path(__file__).parent / "data"


def rows(name: str, **kw: object) -> list:
    with CsvInput(str(DATA / name), **kw) as source:  # type: ignore[arg-type]
        return list(source.rows())


def test_bom_and_crlf() -> None:
    with CsvInput(str(DATA / "bom_crlf.csv")) as source:
        assert source.header[0] == "name"  # no BOM in the first column's name
        got = list(source.rows())
    assert [r.cells["name"] for r in got] == ["Hull depot", "Leeds hub"]
    assert got[0].cells["bannedWorkers"] == "w-1|w-2"  # no stray \r
    assert got[0].cells["phone"] == "'+44 1482 000000"
    assert [r.line for r in got] == [2, 3]


def test_semicolon_is_detected() -> None:
    got = rows("semicolon.csv")
    assert got[0].cells["address"] == "3 Main St; Unit 4"
    assert got[1].cells["address"] == "Line one\nLine two"
    assert [(r.number, r.line) for r in got] == [(1, 2), (2, 3)]


def test_explicit_delimiter() -> None:
    got = rows("semicolon.csv", delimiter=";")
    assert len(got) == 2
    with pytest.raises(BulkError, match="one character"):
        CsvInput(str(DATA / "semicolon.csv"), delimiter=";;")


def test_quoted_delimiters_and_newlines() -> None:
    (row,) = rows("quoted.csv")
    assert row.cells["name"] == "Dock, North"
    assert row.cells["address"] == '12 "Quay" St\r\nFloor 2'
    assert row.cells["bannedWorkers"] == "w\\|1|w2"


def test_cp1252_is_a_clear_error() -> None:
    with pytest.raises(BulkError) as info:
        rows("cp1252.csv")
    message = info.value.message
    assert "line 2 is not UTF-8" in message
    assert "0xe9" in message
    assert "Windows-1252" in message


def test_stdin_is_spooled(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    data = (DATA / "semicolon.csv").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with CsvInput("-") as source:
        assert source.display == "<stdin>"
        assert len(list(source.rows())) == 2
        spool = source.path
    assert not Path(spool).exists()


def test_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(BulkError, match="empty"):
        CsvInput(str(tmp_path / "empty.csv"))
    with pytest.raises(BulkError, match="no such file"):
        CsvInput(str(tmp_path / "nope.csv"))


# -- what spreadsheets write -------------------------------------------------------------------

def excel_file(tmp_path: Path) -> Path:
    """As Excel saves "CSV UTF-8": BOM, CRLF, headers as a person typed them, a trailing column that
    once held something (no name, no values), and blank rows (all cells empty) between the records."""
    text = ("Name,ADDRESS,ClientId,Rates,BANNEDWORKERS,\r\n"
            "Hull depot,1 Dock Rd,c-1,forklift=12.50,w-1,\r\n"
            ",,,,,\r\n"
            "\r\n"
            "Leeds hub,2 Mill St,c-1,,,\r\n"
            ",,,,,\r\n")
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    return path


def test_excel_headers_trailing_column_and_blank_rows(tmp_path: Path) -> None:
    with CsvInput(str(excel_file(tmp_path))) as source:
        assert source.header == ["name", "address", "clientId", "rates", "bannedWorkers"]
        assert source.written("clientId") == "ClientId" and source.written("name") == "Name"
        assert source.written("colour") == "colour"
        got = list(source.rows())
        assert source.blank_rows == 3
    assert [(r.number, r.line, r.extra) for r in got] == [(1, 2, 0), (2, 5, 0)]
    assert got[0].cells == {"name": "Hull depot", "address": "1 Dock Rd", "clientId": "c-1",
                            "rates": "forklift=12.50", "bannedWorkers": "w-1"}


def test_values_under_no_header_are_extra_cells(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("name,email,\nA,a@example.com,\nB,b@example.com,oops\nC,,,,\n", encoding="utf-8")
    with CsvInput(str(path)) as source:
        assert [(r.cells["name"], r.extra) for r in source.rows()] == [("A", 0), ("B", 1), ("C", 0)]


@pytest.mark.parametrize(("header", "message"), [
    ("name,Name\n", "line 1: column 'name' ('Name') appears twice"),
    ("name,name\n", "line 1: column 'name' appears twice"),
    ("name,,email\n", "line 1: column 2 has no name"),
])
def test_header_problems(tmp_path: Path, header: str, message: str) -> None:
    path = tmp_path / "h.csv"
    path.write_text(header + "a,b,c\n", encoding="utf-8")
    with pytest.raises(BulkError, match=re.escape(message)):
        CsvInput(str(path))


def test_excel_file_imports(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = excel_file(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"c-1", cid.encode()))
    r = cli("sites", "import", str(path))
    assert r.exit_code == 0, r
    assert site_names(cli, cid) == ["Hull depot", "Leeds hub"]
    r = cli("sites", "import", str(path), "--dry-run", "-o", "json")
    assert r.exit_code == 0, r


# -- hostile files -----------------------------------------------------------------------------

def test_a_cell_over_the_limit_names_its_line(logged_in: Any, tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text(f"name,address\nA,x\nB,\"{'y' * (MAX_CELL_CHARS + 1)}\"\nC,z\n", encoding="utf-8")
    r = logged_in("sites", "import", str(path), "--client", new_client(logged_in), "--dry-run")
    assert r.exit_code == 2, r
    assert r.stderr.count("\n") == 1, r.stderr
    assert f"line 3: a cell is longer than {MAX_CELL_CHARS} characters" in r.stderr
    assert "unexpected" not in r.stderr


def test_a_quote_never_closed_names_the_line_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "open.csv"
    path.write_text("name,address\nA,x\nB,\"never closed\n" + "C,z\n" * (MAX_CELL_CHARS // 4), encoding="utf-8")
    with CsvInput(str(path)) as source, pytest.raises(BulkError, match="line 3: a cell is longer than"):
        list(source.rows())


def test_a_cell_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text(f"name,bannedWorkers\nA,{'w' * MAX_CELL_CHARS}\n", encoding="utf-8")
    with CsvInput(str(path)) as source:
        assert len(next(source.rows()).cells["bannedWorkers"]) == MAX_CELL_CHARS


def test_a_bare_carriage_return_is_a_line_error(tmp_path: Path) -> None:
    path = tmp_path / "cr.csv"
    path.write_bytes(b"name,address\nA,x\nB,one\rtwo\n")
    with CsvInput(str(path)) as source, pytest.raises(BulkError, match=r"cr.csv: line 3: a line break \(CR\)"):
        list(source.rows())


def test_not_utf8_after_a_record_of_several_lines_names_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "late.csv"
    path.write_bytes(b'\xef\xbb\xbfname;address\r\n"A";"one\r\ntwo"\r\nB;caf\xe9\r\n')
    with CsvInput(str(path)) as source, pytest.raises(BulkError) as info:
        list(source.rows())
    assert "late.csv: line 4 is not UTF-8: byte 0xe9 at position 6 (it looks like Windows-1252" in info.value.message


def test_records_are_the_rows_by_position(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text('name,address,\nA,"1\n2",\n,,\nB\nC,3,,\nD,4,x\n', encoding="utf-8")
    with CsvInput(str(path)) as source:
        records = list(source.records())
        assert [(r.number, r.line, list(r.cells.values()), r.extra) for r in source.rows()] == \
            [(n, line, cells, extra) for n, line, cells, extra in records] == \
            [(1, 2, ["A", "1\n2"], 0), (2, 5, ["B", ""], 0), (3, 6, ["C", "3"], 0), (4, 7, ["D", "4"], 1)]
        assert source.blank_rows == 1
