"""Workbooks (.xlsx) in and out of the bulk commands (issue 21 §2).

Reading: a workbook is recognised by what it holds (a ZIP archive with `xl/workbook.xml`), not by its
name. One sheet (`--sheet NAME|N`, the first by default) is written to a temporary CSV file of its cells
as a person sees them, which the CSV path then reads: the same columns, checks, plan, journal and undo.

- text exactly; a boolean as `true`/`false`; a formula by its computed (cached) value;
- a number as the digits the sheet shows (`1614960000`, never `1614960000.0`; 15 significant digits as a
  spreadsheet keeps them: `4000123412341230`, never `4.00012341234123E+15`); a date as YYYY-MM-DD;
- empty rows and empty columns after the last named one are left out; a row's line in messages is the
  sheet's row number.

Writing (`export -f FILE.xlsx`) is `wfctl.bulk.sheetwriter`'s `SheetWriter` (re-exported here).

Reading streams the sheet's XML, by regular expressions while it is plain (as spreadsheet programs write
it: faster than by the parser's elements), else by the standard library's C parser, and keeps shared
strings as one UTF-8 buffer: python-calamine reads faster but holds the whole sheet, so a large plan's
memory would grow with the sheet (a CSV's does not), and openpyxl's read-only mode is far slower
(bench/workbook.py and README, Performance, have this module's figures). This module is imported only
when a workbook is read or written.
"""

from __future__ import annotations

import csv
import datetime
import os
import re
import tempfile
import zipfile
from array import array
from decimal import Decimal
from typing import Any

from wfctl.bulk.errors import BulkError, FileError
from wfctl.bulk.sheetwriter import MAX_WIDTH, SheetWriter

ZIP_MAGIC = b"PK\x03\x04"
XLSX_EXTENSIONS = (".xlsx", ".xlsm")

__all__ = ["MAX_WIDTH", "XLSX_EXTENSIONS", "ZIP_MAGIC", "SheetWriter", "is_workbook", "is_workbook_name",
           "sheet_to_csv"]


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
            names, targets, strings_part, styles_part = _book_parts(archive, display)
            chosen = _choose_sheet(display, names, sheet)
            strings = _SharedStrings(archive, strings_part)
            dates = _date_styles(archive, styles_part)
            writer = csv.writer(out, lineterminator="\n")
            width = -1
            for number, texts in _rows(archive, targets[chosen], strings, dates):
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


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _book_parts(archive: zipfile.ZipFile, display: str) -> tuple[list[str], dict[str, str], str | None, str | None]:
    """The sheets' names in order, each one's part, and the shared strings' and styles' parts."""
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
    for element in book.iter():
        if _local(element.tag) == "sheet":
            rid = next((v for k, v in element.attrib.items() if _local(k) == "id"), "")
            if rid in by_id and by_id[rid] in archive.NameToInfo:  # a worksheet (chart sheets have none)
                name = element.get("name", f"Sheet{len(names) + 1}")
                names.append(name)
                targets[name] = by_id[rid]
    return names, targets, strings, styles


class _SharedStrings:
    """The workbook's shared strings, kept as one UTF-8 buffer and their offsets (a few bytes a string
    beyond its text, where a list of str takes some 60): a sheet of 100,000 rows stays small."""

    def __init__(self, archive: zipfile.ZipFile, part: str | None) -> None:
        self._data = bytearray()
        self._ends = array("Q")
        if part is None or part not in archive.NameToInfo:
            return
        from xml.etree import ElementTree

        with archive.open(part) as f:
            for _, element in ElementTree.iterparse(f):
                if _local(element.tag) == "si":
                    self._data += _inline_text(element).encode("utf-8")
                    self._ends.append(len(self._data))
                    element.clear()

    def __getitem__(self, index: int) -> str:
        start = self._ends[index - 1] if index else 0
        return self._data[start:self._ends[index]].decode("utf-8")


def _inline_text(element: Any) -> str:
    """The text of an `<si>` or `<is>`: its `<t>`, or its rich-text runs' `<t>`s (phonetic runs left out)."""
    parts = []
    for child in element:
        tag = _local(child.tag)
        if tag == "t":
            parts.append(child.text or "")
        elif tag == "r":
            parts.extend(t.text or "" for t in child if _local(t.tag) == "t")
    return "".join(parts)


_DATE_FORMATS = frozenset(range(14, 23)) | {45, 46, 47}


