"""A change that is only a spreadsheet program's, told apart from an edit (issue 43), one pair at a time:
line ends (LibreOffice makes every CRLF inside a cell LF), workbook escapes written as text (Gnumeric saving
a workbook as CSV), a cell cut at 32,767 characters (LibreOffice and Excel saving a workbook), Excel's
display of a date typed without a year (`d-mmm`, saved so in a CSV: Excel is not on this machine, so the
pairs are Excel's documented display, as its files hold it) and Gnumeric's accounting format. The real
programs are driven in tests/spreadsheet/test_program_changes.py."""

from __future__ import annotations

from typing import Any

import pytest

from wfctl.files import damage
from wfctl.files.csvformat import encode_cell

DATE = "looks like a spreadsheet turned this text into a date"
NUMBER = "looks like a spreadsheet turned this text into a number"
LINE_ENDS = "looks like a spreadsheet turned this text's line ends (CRLF) into LF"
ESCAPES = "looks like a spreadsheet wrote this text's workbook escapes (_xHHHH_) as text"
CUT = "looks like the program that saved the workbook cut this cell at 32,767 characters, the most a cell holds"


@pytest.mark.parametrize(("old", "new", "why"), [
    # LibreOffice 7.4, every save (xlsx and CSV, every locale); Gnumeric reading a CSV
    ("Unit 4\r\nDock Road", "Unit 4\nDock Road", LINE_ENDS), ("a\r\nb\r\nc", "a\nb\nc", LINE_ENDS),
    # Gnumeric 1.12 saving a workbook as CSV: control characters and a literal `_x` as escapes
    ("Unit 4\r\nDock Road", "Unit 4_x000D_\nDock Road", ESCAPES), ("a\x0bb", "a_x000B_b", ESCAPES),
    ("_x0041_ Depot", "_x005F_x0041_ Depot", ESCAPES), ("Tab\there", "Tab_x0009_here", ESCAPES),
    # Excel (en-US, en-GB): a date typed without a year shown (and saved in a CSV) as d-mmm
    ("1/2", "2-Jan", DATE), ("Mar 1", "1-Mar", DATE), ("3-4", "4-Mar", DATE), ("1 March", "1-Mar", DATE),
    ("1/2/24", "2-Jan-24", DATE),
    # Gnumeric typing `(123)` of a CSV it saves as a workbook: an accounting format, as the reader shows it
    ("(123)", "$(123.00)", NUMBER), ("(123)", " $(123.00)", NUMBER), ("(1,234)", "$(1,234.00)", NUMBER),
])
def test_a_programs_change_is_named(old: str, new: str, why: str) -> None:
    assert damage.explain(old, new) == why
    assert damage.explain([old, "W-1"], [new, "W-1"]) == why  # a list cell, item by item


@pytest.mark.parametrize(("old", "new"), [
    # a person's line ends and edits
    ("1 Quay St\nLeeds", "1 Quay St\r\nLeeds"), ("Unit 4\r\nDock Road", "Unit 5\nDock Road"),
    ("Unit 4\r\nDock Road", "Unit 4, Dock Road"), ("Unit 4\nDock", "Unit 4_x000D_\nDock"),
    ("Depot", "Depot_x0041_"), ("_x0041_", "_x0042_"),
    # not Excel's forms, or not a date to anyone
    ("1-2", "2026/01/02"), ("3-4", "4-Apr"), ("Mar 1", "1-mar"), ("1.5", "1-May"), ("W-1", "1-Jan"),
    ("(123)", "$(124.00)"), ("123", "$(123.00)"),
])
def test_an_edit_is_not_named(old: str, new: str) -> None:
    assert damage.explain(old, new) is None


def workers(count: int, width: int = 7) -> list[str]:
    return [f"W{i:0{width}d}" for i in range(count)]


def cut(value: list[str], at: int = 32_767) -> list[str]:
    """The banned workers a program reads back from their cell cut at `at` characters."""
    return encode_cell("bannedWorkers", value, protect=False)[:at].split("|")


@pytest.mark.parametrize("width", [6, 7])  # the cut at an entry's end, or inside one (a worker id cut short)
def test_a_cell_cut_at_32767_characters_is_named(width: int) -> None:
    old = workers(7000, width)
    new = cut(old)
    assert len(new) < len(old) and (new[-1] == old[len(new) - 1]) == (width == 6)
    assert damage.explain(old, new) == CUT
    assert damage.explain("x" * 40_000, "x" * 32_767) == CUT
    # in UTF-16 units, as Excel counts: a character outside the BMP is two
    assert damage.explain("😀" * 20_000, "😀" * 16_383) == CUT


@pytest.mark.parametrize(("old", "new"), [
    (workers(7000), workers(6999)),  # a person removing one entry
    (workers(7000), cut(workers(7000), 30_000)),  # shorter than a cut cell
    (workers(3000), cut(workers(7000))),  # the old cell held no more than a cell holds
    ("x" * 40_000, "y" * 32_767),
])
def test_a_long_cells_edit_is_not_a_cut(old: Any, new: Any) -> None:
    assert damage.explain(old, new) is None


def test_a_create_beside_a_name_escaped_or_with_its_line_ends_changed_is_named() -> None:
    review = damage.Review()
    review.create(3, "_x005F_x0041_ Depot", "c1")
    review.create(4, "North_x000D_\nYard", "c1")
    existing = {("c1", "_x0041_ depot"): {"name": "_x0041_ Depot"}, ("c1", "north\r\nyard"): {"name": "North\r\nYard"}}
    assert [str(f) for f in review.findings(existing)] == [
        f"row 3: creates '_x005F_x0041_ Depot' beside the existing '_x0041_ Depot': it {ESCAPES}",
        f"row 4: creates 'North_x000D_ Yard' beside the existing 'North Yard': it {ESCAPES}"]


def test_an_update_finding_shows_the_line_ends() -> None:
    review = damage.Review()
    review.update(2, "Dock 4", {"address": ["Unit 4\r\nDock Road", "Unit 4\nDock Road"]})
    assert [str(f) for f in review.findings({})] == [
        f"row 2 (Dock 4): address: Unit 4\\r\\nDock Road -> Unit 4\\nDock Road: {LINE_ENDS}"]


def test_a_cut_cell_is_said_by_its_length_and_its_end() -> None:
    review = damage.Review()
    old = workers(7000)
    review.update(2, "Dock 4", {"bannedWorkers": [old, cut(old)]})
    assert [str(f) for f in review.findings({})] == [
        f"row 2 (Dock 4): bannedWorkers: a cell of 62,999 characters -> 32,767, ending "
        f"'03636|W0003637|W0003638|W0003639|W000364': {CUT}"]


def test_a_new_rows_cell_as_long_as_a_cut_one_is_named_by_its_length() -> None:
    cut_cell = encode_cell("bannedWorkers", workers(7000), protect=False)[:32_767]
    assert damage.cut_cell(cut_cell) and damage.cut_cell("😀" * 16_383)  # UTF-16 units, as Excel counts
    assert not damage.cut_cell(cut_cell[:30_000]) and not damage.cut_cell("x" * 32_768)
    review = damage.Review()
    review.cut({3: ("Dock 9", [("bannedWorkers", cut_cell)])})
    assert [str(f) for f in review.findings({})] == [
        f"row 3 (Dock 9): bannedWorkers: a new cell of 32,767 characters, ending "
        f"'03636|W0003637|W0003638|W0003639|W000364': {CUT}"]
