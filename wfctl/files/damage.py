"""What a spreadsheet does to text it opens and saves again, told apart from an edit (issue 21 §3).

A spreadsheet that opens a CSV takes any cell that looks like a number for one, and writes it back as
that number: leading zeros gone (`01614960000` -> `1614960000`), digits past the 15th zeroed
(`4000123412341234` -> `4000123412341230`), a long one in E-notation (`1.23456789012346E+018`). Opened in
its default charset (Windows-1252), UTF-8 text is read byte by byte and saved as UTF-8 again:
`Müller` -> `MÃ¼ller`, `東京` -> `æ±äº¬` (bytes Windows-1252 has no character for are dropped).
A program also changes text it keeps as text, in any cell (issue 43): LibreOffice makes a CRLF inside a
cell LF on every save, Gnumeric writes a workbook's escapes into a CSV (`_x000D_`, `_x005F_x0041_`), and
a workbook cell holds 32,767 characters at most (a longer one is cut when a program saves it).

    explain(old, new)        # why `new` looks like a spreadsheet's version of `old`, or None
    names_like(name, names)  # the names of `names` that `name` is such a version of
    reads_like_mojibake(b)   # whether UTF-8 bytes read like UTF-8 decoded as Windows-1252 and re-encoded

Standard library only; nothing here is imported unless a plan is reviewed or a file looks damaged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from wfctl.files.sheetwriter import MAX_CELL

NUMBER = "looks like a spreadsheet turned this text into a number"
MOJIBAKE = "looks like a spreadsheet read this UTF-8 text as Windows-1252"
QUESTION_MARKS = "looks like a spreadsheet saved this text as Windows-1252, which has no such letters (a ? for each)"
CONVERTED = "looks like a spreadsheet turned this text into "  # + a date, a time, a boolean (sheetreadings.py)
LINE_ENDS = "looks like a spreadsheet turned this text's line ends (CRLF) into LF"
ESCAPES = "looks like a spreadsheet wrote this text's workbook escapes (_xHHHH_) as text"
CUT = "looks like the program that saved the workbook cut this cell at 32,767 characters, the most a cell holds"
#: Reasons a workbook cell typed as text does not rule out (typedtext.py): a spreadsheet types only what is
#: typed into a General cell, but changes line ends, writes escapes and cuts long text in any cell.
ANY_CELL = frozenset({LINE_ENDS, ESCAPES, CUT})

#: Significant digits a spreadsheet keeps of a number (IEEE double, as Excel and LibreOffice show it).
DIGITS = 15

_DIGITS = re.compile(r"\+?[0-9]+")
_E_NOTATION = re.compile(r"([0-9])(?:[.,]([0-9]+))?[eE]([+-]?[0-9]+)")
# Windows-1252 has no character for these bytes: a spreadsheet drops them, or keeps them another way
_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")
# UTF-8 bytes of the text a UTF-8 sequence becomes when read as Windows-1252 and saved as UTF-8: a lead
# byte's character (U+00C2..U+00F4, `Ã`, `æ`...) then a continuation byte's (U+0080..U+00BF, or one of
# Windows-1252's letters and signs at 0x80..0x9F: `€`, `‚`, `™`...)
_MOJIBAKE_BYTES = re.compile(
    rb"\xc3[\x82-\xb4](?:\xc2[\x80-\xbf]|\xe2(?:\x80[\x93-\xba]|\x82\xac|\x84\xa2)|[\xc5\xc6\xcb][\x80-\xbf])")


def explain(old: Any, new: Any) -> str | None:
    """Why `new` looks like what a spreadsheet made of `old` (NUMBER, MOJIBAKE, LINE_ENDS...), or None: a
    real edit, or no change. Lists and objects (banned workers, departments) are compared item by item:
    each the same or damaged, at least one damaged; or the whole cell cut (CUT)."""
    if isinstance(old, str) and isinstance(new, str):
        if old == new:
            return None
        if "\r" in old and new == old.replace("\r\n", "\n"):
            return LINE_ENDS  # LibreOffice, every save (xlsx and CSV); Gnumeric reading a CSV
        if "_x" in new and _escaped_of(old, new):
            return ESCAPES
        if len(new) >= _CUT_AT and _cut_of(old, new):
            return CUT
        if _number_of(old, new):
            return NUMBER
        if _mojibake_of(old, new):
            return MOJIBAKE
        if "?" in new and _question_marks_of(old, new):
            return QUESTION_MARKS
        from wfctl.files.sheetreadings import converted

        kind = converted(old, new)
        return None if kind is None else CONVERTED + kind
    if isinstance(old, list) and isinstance(new, list):
        if len(old) == len(new):
            return _all_same_or_damaged(zip(old, new, strict=True))
        return CUT if len(new) < len(old) and _cut_of(_cell(old), _cell(new)) else None
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return _all_same_or_damaged((old[k], new[k]) for k in old)
    return None


def _all_same_or_damaged(pairs: Iterable[tuple[Any, Any]]) -> str | None:
    reason = None
    for old, new in pairs:
        if old == new:
            continue
        why = explain(old, new)
        if why is None:
            return None
        reason = reason or why
    return reason


def names_like(name: str, names: Iterable[str]) -> list[str]:
    """The names of `names` that `name` is a spreadsheet's version of (`427` of `0427`, `MÃ¼ller` of
    `Müller`); compared trimmed, as names are."""
    name = name.strip()
    if not suspect_name(name):
        return []
    return [other for other in names if other.strip() != name and explain(other.strip(), name) is not None]


def reads_like_mojibake(data: bytes) -> bool:
    """Whether UTF-8 `data` holds a character pair that UTF-8 read as Windows-1252 and saved again makes
    (`Ã¼` for `ü`), and that pair decodes back to one character."""
    for match in _MOJIBAKE_BYTES.finditer(data):
        if _unmojibake(match.group().decode("utf-8", "replace")) is not None:
            return True
    return False


def example(data: bytes) -> tuple[str, str] | None:
    """The first damaged word of `data` that decodes back, and what it was (`MÃ¼ller`, `Müller`)."""
    seps = (b" ", b",", b";", b"\t", b"\n", b"\r", b'"')
    for match in _MOJIBAKE_BYTES.finditer(data):
        start = max(data.rfind(sep, 0, match.start()) for sep in seps) + 1
        ends = [i for i in (data.find(sep, match.end()) for sep in seps) if i >= 0]
        word = data[start:min(ends) if ends else len(data)][:60].decode("utf-8", "replace")
        fixed = _unmojibake(word)
        if fixed and "\ufeff" not in fixed:  # a BOM read as `ï»¿` is named on its own (reader.py)
            return word, fixed
    return None


# -- numbers ------------------------------------------------------------------------------------------

def _could_be_number(text: str) -> bool:
    return bool(_DIGITS.fullmatch(text) or _E_NOTATION.fullmatch(text))


def _number_of(old: str, new: str) -> bool:
    """Whether `new` is the number a spreadsheet makes of the digit string `old`, written back."""
    if not _DIGITS.fullmatch(old):
        return False
    digits = old.lstrip("+")
    shown = digits.lstrip("0") or "0"
    if new == shown:
        return True  # leading zeros (and a leading +) dropped
    value = Decimal(shown)
    if _DIGITS.fullmatch(new):
        if new.lstrip("+") == digits:
            return False
        return len(shown) > DIGITS and Decimal(new) in (_significant(value, DIGITS), _truncated(shown))
    match = _E_NOTATION.fullmatch(new)
    if match is None:
        return False
    try:
        written = Decimal(new.replace(",", "."))
    except InvalidOperation:
        return False
    kept = 1 + len(match.group(2) or "")  # the mantissa's significant digits
    return written == _significant(value, kept)


def _significant(value: Decimal, digits: int) -> Decimal:
    """`value` rounded to `digits` significant digits (half up, as spreadsheets round)."""
    if not value:
        return value
    exponent = value.adjusted() - digits + 1
    return value.quantize(Decimal(1).scaleb(exponent), rounding="ROUND_HALF_UP") if exponent > 0 else value


def _truncated(digits: str) -> Decimal:
    return Decimal(digits[:DIGITS] + "0" * (len(digits) - DIGITS))


# -- what a program does to any cell: line ends, escapes, a cut ---------------------------------------

def _escaped_of(old: str, new: str) -> bool:
    """Whether `new` is `old` with its control characters (and a literal `_x`) written as a workbook's
    escapes, `_x000D_`, `_x005F_x0041_` (Gnumeric saving a workbook as CSV: measured, 1.12), and its
    line ends maybe LF as well."""
    from wfctl.files.cellformat import decoded

    meant = decoded(new)
    return meant != new and meant in (old, old.replace("\r\n", "\n"))


def _cut_of(old: str, new: str) -> bool:
    """Whether the cell text `new` is `old` cut at a cell's most characters (UTF-16 units, as Excel
    counts them; LibreOffice cuts the same, measured 7.4); its last entry's escape may be cut in two."""
    return (len(old) > len(new) >= _CUT_AT and MAX_CELL - 3 <= _utf16(new) <= MAX_CELL < _utf16(old)
            and old.startswith(new[:-2]))


