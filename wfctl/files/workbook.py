"""Workbooks (.xlsx) in and out of the bulk commands (issue 21 §2).

Reading: a workbook is recognised by what it holds (a ZIP archive with `xl/workbook.xml`), not by its
name. One sheet (`--sheet NAME|N`, the first by default) is written to a temporary CSV file of its cells
as a person sees them, which the CSV path then reads: the same columns, checks, plan, journal and undo.

- text exactly (`_xHHHH_` escapes decoded, as Excel, LibreOffice and XlsxWriter write control characters);
  a boolean as a spreadsheet shows it, `TRUE`/`FALSE` (a text `FALSE` that Gnumeric typed as a boolean
  reads as it was, issue 43); a formula by its computed (cached) value, and a constant formula with none
  (`=FALSE()`, `=12`, `="W-1"`: LibreOffice writes booleans so, openpyxl drops the cached values) by its
  constant;
- a number as its number format shows it (`wfctl.files.cellformat`: `01614960123` under `00000000000`,
  `£13.50`, a time as `12:30`, a date as YYYY-MM-DD on the workbook's date system, 1900 or 1904); under
  General the digits (`1614960000`, never `1614960000.0`; 15 significant digits as a spreadsheet keeps
  them: `4000123412341230`, never `4.00012341234123E+15`);
- an error value (`#N/A`) as its text, any other formula with no computed value as `csvformat.NO_VALUE`: both
  are errors of their row (`csvformat.decode_cell`);
- empty rows and empty columns after the last named one are left out; a row's line in messages is the
  sheet's row number.

Writing (`export -f FILE.xlsx`) is `wfctl.files.sheetwriter`'s `SheetWriter` (re-exported here).

Reading streams the sheet's XML, by regular expressions while it is plain (as spreadsheet programs write
it), else by the standard library's C parser; shared strings likewise (`wfctl.files.sheetxml`), kept as
one UTF-8 buffer. Measured again for issue 33 against well-kept readers on the benchmark workbook (the
figures are in the commit that says so, and bench/workbook.py measures this one): python-calamine reads
faster but holds the whole sheet (over a plan's memory target), openpyxl's read-only mode is several times
slower; neither shows a number as its format does (both give 1614960123.0 for `01614960123`); calamine
reads an error value and a formula with no value as an empty cell (a field cleared), openpyxl's read-only
mode leaves `_x000B_` as it is and trusts the sheet's `<dimension>`. So the reader stays ours, with
`wfctl.files.cellformat` for the formats. This module is imported only when a workbook is read or written.
"""

from __future__ import annotations

import csv
import os
import re
import tempfile
import zipfile
from array import array
from typing import Any

from wfctl.files.cellformat import BUILTIN, Format, decoded, formatter, general
from wfctl.files.csvformat import NO_VALUE
from wfctl.files.errors import BulkError, FileError
from wfctl.files.sheetwriter import MAX_WIDTH, SheetWriter
from wfctl.files.sheetxml import NotPlain, SharedStrings, inline_text, local, plain_declaration, unescape

ZIP_MAGIC = b"PK\x03\x04"
XLSX_EXTENSIONS = (".xlsx", ".xlsm")

__all__ = ["MAX_WIDTH", "XLSX_EXTENSIONS", "ZIP_MAGIC", "SheetWriter", "is_workbook", "is_workbook_name", "sheet_names",
           "sheet_to_csv", "typed_text"]


def is_workbook(path: str) -> bool:
    """Whether the file at `path` is an .xlsx workbook (by its content)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != ZIP_MAGIC:
                return False
        with zipfile.ZipFile(path) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def sheet_names(path: str) -> list[str]:
    """The names of the workbook's sheets, in order (for messages; none if it cannot be read)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _book_parts(archive, path)[0]
    except (OSError, KeyError, ValueError, SyntaxError, zipfile.BadZipFile):
        return []


def is_workbook_name(path: str) -> bool:
    return path.lower().endswith(XLSX_EXTENSIONS)


