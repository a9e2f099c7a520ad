"""How a spreadsheet reads text it opens, and how it writes what it read (issue 33 §1).

A spreadsheet that opens a CSV file takes each cell that looks like a number, a date, a time, a
percentage, an amount of money, a boolean or a negative in brackets for that value, in its locale
(English, German, French: `1.5` and `1,5`, `1/2` as 2 January or 1 February), and saves the value
back in a form of its own: `1E3` -> `1000` or `1.00E+03`, `13.50` -> `13.5`, `2024-03-01` ->
`2024/03/01`, `1/2` -> `2026/01/02`, `Mar 1` -> `01/03/26`, `50%` -> `0.5`, `(123)` -> `-123`,
`12:30` -> `12:30:00 PM`, `true` -> `TRUE`, `£13.50` -> `13.5`. Rather than a pattern per program, text
is normalised through a few converters:

    readings(text)            # every value a spreadsheet may read `text` as, in any of the locales
    readings(text, written=True)   # the same, only when `text` is in a form a spreadsheet writes
    converted(old, new)       # the kind of value ("a number", "a date"...) through which `old` became
                              # `new`, or None

`new` counts only when it is a form a spreadsheet writes (no leading zero, no trailing decimal zero
but where its format keeps them, upper-case booleans): a person putting back `0427` for `427`, or `true`
for `TRUE`, is not flagged. Standard library only; loaded when a plan is reviewed.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

Reading = tuple[Any, ...]  # ("number", Decimal) | ("date", year or None, month, day) | ("time", s) | ("boolean", b)

KINDS = {"number": "a number", "date": "a date", "time": "a time", "boolean": "a boolean"}

_BOOLEANS = {"true": True, "false": False, "wahr": True, "falsch": False, "vrai": True, "faux": False}
_WRITTEN_BOOLEANS = frozenset({"TRUE", "FALSE", "WAHR", "FALSCH", "VRAI", "FAUX"})

# -- numbers: an optional sign or brackets, currency, digits grouped by thousands, decimals, exponent, %
_SPACES = " \u00a0\u202f"
_CURRENCY = "$£€¥"
_NUMBER = re.compile(
    r"(?P<cur0>[" + _CURRENCY + r"])?[" + _SPACES + r"]?"
    r"(?P<open>\()?(?P<sign>[+-])?(?P<cur1>[" + _CURRENCY + r"])?[" + _SPACES + r"]?(?P<sign2>[+-])?"
    r"(?P<body>[0-9][0-9., '" + _SPACES[1:] + r"]*?)(?:[eE](?P<exp>[+-]?[0-9]{1,3}))?"
    r"[" + _SPACES + r"]?(?P<cur2>[" + _CURRENCY + r"])?[" + _SPACES + r"]?(?P<pct>%)?(?P<close>\))?(?P<trail>-)?")
# (decimal mark, thousands separators) of English, German, French (and Swiss) number formats
_LOCALES = ((".", ",'"), (",", ". " + _SPACES[1:]))
# forms a spreadsheet writes: plain (no leading zero, no trailing decimal zero), E-notation, a percentage
# or an amount with its format's decimals
_WRITTEN_PLAIN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:[.,][0-9]*[1-9])?")
_WRITTEN_E = re.compile(r"-?[0-9](?:[.,][0-9]+)?E[+-][0-9]{2,3}")
_WRITTEN_PERCENT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:[.,][0-9]+)? ?%")
_WRITTEN_MONEY = re.compile(r"-?[" + _CURRENCY + r"] ?-?(?:0|[1-9][0-9]*)(?:[.,][0-9]{2})?|"
                            r"-?(?:0|[1-9][0-9]*)(?:[.,][0-9]{2})?[" + _SPACES + r"]?[" + _CURRENCY + r"]")
# an accounting format's negative: `$(123.00)` (Gnumeric typing `(123)` of a CSV it saves as a workbook)
_WRITTEN_ACCOUNTING = re.compile(r"[" + _CURRENCY + r"]? ?\([" + _CURRENCY + r"]? ?(?:0|[1-9][0-9]{0,2}(?:,[0-9]{3})*)"
                                 r"(?:\.[0-9]{2})?\)")

# -- dates and times
_MONTHS = {name: number for number, names in enumerate((
    ("jan", "january", "januar", "janv", "janvier", "jän", "jänner"),
    ("feb", "february", "februar", "févr", "fevr", "février", "fevrier"),
    ("mar", "march", "mär", "märz", "maerz", "mars"),
    ("apr", "april", "avr", "avril"),
    ("may", "mai"),
    ("jun", "june", "juni", "juin"),
    ("jul", "july", "juli", "juil", "juillet"),
    ("aug", "august", "août", "aout"),
    ("sep", "sept", "september", "septembre"),
    ("oct", "october", "okt", "oktober", "octobre"),
    ("nov", "november", "novembre"),
    ("dec", "december", "dez", "dezember", "déc", "décembre", "decembre"),
), start=1) for name in names}
_NUMERIC_DATE = re.compile(r"([0-9]{1,4})([/.-])([0-9]{1,2})(?:\2([0-9]{1,4}))?\.?")
_NAMED_DATE = re.compile(r"(?:([0-9]{1,2})\.? ?([^\W\d_]+)\.?|([^\W\d_]+)\.? ([0-9]{1,2})),?(?: ([0-9]{2,4}))?")
_TIME = re.compile(r"([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:[.,][0-9]+)?)?(?: ?([aApP])\.?[mM]\.?)?")
WRITTEN_DATE = re.compile(r"[0-9]{4}([/.-])[0-9]{2}\1[0-9]{2}|[0-9]{1,2}([/.-])[0-9]{1,2}\2(?:[0-9]{2}|[0-9]{4})|"
                          r"[0-9]{1,2}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?:-[0-9]{2})?")
# Excel's display of a date typed without a year (en-US and en-GB: `1/2`, `Mar 1`, `3-4` -> `2-Jan`, `1-Mar`,
# `4-Mar`), which it saves so in a CSV; with a two-digit year when one was typed (`1-Mar-24`)
_WRITTEN_DAY_MONTH = re.compile(r"([0-9]{1,2})-([A-Z][a-z]{2})(?:-([0-9]{2}))?")
WRITTEN_TIME = re.compile(r"[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?: [AP]M)?")


def converted(old: str, new: str) -> str | None:
    """The kind of value (`a number`, `a date`, `a time`, `a boolean`) a spreadsheet read `old` as and
    wrote as `new`, or None: `new` is not a form a spreadsheet writes, or no reading of the two agrees."""
    if old == new or not new or not old:
        return None
    written = readings(new, written=True)
    if not written:
        return None
    for value in readings(old, dashed=written[0][0] == "date" and _WRITTEN_DAY_MONTH.fullmatch(new.strip()) is not None):
        for other in written:
            if _same(value, other):
                return KINDS[value[0]]
    return None


def readings(text: str, *, written: bool = False, dashed: bool = False) -> list[Reading]:
    """Every value a spreadsheet in an English, German or French locale may read `text` as (none: it
    stays text). `written`: only if `text` is in a form a spreadsheet writes such a value in. `dashed`:
    `3-4` read as a date too, as Excel reads it (only where the other side is Excel's `4-Mar`)."""
    text = text.strip()
    if not text or len(text) > 40:
        return []
    found: list[Reading] = []
    first = text[0]
    if first.isdigit() or first in "+-($£€¥(.":
        found.extend(_numbers(text, written))
        found.extend(_dates(text, written, dashed))
        found.extend(_times(text, written))
    elif first.isalpha():
        key = text.lower()
        if key in _BOOLEANS and (not written or text in _WRITTEN_BOOLEANS):
            found.append(("boolean", _BOOLEANS[key]))
        elif not written:
            found.extend(_dates(text, written))
    return found


def _same(a: Reading, b: Reading) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "date":  # a date typed without its year is read in the current one
        return a[2:] == b[2:] and (a[1] is None or b[1] is None or a[1] == b[1])
    return a == b


def _numbers(text: str, written: bool) -> list[Reading]:
    if written and not (_WRITTEN_PLAIN.fullmatch(text) or _WRITTEN_E.fullmatch(text)
                        or _WRITTEN_PERCENT.fullmatch(text) or _WRITTEN_MONEY.fullmatch(text)
                        or _WRITTEN_ACCOUNTING.fullmatch(text)):
        return []
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match.group("open")) != bool(match.group("close")):
        return []
    if sum(1 for group in ("cur0", "cur1", "cur2") if match.group(group)) > 1:
        return []
    signs = [s for s in (match.group("sign"), match.group("sign2"), match.group("trail")) if s]
    if len(signs) > 1 or (signs and match.group("open")):
        return []
    negative = bool(match.group("open")) or signs == ["-"]
    body = match.group("body")
    out: list[Reading] = []
    for mark, groups in _LOCALES:
        digits = _locale_number(body, mark, groups)
        if digits is None:
            continue
        try:
            value = Decimal(digits + (f"E{match.group('exp')}" if match.group("exp") else ""))
        except InvalidOperation:
            continue
        if match.group("pct"):
            value = value.scaleb(-2)
        if negative:
            value = -value
        reading = ("number", value.normalize() if value else Decimal(0))
        if reading not in out:
            out.append(reading)
    return out