def cut_cell(cell: str) -> bool:
    """Whether a cell of a new row is as long as one a program cut at a workbook cell's most (32,767 UTF-16
    units, up to 3 fewer where the cut split a character or an entry's escape): no one types so many."""
    return len(cell) >= _CUT_AT and MAX_CELL - 3 <= _utf16(cell) <= MAX_CELL


def _cell(value: list[Any]) -> str:
    """A list as the file's cell writes it (csvformat): entries joined by `|`, each escaped."""
    from wfctl.files.csvformat import encode_cell

    first = value[0] if value else None
    column = ("rates" if isinstance(first, dict) and "skill" in first else
              "departments" if isinstance(first, dict) else "bannedWorkers")
    return encode_cell(column, value, protect=False)


def _utf16(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF) if not text.isascii() else len(text)


_CUT_AT = MAX_CELL // 2 - 2  # a cut cell holds at least this many characters (all outside the BMP: two units each)


# -- charsets ------------------------------------------------------------------------------------------

def _question_marks_of(old: str, new: str) -> bool:
    """Whether `new` is `old` saved in Windows-1252 ("CSV" in Excel's Save as), each character it has
    none for written as `?` (`東京 Warehouse` -> `?? Warehouse`, `Gdańsk` -> `Gda?sk`); one outside the
    BMP (an emoji, two UTF-16 units) as one or two."""
    if old.isascii() or ("?" in old and old.count("?") >= new.count("?")):
        return False
    pattern = "".join(re.escape(ch) if _in_cp1252(ch) else ("\\?{1,2}" if ord(ch) > 0xFFFF else "\\?")
                      for ch in old)
    return re.fullmatch(pattern, new) is not None


