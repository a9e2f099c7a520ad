"""Fuzz the CSV reader and the cell decoders through the real `sites import` (issue 12): whatever the file
holds (random bytes, BOMs, CR/LF/CRLF, `;`, quotes, NULs, cells over the size limit, odd headers, hostile
numbers), wfctl answers with lines a person can read and exit 0, 2, 6 or 10, never a traceback, and a
file with an invalid row sends nothing. Bounded: a few seconds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bulk.helpers import new_client
from wfctl.files.csvformat import known_columns
from wfctl.files.reader import MAX_CELL_CHARS

FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

HEADERS = [*sorted(known_columns("site")), "Name", "NAME", " name ", "CLIENT", "ClientId", "BANNEDWORKERS",
           "", "colour", "ｎａｍｅ", "=cmd()", "name\x00", "a;b", 'say "hi"', "name,x", "\ufeffname"]
CELL_TEXT = st.text(alphabet=st.sampled_from([*"aZ09 ßé€=:|\\[]{}\"';,.-+@\t\r\n\x00\x1b\u2028\ufeff"]),
                    max_size=30)
HOSTILE_CELLS = st.sampled_from([
    "w=1e999999999", "w=-1e999999999", "w=1e-999999999", "w=" + "9" * 50, "w=NaN", "w=12.345", "w=12.50|w=1",
    '[{"skill": "w", "hourlyRate": 1e999999999}]', '[{"skill": "w", "hourlyRate": ' + "9" * 5000 + "}]",
    "[" * 5000, "[1,", "[]", '["a", 1]', "a:b:c:d", "\\", "w\\", "maybe", "true", "", "'=1+1", "@SUM(A1)",
    "x" * 250, "x" * (MAX_CELL_CHARS + 1), '"never closed',
])
CELL = st.one_of(CELL_TEXT, HOSTILE_CELLS)


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """A file shaped like CSV: a header and rows, any delimiter and line end, quoted or not."""
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    header = draw(st.lists(st.sampled_from(HEADERS), min_size=1, max_size=6))
    rows = draw(st.lists(st.lists(CELL, max_size=8), max_size=5))

    def line(cells: list[str]) -> str:
        quote = draw(st.booleans())
        return delimiter.join('"' + c.replace('"', '""') + '"' if quote else c for c in cells)

    text = newline.join(line(cells) for cells in [header, *rows])
    if draw(st.booleans()):
        text += newline
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data


FILES = st.one_of(csv_files(), st.binary(max_size=400))


def check(r: Any) -> None:
    assert r.exit_code in (0, 2, 6, 10), r
    assert "Traceback" not in r.stderr and "unexpected error" not in r.stderr, r
    if r.exit_code:
        assert r.stderr.strip(), r


def site_count(cli: Any, client_id: str) -> int:
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return len(json.loads(r.stdout))


@pytest.mark.timeout(120)
def test_any_file_ends_in_a_clear_answer(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "fuzz.csv"

    @FUZZ
    @given(data=FILES)
    def run(data: bytes) -> None:
        path.write_bytes(data)
        check(cli("sites", "import", str(path), "--client", cid, "--dry-run"))

    run()
    assert site_count(cli, cid) == 0  # a dry run sends nothing


INVALID_CELLS = st.sampled_from([
    ("rates", "w=1e999999999"), ("rates", "w=-1"), ("rates", "w=12.345"), ("rates", "welder"),
    ("rates", "[" * 5000), ("email", "not-an-email"), ("assessmentRequired", "maybe"), ("name", ""),
    ("departments", "a:b:c:d"), ("bannedWorkers", "w1||w2"), ("address", "x" * 501),
])


@st.composite
def files_with_an_invalid_row(draw: st.DrawFn) -> bytes:
    columns = ["name", "address", "email", "assessmentRequired", "rates", "departments", "bannedWorkers"]
    count = draw(st.integers(min_value=1, max_value=6))
    rows = [{"name": f"Fuzz site {i}", "rates": draw(st.sampled_from(["", "w=12.50", "a=1|b=2"]))}
            for i in range(count)]
    column, text = draw(INVALID_CELLS)
    bad = {"name": "Bad row", "departments": "Yard", column: text}  # never all empty: that is a blank row
    rows.insert(draw(st.integers(min_value=0, max_value=count)), bad)
    lines = [",".join(columns)] + [",".join(f'"{row.get(c, "")}"' for c in columns) for row in rows]
    return ("\r\n".join(lines) + "\r\n").encode()


@pytest.mark.timeout(120)
def test_a_file_with_an_invalid_row_sends_nothing(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "fuzz.csv"

    @settings(FUZZ, max_examples=30)
    @given(data=files_with_an_invalid_row())
    def run(data: bytes) -> None:
        path.write_bytes(data)
        r = cli("sites", "import", str(path), "--client", cid)
        check(r)
        assert r.exit_code == 2 and "nothing was sent" in r.stderr, r

    run()
    assert site_count(cli, cid) == 0