def sheet_to_csv(path: str, display: str, sheet: str | None) -> tuple[str, array[int], str]:
    """Write the chosen sheet of the workbook at `path` to a temporary UTF-8 CSV file; returns its path,
    the sheet row of each of its physical lines (index 1 = line 1) and the sheet's name."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise FileError(f"{display}: cannot read the workbook: {exc}") from None
    fd, spool = tempfile.mkstemp(prefix="wfctl-sheet-", suffix=".csv")
    lines = array("l", [0])  # physical CSV line -> sheet row
    try:
        with archive, os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            names, targets, strings_part, styles_part, date1904 = _book_parts(archive, display)
            chosen = _choose_sheet(display, names, sheet)
            strings = SharedStrings(archive, strings_part, fast=FAST)
            formats = _number_formats(archive, styles_part, date1904)
            writer = csv.writer(out, lineterminator="\n")
            width = -1
            for number, texts in _rows(archive, targets[chosen], strings, formats):
                if number < 0:  # the sheet is read again by the parser: what was written goes
                    out.seek(0)
                    out.truncate()
                    del lines[1:]
                    width = -1
                    continue
                if width < 0:
                    if not any(texts):
                        continue  # empty rows above the header
                    while texts and texts[-1] == "":
                        texts.pop()
                    width = len(texts)
                elif not any(texts):
                    continue  # an empty row: left out
                else:
                    while len(texts) > width and texts[-1] == "":
                        texts.pop()
                writer.writerow(texts)
                joined = "".join(texts)
                if "\n" in joined or "\r" in joined:
                    lines.extend([number] * (1 + joined.count("\n") + joined.count("\r")))
                else:
                    lines.append(number)
    except BulkError:
        os.unlink(spool)
        raise
    except (KeyError, ValueError, SyntaxError, zipfile.BadZipFile, OSError) as exc:  # ParseError is a SyntaxError
        os.unlink(spool)
        raise FileError(f"{display}: cannot read the workbook: {str(exc).splitlines()[0] if str(exc) else exc}") \
            from None
    except BaseException:
        os.unlink(spool)
        raise
    return spool, lines, chosen


_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


#: The number format of text (`@`): a cell so formatted holds what was typed in it.
TEXT_FORMAT = 49


def typed_text(path: str, sheet: str, cells: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of `cells` ((sheet row, 0-based column) of the sheet `sheet`), those typed as text: a string
    (shared or inline) or a cell whose number format is text (`@`), whose value is what a person typed
    (a spreadsheet converts what is typed into a General cell, never a text cell's). Read with the parser:
    asked only of the few cells a plan's review found."""
    from xml.etree import ElementTree

    with zipfile.ZipFile(path) as archive:
        _, targets, _, styles, _ = _book_parts(archive, path)
        text_styles = _text_styles(archive, styles)
        rows = {row for row, _ in cells}
        found: set[tuple[int, int]] = set()
        number = 0
        with archive.open(targets[sheet]) as f:
            for _, element in ElementTree.iterparse(f):
                if local(element.tag) != "row":
                    continue
                number = int(element.get("r") or number + 1)
                if number in rows:
                    for cell in element:
                        ref = cell.get("r") or ""
                        at = (number, _column(ref))
                        if ref and at in cells and (cell.get("t") in ("s", "inlineStr")
                                                    or cell.get("s", "0") in text_styles):
                            found.add(at)
                element.clear()
    return found


def _text_styles(archive: zipfile.ZipFile, part: str | None) -> set[str]:
    """The cell styles (`s`, as text) whose number format is text (`@`)."""
    if part is None or part not in archive.NameToInfo:
        return set()
    from xml.etree import ElementTree

    root = ElementTree.fromstring(archive.read(part))
    text = {TEXT_FORMAT} | {int(e.get("numFmtId", "0")) for e in root.iter()
                            if local(e.tag) == "numFmt" and e.get("formatCode", "") == "@"}
    return {str(index) for element in root if local(element.tag) == "cellXfs"
            for index, xf in enumerate(child for child in element if local(child.tag) == "xf")
            if int(xf.get("numFmtId", "0")) in text}