def _in_cp1252(ch: str) -> bool:
    try:
        ch.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def _mojibake_of(old: str, new: str) -> bool:
    """Whether `new` is `old` in UTF-8 read as Windows-1252 and saved again; a byte Windows-1252 has no
    character for dropped (Excel), kept as a C1 control, or as U+F1xx (LibreOffice: measured, 7.4)."""
    if old.isascii() or new.isascii():
        return False
    raw = old.encode("utf-8")
    return any(new == _cp1252(raw, undefined) for undefined in _UNDEFINED_AS)


_UNDEFINED_AS = (lambda b: "", chr, lambda b: chr(0xF100 + b))


def _cp1252(raw: bytes, undefined: Any) -> str:
    return "".join(undefined(b) if b in _UNDEFINED else _CP1252[b] for b in raw)


_CP1252 = [bytes([b]).decode("cp1252", errors="replace") for b in range(256)]


def _unmojibake(text: str) -> str | None:
    """`text` read back as the UTF-8 it was before a Windows-1252 reading, if it decodes; else None."""
    try:
        raw = bytes(ord(ch) if 0x80 <= ord(ch) <= 0x9F else ord(ch) - 0xF100 if 0xF180 <= ord(ch) <= 0xF19F
                    else ch.encode("cp1252")[0] for ch in text)
        fixed = raw.decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError, ValueError):
        return None
    return fixed if fixed != text else None


# -- a plan reviewed ----------------------------------------------------------------------------------

class Finding:
    """One change of a plan that looks like a spreadsheet's doing."""

    def __init__(self, row: int, name: str, field: str, old: Any, new: Any, reason: str) -> None:
        self.row, self.name, self.field, self.old, self.new, self.reason = row, name, field, old, new, reason

    def __str__(self) -> str:
        from wfctl.text.changes import texts
        from wfctl.text.safetext import one_line, quoted

        if self.field == "name" and self.old is None:
            return one_line(f"row {self.row}: creates {quoted(self.new)} beside {self.reason}")
        if self.reason == CUT and self.old is None:  # a new row's cell: only its length says it
            return one_line(f"row {self.row} ({self.name}): {self.field}: a new cell of {len(str(self.new)):,} "
                            f"characters, ending {quoted(str(self.new)[-40:])}: {self.reason}")
        if self.reason == CUT:  # not twice the whole cell: its length, and where the cut one ends
            old, new = (_cell(v) if isinstance(v, list) else str(v) for v in (self.old, self.new))
            return one_line(f"row {self.row} ({self.name}): {self.field}: a cell of {len(old):,} characters -> "
                            f"{len(new):,}, ending {quoted(new[-40:])}: {self.reason}")
        before, after = texts(self.old, self.new)  # line ends written out where only they differ
        return one_line(f"row {self.row} ({self.name}): {self.field}: {before} -> {after}: {self.reason}")


