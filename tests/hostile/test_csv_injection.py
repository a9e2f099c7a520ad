"""Every CSV wfctl writes neutralises cells a spreadsheet would run as a formula (issue 12, Medium 4):
`api --paginate -o csv`, `agency show -o csv`, `get -o csv`, as `export` and `list -o csv` do."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN
from tests.resources.conftest import as_json

FORMULAS = ['=HYPERLINK("https://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def formula_branches(wf: Any, tag: str) -> list[str]:
    return [as_json(wf("branches", "create", f"--name={text}{tag}", "--phone", "+44 113 496 0000",
                       "-o", "json"))["id"] for text in FORMULAS if not text[0].isspace()]


def test_api_paginate_csv(wf: Any, formula_branches: list[str], tag: str) -> None:
    r = wf("api", "GET", "/api/branches", "--paginate", "-o", "csv")
    assert r.exit_code == 0, r
    names = {row["id"]: row["name"] for row in _rows(r.stdout)}
    assert sorted(names[i] for i in formula_branches) == sorted(
        "'" + text + tag for text in FORMULAS if not text[0].isspace())
    assert all(row["phone"] == "'+44 113 496 0000" for row in _rows(r.stdout) if row["id"] in formula_branches)


def test_get_csv(wf: Any, formula_branches: list[str]) -> None:
    r = wf("branches", "get", formula_branches[0], "-o", "csv")
    assert r.exit_code == 0, r
    assert _rows(r.stdout)[0]["name"].startswith("'=HYPERLINK(")


def test_agency_show_csv(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory()
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    r = cli("agency", "update", "--name", "=1+1", "--phone", "@cmd", "-o", "json")
    assert r.exit_code == 0, r
    r = cli("agency", "show", "-o", "csv")
    assert r.exit_code == 0, r
    (row,) = _rows(r.stdout)
    assert (row["name"], row["phone"]) == ("'=1+1", "'@cmd")
    assert row["holidayCapHours"] == "224.0"  # a number is no formula, and stays a number