def _book_parts(archive: zipfile.ZipFile, display: str) -> tuple[list[str], dict[str, str], str | None, str | None,
                                                                 bool]:
    """The sheets' names in order, each one's part, the shared strings' and styles' parts, and whether the
    workbook counts dates from 1904 (`<workbookPr date1904="1"/>`)."""
    from xml.etree import ElementTree

    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    by_id: dict[str, str] = {}
    strings = styles = None
    for rel in rels:
        target = rel.get("Target", "")
        target = target.lstrip("/") if target.startswith("/") else "xl/" + target
        by_id[rel.get("Id", "")] = target
        kind = rel.get("Type", "")
        if kind.endswith("/sharedStrings"):
            strings = target
        elif kind.endswith("/styles"):
            styles = target
    names: list[str] = []
    targets: dict[str, str] = {}
    date1904 = False
    for element in book.iter():
        if local(element.tag) == "workbookPr":
            date1904 = element.get("date1904", "").strip().lower() in ("1", "true")
        elif local(element.tag) == "sheet":
            rid = next((v for k, v in element.attrib.items() if local(k) == "id"), "")
            if rid in by_id and by_id[rid] in archive.NameToInfo:  # a worksheet (chart sheets have none)
                name = element.get("name", f"Sheet{len(names) + 1}")
                names.append(name)
                targets[name] = by_id[rid]
    return names, targets, strings, styles, date1904


def _number_formats(archive: zipfile.ZipFile, part: str | None, date1904: bool) -> dict[str, Format]:
    """The rendering of each cell style (`s` of a cell, as its text) whose number format is not General."""
    if part is None or part not in archive.NameToInfo:
        return {}
    from xml.etree import ElementTree

    root = ElementTree.fromstring(archive.read(part))
    codes: dict[int, str] = dict(BUILTIN)
    for element in root.iter():
        if local(element.tag) == "numFmt":
            codes[int(element.get("numFmtId", "0"))] = element.get("formatCode", "")
    made: dict[str, Format | None] = {}
    formats: dict[str, Format] = {}
    for element in root:
        if local(element.tag) != "cellXfs":
            continue
        for index, xf in enumerate(child for child in element if local(child.tag) == "xf"):
            code = codes.get(int(xf.get("numFmtId", "0")), "")
            if code not in made:
                made[code] = formatter(code, date1904) if code else None
            render = made[code]
            if render is not None:
                formats[str(index)] = render
    return formats


def _column(ref: str) -> int:
    """The 0-based column of a cell reference (`B3` -> 1)."""
    n = 0
    for ch in ref:
        if "A" <= ch <= "Z":
            n = n * 26 + ord(ch) - 64
        else:
            break
    return n - 1


def _rows(archive: zipfile.ZipFile, part: str, strings: SharedStrings, formats: dict[str, Format]) -> Any:
    """(sheet row number, cells as text) of each row the sheet holds, streamed: by the fast path while the
    sheet's XML is plain; a sheet it does not recognise is read again from its start by the parser (the
    rows the fast path gave are given again)."""
    if FAST:
        try:
            yield from _fast_rows(archive, part, strings, formats)
            return
        except NotPlain:
            yield _RESTART
    yield from _parsed_rows(archive, part, strings, formats)


#: Whether sheets are read by the regular-expression fast path first (the tests compare both paths).
FAST = True
_RESTART: tuple[int, list[str]] = (-1, [])  # a row before which the rows given so far are to be forgotten


def _parsed_rows(archive: zipfile.ZipFile, part: str, strings: SharedStrings, formats: dict[str, Format]) -> Any:
    """The rows by the standard library's parser: any well-formed XML."""
    from xml.etree import ElementTree

    number = 0
    row_tag = ""
    with archive.open(part) as f:
        for _, element in ElementTree.iterparse(f):
            tag = element.tag
            if tag != row_tag:
                if local(tag) != "row":
                    continue
                row_tag = tag
            number = int(element.get("r") or number + 1)
            texts: list[str] = []
            for cell in element:
                ref = cell.get("r")
                if ref:
                    column = _column(ref)
                    if column > len(texts):
                        texts.extend([""] * (column - len(texts)))
                texts.append(_cell_text(cell, strings, formats))
            yield number, texts
            element.clear()  # an emptied row stays in the tree: a few dozen bytes


