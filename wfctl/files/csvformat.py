"""The cells of wfctl's CSV format (contract part 2): one column per field, lists packed in one cell.

Encoding (export, `-o csv`):

- strings as they are; booleans `true`/`false`; numbers in their shortest exact form; None as "";
- `rates` as `SKILL=RATE` joined by `|`, `departments` as `NAME:CONTACT:EMAIL` joined by `|`
  (trailing parts that are absent are left out), `bannedWorkers` joined by `|`; a backslash escapes a
  literal `|`, `:`, `=` or `\\` inside a part;
- a list cell whose packed form would start with `[` is written as a JSON array instead (so the reader,
  which takes a leading `[` as JSON, reads it back unchanged);
- a cell that a spreadsheet would run as a formula (first character `=`, `+`, `-`, `@`, tab or CR,
  possibly behind `'`s) gets one `'` in front. Decoding removes exactly that one `'` again.

Pure functions, standard library only: the output module and the bulk reader share them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from wfctl.api.records.resources import READ_ONLY, RESOURCES, bool_fields, list_fields

# The columns of each kind are its definition's (wfctl.api.records.resources: the parent's id column first,
# then the fields); a row may name its parent instead (the parent name column, import only).
KINDS = tuple(RESOURCES)

# Fields the service returns that are not written: accepted in an input file and ignored, so that
# `list -o csv --fields ...` output with ids and timestamps can be fed back to import.
# `--report FILE` adds status, error and changes (and id): a report is fed back as it is (issue 33 §4).
REPORT_ONLY_COLUMNS = frozenset({"status", "error", "changes"})
READ_ONLY_COLUMNS = READ_ONLY | REPORT_ONLY_COLUMNS

LIST_COLUMNS = list_fields()
BOOL_COLUMNS = bool_fields()

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# Numbers no hourly rate can be, refused before any arithmetic on them (`int(Decimal("1e999999999"))`
# never finishes): longer than this, 10^15 or more (a float cannot hold such a rate to the cent), or
# nonzero below 0.01 (more than 2 decimals).
MAX_NUMBER_CHARS = 32
MAX_RATE_DIGITS = 15
_SPECIAL = "\\|:="
# German and French spreadsheets write their booleans in their words: WAHR/FALSCH, VRAI/FAUX
_TRUE = frozenset({"true", "yes", "1", "y", "on", "wahr", "vrai"})
_FALSE = frozenset({"false", "no", "0", "n", "off", "falsch", "faux"})


class CellError(ValueError):
    """A cell that cannot be decoded; the message says why (without the row and column).

    `problems` holds every problem found in the cell, one message each (a cell of rates may have
    several bad parts), each said once; str() joins them with "; "."""

    def __init__(self, *problems: str) -> None:
        self.problems: list[str] = list(dict.fromkeys(problems))  # the same problem twice is said once
        super().__init__("; ".join(self.problems))


def _raise_all(problems: list[str]) -> None:
    if problems:
        raise CellError(*problems)


def export_columns(kind: str) -> list[str]:
    """The columns `export` writes: `id` first (import matches a row that carries one to that record:
    an edited name is a rename), then the import columns."""
    return ["id", *columns_for(kind)]


def columns_for(kind: str) -> list[str]:
    """The CSV columns of `kind` ("branch", "client" or "site"), in order."""
    from wfctl.api.records.resources import resource

    return list(resource(kind).columns)


def known_columns(kind: str) -> frozenset[str]:
    """Every column an input file of `kind` may have."""
    names = set(columns_for(kind)) | READ_ONLY_COLUMNS
    parent_name = RESOURCES[kind].parent_name_column
    if parent_name:
        names.add(parent_name)
    return frozenset(names)


def canonical_column(name: str) -> str:
    """The format's spelling of a column written as people type headers: in any case, with spaces and
    underscores inside (`ClientId`, `Assessment Required`, `banned_workers`); a name the format does not
    know is returned unchanged."""
    canonical = {header_key(column): column for kind in RESOURCES for column in known_columns(kind)}
    return canonical.get(header_key(name), name)


def header_key(name: str) -> str:
    """What makes two spellings of a field's name the same name: case, spaces and underscores aside
    (an import's header, a `--fields` name)."""
    return name.lower().replace(" ", "").replace("_", "")


def nearest_name(name: str, names: Iterable[str]) -> str | None:
    """The one of `names` closest to a mistyped `name` (`nme` -> `name`), or None when none is close."""
    import difflib

    by_key = {header_key(known): known for known in names}
    close = difflib.get_close_matches(header_key(name), list(by_key), n=1, cutoff=0.6)
    return by_key[close[0]] if close else None


def unknown_column_message(kind: str, column: str) -> str:
    """The problem text for a header column that `kind` does not have: the nearest known name, if one
    is close, then every column an input file may have."""
    near = nearest_name(column, known_columns(kind))
    hint = f"did you mean {near}? " if near else ""
    return f"unknown column; {hint}the columns are {accepted_columns(kind)}"


def accepted_columns(kind: str) -> str:
    """The columns of `kind` in words, for messages and help: the parent by id or by name, the fields,
    and the read-only columns that are accepted and ignored."""
    columns = columns_for(kind)
    definition = RESOURCES[kind]
    if definition.parent_id_column:
        parent = definition.parent_name_column
        columns[0] = f"{definition.parent_id_column} (or {parent}, the {parent}'s name)"
    ignored = ", ".join(sorted(READ_ONLY_COLUMNS, key=str.lower))
    return f"{', '.join(columns)}; {ignored} are accepted and ignored"


# -- encoding ----------------------------------------------------------------------------------

def encode_record(kind: str, record: dict[str, Any], columns: list[str], *, protect: bool = True) -> list[str]:
    """The cells of `record` for `columns` (missing fields are empty cells); `protect`: neutralised."""
    del kind  # the column name decides the encoding; kept for symmetry with decode_record
    return [encode_cell(column, record.get(column), protect=protect) for column in columns]


def encode_cell(column: str, value: Any, *, protect: bool = True) -> str:
    if column == "rates" and isinstance(value, list):
        text = _encode_list(value, _encode_rate)
    elif column == "departments" and isinstance(value, list):
        text = _encode_list(value, _encode_department)
    elif isinstance(value, list):
        text = _encode_list(value, lambda item: escape(_scalar(item)))
    else:
        text = _scalar(value)
    return neutralise(text) if protect or text.startswith("'") else text  # `'=x` keeps its own `'` in any case


def neutralise(text: str) -> str:
    """Put one `'` in front of a cell a spreadsheet would run as a formula."""
    if text.lstrip("'").startswith(FORMULA_STARTS):
        return "'" + text
    return text


def escape(part: str) -> str:
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in part)