def review(changes: Iterable[Any], existing: dict[Any, dict[str, Any]],
           creates: Iterable[tuple[int, str, Any]] | None = None,
           cut: dict[int, tuple[str, list[tuple[str, str]]]] | None = None) -> list[Finding]:
    """The rows of a plan (its `changes`: each row's entry, with its status, name, changes and parent)
    whose changes look like what a spreadsheet does to text: an update whose every changed value of a
    field is such a variant, and a create whose name is such a variant of the name of an existing record
    (`existing`: the plan's inventory, (parent, key) -> record) in the same parent. `creates`: the
    plan's creates with a suspect name, (row, name, parent), when `changes` holds none (a dry run's
    journal: a plan's creates are not journalled). `cut`: the plan's creates with a cell as long as a
    cut one, row -> (name, [(column, cell)]) (newrows.py)."""
    seen = Review()
    seen.cut(cut or {})
    for entry in changes:
        if entry.status == "updated":
            seen.update(entry.row, entry.name, entry.changes)
        elif entry.status == "created":
            seen.create(entry.row, entry.name, entry.parent or None)
    for row, name, parent in creates or ():
        seen.create(row, name, parent or None)
    return seen.findings(existing)


class Review:
    """A plan's rows told one by one (`update`, `create`; under the caller's lock when threads tell
    them), then its findings (`findings`, given the records read once)."""

    def __init__(self) -> None:
        self._found: list[Finding] = []
        self._created: dict[int, tuple[str, Any]] = {}  # row -> (name, parent id): suspect names only

    def update(self, row: int, name: str, changes: dict[str, Any]) -> None:
        """An update of the record `name` by `changes` (field -> [old, new])."""
        for field, pair in changes.items():
            reason = explain(pair[0], pair[1])
            if reason is not None:
                self._found.append(Finding(row, name, field, pair[0], pair[1], reason))

    def cut(self, creates: dict[int, tuple[str, list[tuple[str, str]]]]) -> None:
        """The creates of rows whose cells are as long as a cut cell: row -> (name, [(column, cell)])."""
        for row, (name, cells) in creates.items():
            self._found.extend(Finding(row, name, column, None, cell, CUT) for column, cell in cells)

    def create(self, row: int, name: str, parent: Any) -> None:
        """A create of `name` under `parent` (its id; None for a kind without a parent)."""
        if suspect_name(name):
            self._created[row] = (name, parent)

    def findings(self, existing: dict[Any, dict[str, Any]]) -> list[Finding]:
        """Every finding, by row; a create is compared with the names of `existing` (parent, key) -> record."""
        from wfctl.api.records.recordrules import natural_key
        from wfctl.text.safetext import quoted

        findings = list(self._found)
        if self._created:
            names: dict[Any, list[str]] = {}
            for (parent, _), record in existing.items():
                held = str(record.get("name") or "")
                if not held.isascii() or not held.isprintable() or "_x" in held or _readable(
                        held.strip(), lenient=True):  # `0427`, `Mar 1`, `(123)`; `_x0041_`, a line break
                    names.setdefault(parent, []).append(held)
            for number, (name, parent) in self._created.items():
                if (parent, natural_key(name)) in existing:
                    continue
                for other in names_like(name, names.get(parent, ())):
                    reason = explain(other.strip(), name.strip()) or NUMBER
                    findings.append(Finding(number, name, "name", None, name, f"the existing {quoted(other)}: it {reason}"))
        findings.sort(key=lambda f: f.row)
        return findings


def suspect_name(name: str) -> bool:
    """Whether a new record's name may be a spreadsheet's doing (a number, not ASCII, a `?`, a value a
    spreadsheet reads), so that the review compares it with the existing names."""
    name = name.strip()
    return (_could_be_number(name) or not name.isascii() or "?" in name or "_x" in name
            or _readable(name, written=True))


def _readable(text: str, *, written: bool = False, lenient: bool = False) -> bool:
    """Whether a spreadsheet reads `text` as a value (in a form it writes, with `written`); `lenient`: any
    text, words too (`Mar 1`), else only one that starts as a number or is a boolean's word."""
    if not text or not (lenient or text[0].isdigit() or text[0] in "+-($£€¥." or text.lower() in _WORDS):
        return False
    from wfctl.files.sheetreadings import readings

    return bool(readings(text, written=written))


_WORDS = frozenset({"true", "false", "wahr", "falsch", "vrai", "faux"})
