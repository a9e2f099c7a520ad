"""`wfctl help csv` prints the CSV format, shipped in the package; every import's help points to it; the
docs name no file outside the repository (issue 15 §3)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_help_csv_prints_the_format_as_text(cli: Any) -> None:
    """The topic is docs/csv.md rendered as text (issue 24 §4): headings underlined, no Markdown marks,
    a table's row as a block naming each cell's column, lines within 80 columns in a pipe."""
    r = cli("help", "csv")
    assert r.exit_code == 0, r
    assert r.stderr == ""
    assert r.stdout.splitlines()[:2] == ["CSV import and export", "====================="]
    assert "  rates\n      cell: SKILL=RATE joined by |\n      example: Forklift Driver=13.25|Picker=11.60\n" \
        in r.stdout
    for mark in ("```", "**", "`", "](", "\\|", "\n#"):
        assert mark not in r.stdout, mark
    prose = [line for line in r.stdout.splitlines() if not line.startswith("    ")]  # code blocks stay verbatim
    assert max(len(line) for line in prose) <= 80
    docs = (REPO / "docs" / "csv.md").read_text(encoding="utf-8")
    assert r.stdout.count("\n    wfctl sites import") == docs.count("\nwfctl sites import")


def test_the_shipped_copy_is_docs_csv_md() -> None:
    shipped = REPO / "wfctl" / "topics" / "csv.md"
    assert shipped.read_text(encoding="utf-8") == (REPO / "docs" / "csv.md").read_text(encoding="utf-8"), \
        "docs/csv.md changed: cp docs/csv.md wfctl/topics/csv.md"


def test_the_copy_is_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "topics/*.md" in config["tool"]["setuptools"]["package-data"]["wfctl"]


def test_help_lists_the_csv_topic(cli: Any) -> None:
    r = cli("help", "--help")
    assert r.exit_code == 0, r
    assert re.search(r"^  csv +Describe the CSV format of import, export and -o csv\.$", r.stdout, re.M), r.stdout


@pytest.mark.parametrize("kind", ["sites", "clients", "branches"])
def test_import_help_points_to_help_csv(cli: Any, kind: str) -> None:
    r = cli(kind, "import", "--help")
    assert r.exit_code == 0, r
    assert "  The CSV format: run `wfctl help csv`.\n" in r.stdout
    assert "docs/csv.md" not in r.stdout


def test_docs_name_no_file_outside_the_repository() -> None:
    for path in sorted((REPO / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for outside in ("contract.md", "../shared", "api/openapi.yaml"):
            assert outside not in text, f"{path.name} names {outside}"