def format_number(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return format_number(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _encode_list(items: list[Any], encode_item: Any) -> str:
    if not all(isinstance(item, dict) or not isinstance(item, list) for item in items):
        return json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    packed = "|".join(encode_item(item) for item in items)
    if packed.startswith("[") or (len(items) == 1 and packed == ""):
        # `[` would be read back as JSON; a single empty entry would be read back as no entry.
        return json.dumps(items, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return packed


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _encode_rate(rate: Any) -> str:
    if not isinstance(rate, dict):
        return escape(_scalar(rate))
    return f"{escape(_scalar(rate.get('skill')))}={escape(format_number(rate.get('hourlyRate', '')))}"


def _encode_department(dept: Any) -> str:
    if not isinstance(dept, dict):
        return escape(_scalar(dept))
    parts = [dept.get("name"), dept.get("contactPerson"), dept.get("email")]
    while len(parts) > 1 and parts[-1] is None:
        parts.pop()
    return ":".join(escape(_scalar(p)) for p in parts)


# -- decoding ----------------------------------------------------------------------------------

def strip_neutraliser(text: str) -> str:
    """Remove exactly the one `'` that `neutralise` adds."""
    if text.startswith("'") and text.lstrip("'").startswith(FORMULA_STARTS):
        return text[1:]
    return text


def decode_cell(column: str, text: str) -> Any:
    """The JSON value of one input cell. Raises CellError.

    Empty cells: "" for strings, [] for lists, None (leave the field out) for booleans. A spreadsheet's
    error value (`#N/A`), or a workbook formula with no computed value, is an error of its cell."""
    text = strip_neutraliser(text)
    if text[:1] == "#":
        _refuse_spreadsheet_error(text)
    if column == "rates":
        return decode_rates(text)
    if column == "departments":
        return decode_departments(text)
    if column == "bannedWorkers":
        return decode_banned_workers(text)
    if column in BOOL_COLUMNS:
        return decode_bool(text)
    return text


#: What a spreadsheet shows for a formula that failed (Excel's and LibreOffice's error values).
SPREADSHEET_ERRORS = frozenset({
    "#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!",
    "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!", "#PYTHON!", "#EXTERNAL!"})
#: A workbook's formula with no computed value, as the workbook reader writes it (then the formula).
NO_VALUE = "#\ufdd0"


def _refuse_spreadsheet_error(text: str) -> None:
    if text.startswith(NO_VALUE):
        formula = text[len(NO_VALUE):]
        raise CellError(f"a formula{' ' + shorten('=' + formula) if formula else ''} with no computed value: the program "
                        "that saved the workbook did not calculate it (openpyxl and pandas do not); open and save it "
                        "in a spreadsheet, or type the value")
    if text.strip().upper() in SPREADSHEET_ERRORS:
        raise CellError(f"{shorten(text.strip())} is a spreadsheet's error value (a formula that failed): put the value "
                        "itself in the cell")


def decode_bool(text: str) -> bool | None:
    value = text.strip().lower()
    if value == "":
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise CellError(f"{shorten(text)} is not a boolean (use true/false, yes/no or 1/0)")


def decode_rates(text: str) -> list[dict[str, Any]]:
    if text.lstrip().startswith("["):
        items = _json_array(text)
        out = []
        for item in items:
            if not isinstance(item, dict) or set(item) - {"skill", "hourlyRate"}:
                raise CellError('each JSON rate must be an object {"skill": ..., "hourlyRate": ...}')
            out.append(item)
        return out
    rates, _, problems = _read_rates(text)
    _raise_all(problems)
    return rates


def rates_cell_problems(text: str) -> list[str]:
    """Every problem of a rates cell at once: its parts' (as decode_rates finds them), then the write
    model's rules on what they hold (a skill empty or too long, a rate's decimals, a skill given twice),
    each naming its skill. [] for a cell with none, and for a JSON cell (the model words those)."""
    text = strip_neutraliser(text)
    if text.lstrip().startswith(("[", "#")):
        return []
    rates, numbers, problems = _read_rates(text)
    seen: set[str] = set()
    for rate, number in zip(rates, numbers, strict=True):
        skill = rate["skill"].strip()
        if not skill:
            problems.append(f"{shorten('=' + number)} has no skill (SKILL=RATE)")
        elif len(skill) > 200:
            problems.append(f"skill {shorten(skill)} is longer than 200 characters")
        elif skill in seen:
            problems.append(f"skill {shorten(skill)} is given twice")
        seen.add(skill)
        exponent = Decimal(number).normalize().as_tuple().exponent
        if isinstance(exponent, int) and exponent < -2:
            problems.append(f"rate of {shorten(skill)}: {number} has more than 2 decimals")
    return list(dict.fromkeys(problems))


def _read_rates(text: str) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(the rates of a SKILL=RATE cell that read as such, each one's number as written, the problems)."""
    rates, numbers, problems = [], [], []
    for part in split_unescaped(text, "|"):
        fields = split_unescaped(part, "=")
        if len(fields) != 2:
            problems.append(f"{shorten(unescape(part))} is not SKILL=RATE")
            continue
        skill, rate = unescape(fields[0]), unescape(fields[1]).strip()
        try:
            rates.append({"skill": skill, "hourlyRate": parse_number(rate, what=f"rate of {shorten(skill)}")})
            numbers.append(rate)
        except CellError as exc:
            problems.extend(exc.problems)
    return rates, numbers, problems


def decode_departments(text: str) -> list[dict[str, Any]]:
    if text.lstrip().startswith("["):
        items = _json_array(text)
        for item in items:
            if not isinstance(item, dict):
                raise CellError('each JSON department must be an object {"name": ..., ...}')
        return items
    departments, problems = [], []
    for part in split_unescaped(text, "|"):
        fields = [unescape(f) for f in split_unescaped(part, ":")]
        if not fields:
            problems.append("an empty department between two '|' (remove the extra '|')")
            continue
        if len(fields) > 3:
            problems.append(f"{shorten(unescape(part))} is not NAME:CONTACT:EMAIL (escape a literal ':' as '\\:')")
            continue
        dept: dict[str, Any] = {"name": fields[0]}
        if len(fields) > 1:
            dept["contactPerson"] = fields[1]
        if len(fields) > 2:
            dept["email"] = fields[2]
        departments.append(dept)
    _raise_all(problems)
    return departments


def decode_banned_workers(text: str) -> list[str]:
    if text.lstrip().startswith("["):
        items = _json_array(text)
        if not all(isinstance(item, str) for item in items):
            raise CellError("each JSON banned worker must be a string")
        return items
    return [unescape(part) for part in split_unescaped(text, "|")]


def parse_number(text: str, *, what: str = "value") -> int | float:
    """A rate's number, as an int or a float (the write model checks the rules on it).

    Numbers no rate can be are refused first, before any arithmetic on them: longer than
    MAX_NUMBER_CHARS, negative, 10^15 or more, or nonzero below 0.01."""
    if len(text) > MAX_NUMBER_CHARS:
        raise CellError(f"{what}: {shorten(text)} is not a number (too long)")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise CellError(f"{what}: {text!r} is not a number{_decimal_comma_hint(text)}") from None
    if not value.is_finite():
        raise CellError(f"{what}: {text!r} is not a number")
    if value:  # adjusted() is the power of ten of the first digit, whatever the exponent's size
        if value < 0:
            raise CellError(f"{what}: {text} is negative; a rate must be 0 or more")
        if value.adjusted() >= MAX_RATE_DIGITS:
            raise CellError(f"{what}: {text} is too large; a rate must be less than 10^{MAX_RATE_DIGITS}")
        if value.adjusted() < -2:
            raise CellError(f"{what}: {text} has more than 2 decimals")
    return int(value) if value == value.to_integral_value() and "." not in text else float(value)


_DECIMAL_COMMA = re.compile(r"[0-9]+,[0-9]+")


def _decimal_comma_hint(text: str) -> str:
    """"; use a point: 13.25" for `13,25` (a decimal comma, as many spreadsheets write numbers)."""
    if _DECIMAL_COMMA.fullmatch(text):
        return f"; use a point: {text.replace(',', '.')}"
    return ""


def shorten(text: str, limit: int = 40) -> str:
    """`text` quoted for a one-line message, cut to `limit` characters (a cell may hold a megabyte)."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def split_unescaped(text: str, sep: str) -> list[str]:
    """Split on `sep` where it is not behind a backslash; parts keep their escapes. "" -> []."""
    if text == "":
        return []
    if "\\" not in text:
        return text.split(sep)
    parts, current, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i:i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def unescape(part: str) -> str:
    if "\\" not in part:
        return part
    out, i = [], 0
    while i < len(part):
        if part[i] == "\\" and i + 1 < len(part):
            out.append(part[i + 1])
            i += 2
        else:
            out.append(part[i])
            i += 1
    return "".join(out)


def _json_array(text: str) -> list[Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CellError(f"a cell starting with '[' must be a JSON array: {exc.msg} at column {exc.colno}") from None
    except ValueError:  # an integer of more than 4300 digits (sys.get_int_max_str_digits)
        raise CellError("a cell starting with '[' must be a JSON array: a number in it is too long") from None
    except RecursionError:
        raise CellError("a cell starting with '[' must be a JSON array: it is nested too deeply") from None
    if not isinstance(value, list):
        raise CellError("a cell starting with '[' must be a JSON array")
    return value