def _date_styles(archive: zipfile.ZipFile, part: str | None) -> frozenset[int]:
    """The cell styles (`s` of a cell) whose number format shows a date or a time."""
    if part is None or part not in archive.NameToInfo:
        return frozenset()
    from xml.etree import ElementTree

    root = ElementTree.fromstring(archive.read(part))
    custom: dict[int, str] = {}
    dates: set[int] = set()
    for element in root.iter():
        if _local(element.tag) == "numFmt":
            custom[int(element.get("numFmtId", "0"))] = element.get("formatCode", "")
    for element in root:
        if _local(element.tag) != "cellXfs":
            continue
        for index, xf in enumerate(child for child in element if _local(child.tag) == "xf"):
            fmt = int(xf.get("numFmtId", "0"))
            code = re.sub(r'"[^"]*"|\[[^]]*]|\\.', "", custom.get(fmt, "")).lower()
            if fmt in _DATE_FORMATS or (fmt in custom and re.search(r"[dmyhs]", code) and "0" not in code):
                dates.add(index)
    return frozenset(dates)


def _column(ref: str) -> int:
    """The 0-based column of a cell reference (`B3` -> 1)."""
    n = 0
    for ch in ref:
        if "A" <= ch <= "Z":
            n = n * 26 + ord(ch) - 64
        else:
            break
    return n - 1


def _rows(archive: zipfile.ZipFile, part: str, strings: _SharedStrings, dates: frozenset[int]) -> Any:
    """(sheet row number, cells as text) of each row the sheet holds, streamed: by the fast path while the
    sheet's XML is plain; a sheet it does not recognise is read again from its start by the parser (the
    rows the fast path gave are given again)."""
    if FAST:
        try:
            yield from _fast_rows(archive, part, strings, dates)
            return
        except _NotPlain:
            yield _RESTART
    yield from _parsed_rows(archive, part, strings, dates)


#: Whether sheets are read by the regular-expression fast path first (the tests compare both paths).
FAST = True
_RESTART: tuple[int, list[str]] = (-1, [])  # a row before which the rows given so far are to be forgotten


class _NotPlain(Exception):
    """The sheet's XML is not what the fast path reads: the parser reads it."""


def _parsed_rows(archive: zipfile.ZipFile, part: str, strings: _SharedStrings, dates: frozenset[int]) -> Any:
    """The rows by the standard library's parser: any well-formed XML."""
    from xml.etree import ElementTree

    number = 0
    row_tag = ""
    with archive.open(part) as f:
        for _, element in ElementTree.iterparse(f):
            tag = element.tag
            if tag != row_tag:
                if _local(tag) != "row":
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
                texts.append(_cell_text(cell, strings, dates))
            yield number, texts
            element.clear()  # an emptied row stays in the tree: a few dozen bytes


# The fast path: a sheet's XML as spreadsheet programs write it (unprefixed elements, attributes in
# double quotes, cells of a value, a formula and its value, or an inline string of one text), read by
# regular expressions a row at a time, several times faster than the parser's elements. Anything else (a
# prefix, a DOCTYPE, a comment, CDATA, rich text, single quotes, a carriage return, an unknown entity,
# an unusual attribute order) raises _NotPlain.
_CHUNK = 1 << 20
_MAX_ROW = 1 << 24  # a row's XML longer than this: not plain
_SHEET_DATA = re.compile(r"<sheetData\s*(/?)>")
_ROW = re.compile(r'\s*<row((?:\s+[\w:]+="[^"<]*")*)\s*(/?)>')  # a row's start tag
_ROW_NUMBER = re.compile(r'\sr="([^"]*)"')
_CELL_XML = (
    r'\s*<c(?:\s+r="([A-Z]*)\d*")?(?:\s+s="(\d+)")?(?:\s+t="(\w+)")?((?:\s+[\w:]+="[^"<]*")*)\s*'
    r'(?:/>|>(?:(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?(<v>[^<]*)</v>|<is><t(?:\s+xml:space="preserve")?>([^<]*)</t></is>'
    r'|<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>|)</c>)')
_CELL = re.compile(_CELL_XML)
_CELLS = re.compile(f"(?:{_CELL_XML})*\\s*")  # a row's content: cells only
# The cells most sheets hold (a reference, maybe a style and a type; a value or an inline string), the
# same groups: a simpler expression, tried first.
_COMMON_XML = r'<c r="([A-Z]+)\d+"(?: s="(\d+)")?(?: t="(\w+)")?()>(?:(<v>[^<]*)</v>|<is><t>([^<]*)</t></is>)</c>'
_COMMON = re.compile(_COMMON_XML)
_COMMONS = re.compile(f"(?:{_COMMON_XML})*")
_OTHER_RST = re.compile(r'\s[rst]="')
_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_END = re.compile(r"\s*</sheetData>")


