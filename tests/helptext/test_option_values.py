"""A bad option value is one plain line in wfctl's words, not pydantic's (issue 15 §3)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize(("args", "line"), [
    (["sites", "list", "--page-size", "abc"], "error: --page-size: 'abc' is not a whole number"),
    (["sites", "list", "--page-size", "1.5"], "error: --page-size: '1.5' is not a whole number"),
    (["sites", "list", "--page-size", "0"], "error: --page-size: 0 is too small (at least 1)"),
    (["sites", "list", "--page-size", "-3"], "error: --page-size: -3 is too small (at least 1)"),
    (["sites", "import", "x.csv", "-j", "999"], "error: --concurrency: 999 is too large (at most 256)"),
])
def test_one_plain_line_exit_2(cli: Any, args: list[str], line: str) -> None:
    r = cli("--base-url", "http://127.0.0.1:9", *args)
    assert r.exit_code == 2, r
    assert r.stderr == line + "\n"
    assert r.stdout == ""


@pytest.mark.parametrize("spelling", [" 5", "1_000", "+7"])
def test_typers_spellings_are_still_accepted(cli: Any, spelling: str) -> None:
    r = cli("--base-url", "http://127.0.0.1:9", "sites", "list", "--page-size", spelling)
    assert "page-size" not in r.stderr, r


def test_a_bad_choice_names_the_choices(cli: Any) -> None:
    r = cli("-o", "xml", "sites", "list")
    assert r.exit_code == 2, r
    assert r.stderr.startswith("error: --output: 'xml' is not one of table, ")
    assert r.stderr.endswith(", json, jsonl, csv, yaml\n") and r.stderr.count("\n") == 1