# The fast path: a sheet's XML as spreadsheet programs write it (unprefixed elements, attributes in
# double quotes, cells of a value, a formula and its value, or an inline string of one text), read by
# regular expressions a row at a time, several times faster than the parser's elements. Anything else (a
# prefix, a DOCTYPE, a comment, CDATA, rich text, single quotes, a carriage return, an unknown entity,
# an unusual attribute order) raises NotPlain.
_CHUNK = 1 << 20
_MAX_ROW = 1 << 24  # a row's XML longer than this: not plain
_SHEET_DATA = re.compile(r"<sheetData\s*(/?)>")
_ROW = re.compile(r'\s*<row((?:\s+[\w:]+="[^"<]*")*)\s*(/?)>')  # a row's start tag
_ROW_NUMBER = re.compile(r'\sr="([^"]*)"')
_CELL_XML = (
    r'\s*<c(?:\s+r="([A-Z]*)\d*")?(?:\s+s="(\d+)")?(?:\s+t="(\w+)")?((?:\s+[\w:]+="[^"<]*")*)\s*'
    r'(?:/>|>(?:(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?(<v>[^<]*)</v>|<is><t(?:\s+xml:space="preserve")?>([^<]*)</t></is>'
    r'|(<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)|)</c>)')  # the last group: a formula with no value
_CELL = re.compile(_CELL_XML)
_CELLS = re.compile(f"(?:{_CELL_XML})*\\s*")  # a row's content: cells only
# The cells most sheets hold (a reference, maybe a style and a type; a value or an inline string), the
# same groups: a simpler expression, tried first.
_COMMON_XML = r'<c r="([A-Z]+)\d+"(?: s="(\d+)")?(?: t="(\w+)")?()>(?:(<v>[^<]*)</v>|<is><t>([^<]*)</t></is>)()</c>'
_COMMON = re.compile(_COMMON_XML)
_COMMONS = re.compile(f"(?:{_COMMON_XML})*")
_OTHER_RST = re.compile(r'\s[rst]="')
_END = re.compile(r"\s*</sheetData>")


def _fast_rows(archive: zipfile.ZipFile, part: str, strings: SharedStrings, formats: dict[str, Format]) -> Any:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    number = 0
    columns: dict[str, int] = {}  # a cell reference's letters -> its column
    with archive.open(part) as f:
        def more() -> str:
            data = f.read(_CHUNK)
            try:
                return decoder.decode(data, final=not data)
            except UnicodeDecodeError:
                raise NotPlain from None

        buf = more()
        while True:  # the prologue: up to <sheetData>
            found = _SHEET_DATA.search(buf)
            if found:
                break
            chunk = more()
            if not chunk or len(buf) > _MAX_ROW:
                raise NotPlain
            buf += chunk
        head = buf[:found.start()]
        if "<!" in head or "<worksheet" not in head or not plain_declaration(head):
            raise NotPlain
        if found.group(1):  # <sheetData/>
            return
        pos = found.end()
        eof = False
        while True:
            row = _ROW.match(buf, pos)
            end = -1 if row is None else row.end() if row.group(2) else buf.find("</row>", row.end())
            if end < 0:  # a row not all read yet (or not plain)
                if _END.match(buf, pos):
                    return
                if eof or len(buf) - pos > _MAX_ROW:
                    raise NotPlain
                chunk = more()
                eof = not chunk
                buf = buf[pos:] + chunk
                pos = 0
                continue
            assert row is not None
            attributes = row.group(1)
            content = "" if row.group(2) else buf[row.end():end]
            pos = end if row.group(2) else end + 6
            if "'" in attributes:
                raise NotPlain
            given = _ROW_NUMBER.search(attributes)
            if given is None or not given.group(1):
                number += 1
            elif given.group(1).isdigit() and given.group(1).isascii():
                number = int(given.group(1))
            else:
                raise NotPlain
            texts: list[str] = []
            if content:
                if "\r" in content or "<!" in content:
                    raise NotPlain
                if _COMMONS.fullmatch(content) is not None:
                    cells = _COMMON.findall(content)
                elif _CELLS.fullmatch(content) is not None:
                    cells = _CELL.findall(content)
                else:
                    raise NotPlain
                for letters, style, kind, other, value, inline, formula in cells:
                    if other and (_OTHER_RST.search(other) or "'" in other):
                        raise NotPlain
                    if letters:
                        column = columns.get(letters)
                        if column is None:
                            column = columns[letters] = _column(letters)
                        if column > len(texts):
                            texts.extend([""] * (column - len(texts)))
                    if kind == "inlineStr":
                        texts.append(decoded(unescape(inline) if "&" in inline else inline))
                    elif not value:  # no <v>
                        if formula:
                            formula = formula.partition(">")[2][:-4] if formula.endswith("</f>") else ""
                            texts.append(_no_value(unescape(formula) if "&" in formula else formula, style or None,
                                                   formats))
                        else:
                            texts.append("")
                    else:
                        value = value[3:]
                        if not value and kind not in ("str", "s"):
                            raise NotPlain  # `<v></v>`: a formula's missing value? The parser knows.
                        if "&" in value:
                            value = unescape(value)
                        texts.append(_value_text(kind or "n", value, style or None, strings, formats))
            yield number, texts


