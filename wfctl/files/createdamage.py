"""New records whose cells look converted by a spreadsheet (issue 33 §1): a create has no stored value to
compare with, so its cells are compared with their column instead, the file's other rows and the
records of the same parents read for the plan.

    if in_file(source.path):  # one regex over the file: most files have no candidate, and no row is read
        for suspect in find(plan.create_bodies(), lambda: chain((row.body for row in plan.rows()), records)):
            warn(f"suspect: {suspect}")

- a phone (any text field) or a banned worker's id (an item of a list) that is digits with no leading
  zero, where the column's digit strings of its digits after their zeros start with 0 (`1615550000`
  beside `01615550001`, `7781` beside `007780`): a spreadsheet drops leading zeros, every one of them;
- a date or a time in a form a spreadsheet writes (`01/03/26`, `2026/01/02`, `12:30:00`), where the
  column's other values are not dates: a spreadsheet makes `1/3` a date.

A warning in the plan, never a stop: such a value may be meant (docs/csv.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

#: A digit string long enough to have lost a zero that mattered (`0999`; `07` -> `7` is left alone).
_LONG_DIGITS = re.compile(r"[1-9][0-9]{2,}")
_DIGITS = re.compile(r"[0-9]+")
# a cell that may be suspect (digits with no leading zero, a date or time as a spreadsheet writes it),
# between NULs: a row's text cells are searched joined, in one call
_CANDIDATE = re.compile("\\0(?:[1-9][0-9]{2,}|[0-9]{1,4}[/.-][0-9]{1,2}[/.-][0-9]{1,4}|"
                        "[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?: [AP]M)?)\\0")
# the file's bytes as classes: a delimiter, quote, line end or list separator `,`; 1-9 `1`; 0 `0`; `/.-` `/`; `:`; any
# other `a`. A candidate cell is then `,1[01]{2,},` (digits, no leading zero), a date or a time.
_CLASSES = bytes(ord(",") if b in b',;\t"\r\n|' else ord("1") if b in b"123456789" else b if b in b"0:" else
                 ord("/") if b in b"/.-" else ord("a") for b in range(256))
_CANDIDATE_MAPPED = re.compile(rb",(?:1[01]{2,}|[01]{1,4}/[01]{1,2}/[01]{1,4}|[01]{1,2}:[01]{2}:[01]{2}(?:aaa)?),")
_SKIPPED = frozenset({"id", "clientId", "branchId", "client", "branch"})


class Suspect:
    def __init__(self, row: int, name: str, field: str, value: str, why: str) -> None:
        self.row, self.name, self.field, self.value, self.why = row, name, field, value, why

    def __str__(self) -> str:
        from wfctl.text.safetext import one_line

        return one_line(f"row {self.row} ({self.name}): {self.field}: {self.value} {self.why}; "
                        "check the file (the row is sent as it is)")


def in_file(path: str) -> bool:
    """Whether the CSV file at `path` has a cell that may be suspect. Its bytes are mapped to a few
    classes (bytes.translate) and searched by one regex that starts with a literal, both in C: a file with
    none reads no row again."""
    tail = b","
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            mapped = tail + chunk.translate(_CLASSES)
            if _CANDIDATE_MAPPED.search(mapped + b","):
                return True
            tail = mapped[-40:]
    return False


def find(creates: Iterable[tuple[int, dict[str, Any]]],
         neighbours: Callable[[], Iterable[dict[str, Any]]]) -> list[Suspect]:
    """The suspect cells of `creates` ((row, body) of each record a plan creates), given their column's
    values in `neighbours()` (every row's body, and the records read). One pass finds the candidates, one
    regex a row; only when there are any are the neighbours read."""
    candidates: list[tuple[int, str, str, str]] = []  # (row, name, field, value)
    search = _CANDIDATE.search
    for row, body in creates:
        texts = [v for v in body.values() if type(v) is str]
        texts += [item for v in body.values() if type(v) is list for item in v if type(item) is str]
        if not search("\0" + "\0".join(texts) + "\0"):
            continue
        name = str(body.get("name", ""))
        for field, value in body.items():
            if field in _SKIPPED:
                continue
            for each in (value if type(value) is list else (value,)):
                if type(each) is str and _CANDIDATE.fullmatch("\0" + each.strip() + "\0"):
                    candidates.append((row, name, field, each))
    if not candidates:
        return []
    columns = _Columns({field for _, _, field, _ in candidates})
    for body in neighbours():
        columns.add(body)
    found: list[Suspect] = []
    for row, name, field, value in candidates:
        why = columns.why(field, value.strip())
        if why:
            found.append(Suspect(row, name, field, value, why))
    return found


class _Columns:
    """What each text column holds: its digit strings by length (with a leading zero or not), and how
    many of its values read as dates or times."""

    def __init__(self, fields: set[str]) -> None:
        self.fields = fields  # the columns of the candidates: the others are not read
        self.zero_led: dict[tuple[str, int], str] = {}  # (field, length after the zeros) -> an example
        self.digits: dict[tuple[str, int], int] = {}  # (field, length) -> digit strings without a leading 0
        self.zeros: dict[tuple[str, int], int] = {}  # (field, length after the zeros) -> digit strings with one
        self.values: dict[str, int] = {}
        self.dates: dict[str, int] = {}

    def add(self, body: dict[str, Any]) -> None:
        for field in self.fields:
            value = body.get(field)
            if type(value) is list:  # banned workers: each id is a value of the column
                for item in value:
                    if isinstance(item, str) and item:
                        self._add(field, item)
            elif isinstance(value, str) and value:
                self._add(field, value)

    def _add(self, field: str, value: str) -> None:
        value = value.strip()
        self.values[field] = self.values.get(field, 0) + 1
        if _DIGITS.fullmatch(value):
            if value.startswith("0"):  # by the length of its digits after the zeros a spreadsheet drops
                key = (field, len(value.lstrip("0")))
                self.zeros[key] = self.zeros.get(key, 0) + 1
                self.zero_led.setdefault(key, value)
            else:
                key = (field, len(value))
                self.digits[key] = self.digits.get(key, 0) + 1
        elif value[:1].isdigit() and _date_or_time(value):
            self.dates[field] = self.dates.get(field, 0) + 1

    def why(self, field: str, value: str) -> str:
        if _LONG_DIGITS.fullmatch(value):
            key = (field, len(value))
            zeros = self.zeros.get(key, 0)
            if zeros and zeros >= self.digits.get(key, 0):
                return (f"looks like a spreadsheet dropped its leading zero (other {field} values start with 0: "
                        f"{self.zero_led[key]})")
            return ""
        if value[:1].isdigit() and _date_or_time(value):
            dates = self.dates.get(field, 0)
            if dates * 2 <= self.values.get(field, 0):
                return "looks like a date or time a spreadsheet wrote (the column's other values are text)"
        return ""


def _date_or_time(value: str) -> bool:
    from wfctl.files.sheetreadings import WRITTEN_DATE, WRITTEN_TIME, readings

    if not (WRITTEN_DATE.fullmatch(value) or WRITTEN_TIME.fullmatch(value)):  # most cells: one regex, no more
        return False
    return any(reading[0] in ("date", "time") for reading in readings(value, written=True))
