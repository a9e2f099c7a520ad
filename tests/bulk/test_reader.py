"""Reading input files: BOM, CRLF, `;`, quoted delimiters and newlines, encodings."""

from __future__ import annotations

from pathlib import Path

import pytest

from wfctl.bulk.reader import CsvInput
from wfctl.errors import CliError

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
    with pytest.raises(CliError, match="one character"):
        CsvInput(str(DATA / "semicolon.csv"), delimiter=";;")


def test_quoted_delimiters_and_newlines() -> None:
    (row,) = rows("quoted.csv")
    assert row.cells["name"] == "Dock, North"
    assert row.cells["address"] == '12 "Quay" St\r\nFloor 2'
    assert row.cells["bannedWorkers"] == "w\\|1|w2"


def test_cp1252_is_a_clear_error() -> None:
    with pytest.raises(CliError) as info:
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
    with pytest.raises(CliError, match="empty"):
        CsvInput(str(tmp_path / "empty.csv"))
    with pytest.raises(CliError, match="no such file"):
        CsvInput(str(tmp_path / "nope.csv"))