def _locale_number(body: str, mark: str, groups: str) -> str | None:
    """`body` as plain digits with `.` for the decimal mark, read with decimal `mark` and thousands
    separators `groups`; None when it is no number there."""
    whole, _, decimals = body.partition(mark)
    if mark in decimals or (decimals and not decimals.isdigit()):
        return None
    if whole.isdigit():
        return f"{whole}.{decimals}" if decimals else whole
    separator = next((ch for ch in whole if not ch.isdigit()), "")
    if separator not in groups:
        return None
    parts = whole.split(separator)
    if not (1 <= len(parts[0]) <= 3 and parts[0].isdigit() and all(len(p) == 3 and p.isdigit() for p in parts[1:])):
        return None
    joined = "".join(parts)
    return f"{joined}.{decimals}" if decimals else joined


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    year = int(text)
    if len(text) <= 2:
        return year + (2000 if year < 30 else 1900)  # the spreadsheets' two-digit year window, 1930-2029
    return year if len(text) == 4 else -1


def _dates(text: str, written: bool, dashed: bool = False) -> list[Reading]:
    if written and not WRITTEN_DATE.fullmatch(text):
        return []
    out: list[Reading] = []
    match = _NUMERIC_DATE.fullmatch(text)
    if match:
        a, separator, b, c = match.groups()
        if len(a) == 4:  # year first
            if c is not None:
                _add_date(out, _year(a), int(b), int(c))
        elif c is None or len(c) != 3:
            year = _year(c)
            # `1.5` and `1-2` without a year stay numbers or text; `1.5.` is 1 May; `3-4` is 4 March to
            # Excel, which writes it `4-Mar` (`dashed`: compared with such a form)
            if year is None and ((separator == "-" and not dashed) or (separator == "." and not text.endswith("."))):
                return out
            if separator != ".":
                _add_date(out, year, int(a), int(b))  # month first (English)
            _add_date(out, year, int(b), int(a))  # day first
        return out
    if written:
        day_month = _WRITTEN_DAY_MONTH.fullmatch(text)
        if day_month and day_month.group(2).lower() in _MONTHS:
            _add_date(out, _year(day_month.group(3)), _MONTHS[day_month.group(2).lower()], int(day_month.group(1)))
        return out
    named = _NAMED_DATE.fullmatch(text)
    if named:
        day, month, month2, day2, named_year = named.groups()
        number = _MONTHS.get((month or month2).lower())
        if number:
            _add_date(out, _year(named_year), number, int(day or day2))
    return out


def _add_date(out: list[Reading], year: int | None, month: int, day: int) -> None:
    if 1 <= month <= 12 and 1 <= day <= 31 and year != -1 and ("date", year, month, day) not in out:
        out.append(("date", year, month, day))


def _times(text: str, written: bool) -> list[Reading]:
    if written and not WRITTEN_TIME.fullmatch(text):
        return []
    match = _TIME.fullmatch(text)
    if match is None:
        return []
    hours, minutes, seconds, half = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0), match.group(4)
    if minutes > 59 or seconds > 59:
        return []
    if half:
        if not 1 <= hours <= 12:
            return []
        hours = hours % 12 + (12 if half in "pP" else 0)
    elif hours > 23:
        return []
    return [("time", hours * 3600 + minutes * 60 + seconds)]