def _fast_rows(archive: zipfile.ZipFile, part: str, strings: _SharedStrings, dates: frozenset[int]) -> Any:
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
                raise _NotPlain from None

        buf = more()
        while True:  # the prologue: up to <sheetData>
            found = _SHEET_DATA.search(buf)
            if found:
                break
            chunk = more()
            if not chunk or len(buf) > _MAX_ROW:
                raise _NotPlain
            buf += chunk
        head = buf[:found.start()]
        if "<!" in head or "<worksheet" not in head or not _plain_declaration(head):
            raise _NotPlain
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
                    raise _NotPlain
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
                raise _NotPlain
            given = _ROW_NUMBER.search(attributes)
            if given is None or not given.group(1):
                number += 1
            elif given.group(1).isdigit() and given.group(1).isascii():
                number = int(given.group(1))
            else:
                raise _NotPlain
            texts: list[str] = []
            if content:
                if "\r" in content or "<!" in content:
                    raise _NotPlain
                if _COMMONS.fullmatch(content) is not None:
                    cells = _COMMON.findall(content)
                elif _CELLS.fullmatch(content) is not None:
                    cells = _CELL.findall(content)
                else:
                    raise _NotPlain
                for letters, style, kind, other, value, inline in cells:
                    if other and (_OTHER_RST.search(other) or "'" in other):
                        raise _NotPlain
                    if letters:
                        column = columns.get(letters)
                        if column is None:
                            column = columns[letters] = _column(letters)
                        if column > len(texts):
                            texts.extend([""] * (column - len(texts)))
                    if kind == "inlineStr":
                        texts.append(_unescape(inline) if "&" in inline else inline)
                    elif not value:  # no <v>
                        texts.append("")
                    else:
                        value = value[3:]
                        if "&" in value:
                            value = _unescape(value)
                        texts.append(_value_text(kind or "n", value, style or None, strings, dates))
            yield number, texts


def _plain_declaration(head: str) -> bool:
    """Whether the XML declaration (if any) says UTF-8 and the root element has no prefix."""
    if head.startswith("<?xml"):
        declaration = head[:head.find("?>") + 2]
        encoding = re.search(r'encoding\s*=\s*["\']([^"\']*)', declaration)
        if encoding and encoding.group(1).lower().replace("-", "").replace("_", "") != "utf8":
            return False
    return re.search(r"<worksheet[\s>]", head) is not None


def _unescape(text: str) -> str:
    """XML's character and predefined entity references replaced (an `&` not one of them: not plain)."""
    if text.count("&") != len(_ENTITY.findall(text)):
        raise _NotPlain
    return _ENTITY.sub(_entity, text)


def _entity(match: re.Match[str]) -> str:
    name, decimal, hexadecimal = match.groups()
    if name:
        return _NAMED[name]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise _NotPlain  # not a character XML allows: the parser names the error
    return chr(code)


def _cell_text(cell: Any, strings: _SharedStrings, dates: frozenset[int]) -> str:
    kind = cell.get("t", "n")
    value = None
    inline = None
    for child in cell:
        tag = _local(child.tag)
        if tag == "v":
            value = child.text or ""
        elif tag == "is":
            inline = child
    if kind == "inlineStr":
        return _inline_text(inline) if inline is not None else ""
    if value is None:
        return ""
    return _value_text(kind, value, cell.get("s"), strings, dates)


def _value_text(kind: str, value: str, style: str | None, strings: _SharedStrings, dates: frozenset[int]) -> str:
    """The text a cell of type `kind` and style `style` shows for its `<v>` text `value`."""
    if kind == "s":
        return strings[int(value)]
    if kind in ("str", "e", "d"):
        return value
    if kind == "b":
        return "true" if value.strip() == "1" else "false"
    try:
        number = float(value)
    except ValueError:
        return value
    if style is not None and int(style) in dates:
        return _date(number)
    return _number(number)


def _date(serial: float) -> str:
    """A date cell (days since 1899-12-30, the 1900 system) as YYYY-MM-DD, with the time if it has one."""
    moment = datetime.datetime(1899, 12, 30) + datetime.timedelta(days=serial)
    moment = moment.replace(microsecond=0)
    return moment.date().isoformat() if moment.time() == datetime.time() else moment.isoformat(sep=" ")


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


def _number(value: float) -> str:
    """A number as a sheet shows it: its 15 significant digits, without E-notation or `.0`."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    shown = Decimal(f"{value:.15g}")
    if shown == shown.to_integral_value():
        return str(int(shown))
    return format(shown.normalize(), "f")
