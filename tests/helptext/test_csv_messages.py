"""CSV cell messages (issue 15 §3): every problem in a cell, the text as written, a hint for a decimal
comma, the column as the file names it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, write
from wfctl.files import csvformat as cf


@pytest.mark.parametrize(("decode", "cell", "problems"), [
    (cf.decode_rates, "Forklift=13,25|Picker=ABC|Welder|Packer=-3", [
        "rate of 'Forklift': '13,25' is not a number; use a point: 13.25",
        "rate of 'Picker': 'ABC' is not a number",
        "'Welder' is not SKILL=RATE",
        "rate of 'Packer': -3 is negative; a rate must be 0 or more"]),
    (cf.decode_departments, "A:b:c:d||Goods In:Ann|X:Y:Z:W", [
        "'A:b:c:d' is not NAME:CONTACT:EMAIL (escape a literal ':' as '\\:')",
        "an empty department between two '|' (remove the extra '|')",
        "'X:Y:Z:W' is not NAME:CONTACT:EMAIL (escape a literal ':' as '\\:')"]),
], ids=["rates", "departments"])
def test_every_problem_in_a_cell(decode: Any, cell: str, problems: list[str]) -> None:
    with pytest.raises(cf.CellError) as info:
        decode(cell)
    assert info.value.problems == problems


@pytest.mark.parametrize("text", ["13,25", "7,5", "1000,00"])
def test_decimal_comma_hint(text: str) -> None:
    with pytest.raises(cf.CellError, match=r"; use a point: " + text.replace(",", r"\.") + "$"):
        cf.parse_number(text, what="rate")


def test_no_hint_for_other_text() -> None:
    with pytest.raises(cf.CellError) as info:
        cf.parse_number("1,2,3", what="rate")
    assert str(info.value) == "rate: '1,2,3' is not a number"


def test_boolean_keeps_the_text_as_written() -> None:
    with pytest.raises(cf.CellError) as info:
        cf.decode_bool("MAYBE Later")
    assert str(info.value) == "'MAYBE Later' is not a boolean (use true/false, yes/no or 1/0)"


def test_import_lists_every_problem_with_the_files_column_names(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    client = new_client(cli)
    path = write(tmp_path / "sites.csv",
                 "Name,Rates,AssessmentRequired\n"
                 'Dock 1,"Forklift=13,25|Picker=ABC",Maybe\n'
                 ",Forklift=13.25,TRUE\n")
    r = cli("sites", "import", str(path), "--client", client, "--dry-run")
    assert r.exit_code == 2, r
    lines = r.stderr.splitlines()
    assert lines[:4] == [
        "invalid: row 1 (line 2), column Rates: rate of 'Forklift': '13,25' is not a number; use a point: 13.25",
        "invalid: row 1 (line 2), column Rates: rate of 'Picker': 'ABC' is not a number",
        "invalid: row 1 (line 2), column AssessmentRequired: 'Maybe' is not a boolean "
        "(use true/false, yes/no or 1/0)",
        "invalid: row 2 (line 3), column Name: must not be empty",
    ]
