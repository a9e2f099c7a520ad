"""Streaming CSV input: UTF-8 with or without BOM, CRLF or LF, `,` or `;`, quoted delimiters and newlines.

What spreadsheets write is accepted as it is: headers in any case (`Name`, `ClientId`: the header holds
the format's spelling, `written()` the file's), a trailing column with neither name nor values, and rows
whose cells are all empty (skipped, and counted in `blank_rows`).

The file is read several times (validate, send, report) and never held in memory: stdin is spooled to
a temporary file first. Its SHA-256 names the import run (idempotency keys, journal).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import itertools
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wfctl.files.csvformat import canonical_column
from wfctl.files.errors import BulkError, FileError
from wfctl.text.safetext import quoted

BOM = b"\xef\xbb\xbf"

# The longest cell read, in characters. The service caps text at 500 characters, but a list cell
# (rates, departments, bannedWorkers) has no cap: 1 MiB holds some 28,000 worker ids. A longer cell is
# almost always a quote that is never closed, which makes the rest of the file one cell.
MAX_CELL_CHARS = 1 << 20

csv.field_size_limit(MAX_CELL_CHARS)


@dataclass
class Row:
    number: int  # 1-based data row (the header is row 0)
    line: int  # physical line where the row starts
    cells: dict[str, str]
    extra: int = 0  # cells beyond the header's columns


def check_path(path: str) -> None:
    """FileError for a named input that is a directory or is not there (`-`, standard input, is not checked):
    said before anything is asked of the service."""
    if path == "-":
        return
    if os.path.isdir(path):
        raise FileError(f"{path}: a directory, not a file; give the CSV file's name")
    if not os.path.exists(path):
        raise FileError(f"{path}: no such file")


class CsvInput:
    """One input file (or stdin, spooled)."""

    def __init__(self, path: str, *, delimiter: str | None = None, sheet: str | None = None,
                 plural: str | None = None) -> None:
        self.plural = plural  # the records' command group (`sites`): named in the way out of a JSON file
        self._temporary: list[str] = []  # files of ours (stdin spooled, a sheet or a transcoding): removed
        self._lines: Any = None  # a workbook's: physical line of the CSV read -> the sheet's row
        self.sheet: str | None = None  # a workbook's: the sheet read
        self._sheets: list[str] = []
        self.notes: list[str] = []  # what was noticed about the file (said on stderr by run_import)
        self.workbook = False
        self.book: str | None = None  # a workbook's own file (`path` is then the CSV of its sheet)
        if path == "-":
            if _isatty(sys.stdin):  # not piped: say what the silence waits for
                sys.stderr.write("Reading the CSV from standard input: paste or type it, then press Ctrl-D on a "
                                 "line of its own (or give the file's name instead of -)...\n")
                sys.stderr.flush()
            binary = getattr(sys.stdin, "buffer", None)
            if binary is not None and _isatty(sys.stdin) and hasattr(binary, "read1"):
                self.path = self._spooled(binary, typed=True)
            elif binary is not None:
                self.path = self._spooled(binary)
            else:  # a text-only stdin (embedding, tests)
                self.path = self._spooled(sys.stdin, text=True)
            self.display = "<stdin>"
        else:
            check_path(path)
            self.path = path
            if not os.path.isfile(path):  # a named pipe, `<(cmd)` (/dev/fd/N): read once, so spooled as stdin
                try:
                    with open(path, "rb") as stream:
                        self.path = self._spooled(stream)
                except OSError as exc:
                    raise FileError(f"{path}: cannot read it: {(exc.strerror or str(exc)).lower()}") from None
            self.display = path
        try:
            self._open(delimiter, sheet)
        except BaseException:
            self.close()
            raise
        self.blank_rows = 0  # rows whose cells are all empty, skipped; known after one pass of rows()

    def _open(self, delimiter: str | None, sheet: str | None) -> None:
        from wfctl.files import workbook

        if delimiter is not None and len(delimiter) != 1:
            raise BulkError("--delimiter takes one character, e.g. ';' or ','")
        self.sha256, mojibake = _sha256(self.path)
        allow_tab = False
        if workbook.is_workbook(self.path):
            self.workbook = True
            self.book = self.path
            spool, self._lines, self.sheet = workbook.sheet_to_csv(self.path, self.display, sheet)
            self._sheets = workbook.sheet_names(self.path)
            self._temporary.append(spool)
            self.path = spool
            delimiter = ","
        else:
            if sheet is not None:
                raise FileError(f"{self.display}: --sheet is for workbooks (.xlsx); this file is text")
            head = _head(self.path)
            if head.startswith(ZIP_MAGIC_PREFIX):
                raise FileError(f"{self.display}: a ZIP archive but not an .xlsx workbook (an .ods file? "
                               "save it as .xlsx or CSV UTF-8)")
            if head.startswith(OLE2_MAGIC):
                raise FileError(f"{self.display}: an Excel 97-2003 workbook (.xls), which wfctl does not read; "
                               "save it as .xlsx (Excel Workbook) or CSV UTF-8 and run again")
            json_kind = _json_text(head)
            if json_kind:
                group = f"wfctl {self.plural}" if self.plural else "wfctl <kind>"
                raise FileError(f"{self.display}: this is {json_kind}, not CSV: import and diff read CSV or an .xlsx "
                                f"workbook (`wfctl help csv`; `{group} export` writes one); `{group} create "
                                "--from-file` takes one record as a JSON object")
            charset = _utf16(head)
            if charset:
                self.path = self._transcoded(charset, lambda data: data)
                allow_tab = True
            elif _cr_line_ends(head):  # Excel for Mac's "CSV (Macintosh)": CR ends lines (a cell's break too)
                self.path = self._transcoded(None, _LineEnds().fix)
            if mojibake:
                self.notes.append(_mojibake_note(self.display, self.path))
        self.delimiter = delimiter or self._sniff_delimiter(allow_tab)
        self._spelling: dict[str, str] = {}  # header name -> as the file writes it, where they differ
        self.header = self._read_header()

    def _spooled(self, stream: Any, *, typed: bool = False, text: bool = False) -> str:
        """A file of ours holding what `stream` gives (stdin, a named pipe): the file is read several times.
        `typed`: a terminal, where one Ctrl-D ends it (a full read() waits for two); `text`: a text stream."""
        fd, spool = tempfile.mkstemp(prefix="wfctl-import-", suffix=".csv")
        self._temporary.append(spool)
        with os.fdopen(fd, "wb") as out:
            if typed:
                while chunk := stream.read1(1 << 16):
                    out.write(chunk)
            elif text:
                while chunk := stream.read(1 << 20):
                    out.write(chunk.encode("utf-8"))
            else:
                shutil.copyfileobj(stream, out, 1 << 20)
        return spool

    def _transcoded(self, charset: str | None, fix: Any) -> str:
        """The file as UTF-8 (from `charset`, or as it is), each chunk through `fix`, in a file of ours."""
        fd, spool = tempfile.mkstemp(prefix="wfctl-import-", suffix=".csv")
        self._temporary.append(spool)
        with os.fdopen(fd, "wb") as out, open(self.path, "rb") as f:
            if charset is None:
                while chunk := f.read(1 << 20):
                    out.write(fix(chunk))
                out.write(fix(b""))  # what a fix held back from the last chunk
            else:
                import codecs

                decoder = codecs.getincrementaldecoder(charset)()
                try:
                    while chunk := f.read(1 << 20):
                        out.write(decoder.decode(chunk).encode("utf-8"))
                    out.write(decoder.decode(b"", final=True).encode("utf-8"))
                except UnicodeDecodeError:
                    raise FileError(f"{self.display}: the file starts as {charset.upper()} but is not UTF-16 "
                                   "throughout; save it as CSV UTF-8 and run again") from None
        return spool

    def columns_hint(self) -> str:
        """Why no column of the header is known, when the file says (for the planner's problems): the sheet
        read, and the others; a header that is one cell holding separators (a file read with another
        separator and saved again). Empty when there is nothing to say."""
        if self.sheet is not None:
            return f"sheet {quoted(self.sheet)} was read{self._other_sheets()}"
        if len(self.header) == 1 and any(ch in self.written(self.header[0]) for ch in ",;"):
            return (f"line 1 is one cell, {quoted(self.written(self.header[0])[:80])}: the program that saved the file "
                    "guessed another separator for it (Gnumeric takes ' when most rows start with '+44, or $ on "
                    "some files), so no row's cells are in their columns; open the original file again with ',' "
                    "as the separator")
        return ""

    def _other_sheets(self) -> str:
        others = [name for name in self._sheets if name != self.sheet]
        if not others:
            return ""
        first = " (the first)" if self._sheets and self._sheets[0] == self.sheet else ""
        return (f"{first}; the workbook's other sheets are {', '.join(map(quoted, others))}: "
                f"--sheet NAME (or its number from 1) reads another")

    def written(self, column: str) -> str:
        """A header column as the file writes it (`Client` for `client`), for messages."""
        return self._spelling.get(column, column)

    def close(self) -> None:
        while self._temporary:
            with contextlib.suppress(OSError):
                os.unlink(self._temporary.pop())

    def __enter__(self) -> CsvInput:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rows(self) -> Iterator[Row]:
        """Every data row, streamed. Rows whose cells are all empty are skipped and counted in
        `blank_rows`; empty cells past the header's columns are dropped, others count in `Row.extra`."""
        header = self.header
        for number, line, cells, extra in self.records():
            yield Row(number, line, dict(zip(header, cells, strict=True)), extra)

    def records(self) -> Iterator[tuple[int, int, list[str], int]]:
        """The rows of `rows()` as (number, line, cells, extra), `cells` in the header's order and as many:
        for a pass that reads cells by column position and makes no dict of a row it does not need."""
        header = self.header
        width = len(header)
        number = blank = 0
        start = 1
        with open(self.path, "rb") as f:
            first = f.readline()
            if first.startswith(BOM):
                first = first[len(BOM):]
            # each line decoded by map(), in C: no Python frame a line; csv counts the lines it takes
            lines = itertools.chain(map(bytes.decode, (first,)), map(bytes.decode, f))
            reader = csv.reader(lines, delimiter=self.delimiter)
            try:
                next(reader, None)  # the header, read by _read_header
                start = reader.line_num + 1
                lines = self._lines
                for cells in reader:
                    line, start = start, reader.line_num + 1
                    if lines is not None:  # a workbook: its sheet's row
                        line = lines[line] if line < len(lines) else line
                    if len(cells) == width and any(cells):
                        number += 1
                        yield number, line, cells, 0
                        continue
                    if not any(cells):
                        blank += 1
                        continue
                    while len(cells) > width and cells[-1] == "":
                        cells.pop()  # a spreadsheet's trailing empty column, or stray delimiters
                    number += 1
                    extra = max(0, len(cells) - width)
                    yield number, line, [*cells[:width], *[""] * (width - len(cells))], extra
            except csv.Error as exc:
                raise _csv_error(self.display, start, exc) from None
            except UnicodeDecodeError as exc:
                raise self._not_utf8(reader.line_num + 1, exc) from None
        self.blank_rows = blank

    # -- private -----------------------------------------------------------------------------

    def _text_lines(self) -> Iterator[str]:
        with open(self.path, "rb") as f:
            for number, raw in enumerate(f, start=1):
                if number == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise self._not_utf8(number, exc) from None

    def _not_utf8(self, number: int, exc: UnicodeDecodeError) -> FileError:
        """The error for line `number` (its bytes in `exc.object`, without a BOM) that is not UTF-8."""
        raw = bytes(exc.object)
        bad = raw[exc.start:exc.start + 1].hex()
        guess = ""
        try:
            raw.decode("cp1252")
            guess = " (it looks like Windows-1252/Latin-1 text)"
        except UnicodeDecodeError:
            pass
        return FileError(f"{self.display}: line {number} is not UTF-8: byte 0x{bad} at position {exc.start + 1}"
                        f"{guess}; save the file as UTF-8 (CSV UTF-8 in a spreadsheet) and run again")

    def _first_line(self) -> str:
        for line in self._text_lines():
            return line
        return ""

    def _sniff_delimiter(self, allow_tab: bool = False) -> str:
        line = self._first_line()
        counts = {",": 0, ";": 0, "\t": 0}
        quoted = False
        for ch in line:
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch in counts:
                counts[ch] += 1
        if counts["\t"] and not counts[","] and not counts[";"]:
            if allow_tab:  # UTF-16 "Unicode Text" is tab-separated
                return "\t"
            raise FileError(f"{self.display}: line 1 is separated by tabs, not ',' or ';': run again with "
                           "--delimiter $'\\t' (or save the file as CSV UTF-8)")
        return ";" if counts[";"] > counts[","] else ","

    def _read_header(self) -> list[str]:
        reader = csv.reader(self._text_lines(), delimiter=self.delimiter)
        try:
            header = next(reader)
        except StopIteration:
            if self.sheet is not None:
                raise FileError(f"{self.display}: sheet {quoted(self.sheet)} is empty (expected a header row)"
                                f"{self._other_sheets()}") from None
            raise FileError(f"{self.display}: the file is empty (expected a header line)") from None
        except csv.Error as exc:
            raise _csv_error(self.display, 1, exc) from None
        written = [h.strip() for h in header]
        if written and written[0].startswith(BOM_AS_CP1252):
            written[0] = written[0][len(BOM_AS_CP1252):].strip()
            # one note: the file's mojibake note would name the same reading (its example, if any, is kept)
            seen = [note for note in self.notes if note.startswith(_MOJIBAKE_SAID.format(display=self.display))]
            example = next((note[note.index(" ("):note.index(";")] for note in seen if " (" in note.split(";")[0]),
                           "")
            self.notes = [note for note in self.notes if note not in seen]
            self.notes.insert(0, f"{self.display}: the file starts with {quoted(BOM_AS_CP1252)}, a UTF-8 byte order "
                              "mark that a spreadsheet read as Windows-1252 and saved again; its text may be changed "
                              f"the same way{example} (" + _WAY_OUT + ")")
        while written and written[-1] == "":
            written.pop()  # a trailing column with no name: values in it count as extra cells
        names: list[str] = []
        first: dict[str, str] = {}
        for i, as_written in enumerate(written, start=1):
            if not as_written:
                raise FileError(f"{self.display}: line 1: column {i} has no name")
            name = canonical_column(as_written)
            if name in first:
                twice = repr(as_written) if first[name] == as_written else f"{first[name]!r} ({as_written!r})"
                raise FileError(f"{self.display}: line 1: column {twice} appears twice")
            first[name] = as_written
            if name != as_written:
                self._spelling[name] = as_written
            names.append(name)
        return names


def _csv_error(display: str, line: int, exc: csv.Error) -> FileError:
    text = str(exc)
    if "field larger than field limit" in text:
        cause = (f"a cell is longer than {MAX_CELL_CHARS} characters (is a quote left open? "
                 "it makes the rest of the file one cell)")
    elif "new-line character seen in unquoted field" in text:
        cause = "a line break (CR) inside a cell that is not in quotes; put the cell in quotes"
    else:
        cause = text
    return FileError(f"{display}: line {line}: {cause}")


def _sha256(path: str) -> tuple[str, bool]:
    """The file's SHA-256, and whether its bytes read like UTF-8 taken for Windows-1252 and saved again
    (one pass: looked for in the same chunks)."""
    digest = hashlib.sha256()
    suspect = False
    tail = b""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            if not suspect and b"\xc3" in chunk:
                from wfctl.files.damage import reads_like_mojibake

                suspect = reads_like_mojibake(tail + chunk)
            tail = chunk[-8:]
    return digest.hexdigest(), suspect


def _head(path: str, size: int = 1 << 16) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _json_text(head: bytes) -> str | None:
    """"JSON Lines" or "JSON" when the file's text begins as JSON does (an object or an array; a CSV header
    never begins with `{` or `[`), else None."""
    import json

    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text.startswith((b"{", b"[")):
        return None
    lines = [line.strip() for line in text.splitlines()[:3] if line.strip()]
    try:
        if len(lines) > 1 and all(isinstance(json.loads(line), dict) for line in lines[:2]):
            return "JSON Lines"
    except ValueError:
        pass
    return "JSON"


def _utf16(head: bytes) -> str | None:
    """"utf-16" when the file is UTF-16 (by its byte order mark, or NUL bytes between ASCII ones)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = head[:200]
    if len(sample) >= 4 and sample.count(0) * 3 >= len(sample):
        return "utf-16-le" if sample[1] == 0 else "utf-16-be"
    return None


def _mojibake_note(display: str, path: str) -> str:
    from wfctl.files.damage import example

    with open(path, "rb") as f:
        found = example(f.read(1 << 22))
    seen = f" ({quoted(found[0])} for {quoted(found[1])})" if found else ""
    return (_MOJIBAKE_SAID.format(display=display) +
            f"{seen}; rows that would change a record this way are stopped before sending (" + _WAY_OUT + ")")


_MOJIBAKE_SAID = "{display}: its text reads like UTF-8 that a spreadsheet opened as Windows-1252 and saved again"


def _cr_line_ends(head: bytes) -> bool:
    """Whether the first line break outside quotes is a CR alone (Excel for Mac's "CSV (Macintosh)"); a
    quoted cell may hold another kind of break before it."""
    quoted_ = False
    for match in re.finditer(rb'["\r\n]', head):
        ch = match.group()
        if ch == b'"':
            quoted_ = not quoted_
        elif not quoted_:
            return ch == b"\r" and head[match.end():match.end() + 1] != b"\n"
    return False


class _LineEnds:
    """CR and CRLF as LF, chunk by chunk (a CR ending one chunk and an LF starting the next are one)."""

    def __init__(self) -> None:
        self.held = b""

    def fix(self, chunk: bytes) -> bytes:
        data = self.held + chunk
        self.held = b"\r" if data.endswith(b"\r") and chunk else b""
        if self.held:
            data = data[:-1]
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


ZIP_MAGIC_PREFIX = b"PK\x03\x04"
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a compound file: .xls (Excel 97-2003)
BOM_AS_CP1252 = BOM.decode("cp1252")  # "ï»¿"
_WAY_OUT = ("re-export as .xlsx with export -f FILE.xlsx, or open the CSV as UTF-8: "
            "Unicode (UTF-8) in the import dialog, Data > From Text/CSV in Excel")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