def _cell_text(cell: Any, strings: SharedStrings, formats: dict[str, Format]) -> str:
    kind = cell.get("t", "n")
    value = None
    inline = formula = None
    for child in cell:
        tag = local(child.tag)
        if tag == "v":
            value = child.text or ""
        elif tag == "is":
            inline = child
        elif tag == "f":
            formula = child.text or ""
    if kind == "inlineStr":
        return decoded(inline_text(inline)) if inline is not None else ""
    if formula is not None and (value is None or (value == "" and kind not in ("str", "s"))):
        return _no_value(formula, cell.get("s"), formats)  # openpyxl's and pandas' formulas: `<f>..</f><v />`
    if value is None:
        return ""
    return _value_text(kind, value, cell.get("s"), strings, formats)


def _value_text(kind: str, value: str, style: str | None, strings: SharedStrings, formats: dict[str, Format]) -> str:
    """The text a cell of type `kind` and style `style` shows for its `<v>` text `value`."""
    if kind == "s":
        return strings[int(value)]
    if kind == "str":
        return decoded(value)
    if kind == "e":  # an error value: an error of its row (csvformat.decode_cell)
        return value if value.startswith("#") else "#" + value
    if kind == "d":
        return value
    if kind == "b":
        return "TRUE" if value.strip() == "1" else "FALSE"
    try:
        number = float(value)
    except ValueError:
        return value
    if style is not None:
        render = formats.get(style)
        if render is not None:
            return render(number)
    return general(number)


def _no_value(formula: str, style: str | None, formats: dict[str, Format]) -> str:
    """The text of a formula cell with no computed value: a constant's (`TRUE()`, `FALSE`, `-12.5`,
    `"W-1"`), which has one value whatever computes it; any other formula's `NO_VALUE` (an error of its row)."""
    constant = formula.strip()
    if constant.upper() in _BOOLEAN_FORMULAS:
        return _BOOLEAN_FORMULAS[constant.upper()]
    if _NUMBER_FORMULA.fullmatch(constant):
        return _value_text("n", constant, style, _NO_STRINGS, formats)
    if _STRING_FORMULA.fullmatch(constant):
        return constant[1:-1].replace('""', '"')
    return NO_VALUE + formula


_BOOLEAN_FORMULAS = {"TRUE()": "TRUE", "TRUE": "TRUE", "FALSE()": "FALSE", "FALSE": "FALSE"}
_NUMBER_FORMULA = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_STRING_FORMULA = re.compile(r'"(?:[^"]|"")*"')
_NO_STRINGS: Any = None  # a number's text needs no shared strings


def _choose_sheet(display: str, names: list[str], sheet: str | None) -> str:
    if not names:
        raise FileError(f"{display}: the workbook has no sheet")
    if sheet is None or sheet == "":
        return names[0]
    if sheet in names:
        return sheet
    folded = {name.casefold(): name for name in names}
    if sheet.casefold() in folded:
        return folded[sheet.casefold()]
    if sheet.isdigit() and 1 <= int(sheet) <= len(names):
        return names[int(sheet) - 1]
    listed = ", ".join(repr(name) for name in names)
    raise FileError(f"{display}: no sheet {sheet!r}; the sheets are {listed} (--sheet NAME, or its number from 1)")
