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
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from wfctl.bulk.csvformat import canonical_column
from wfctl.errors import CliError

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


class CsvInput:
    """One input file (or stdin, spooled)."""

    def __init__(self, path: str, *, delimiter: str | None = None) -> None:
        self._spool: str | None = None
        if path == "-":
            fd, spool = tempfile.mkstemp(prefix="wfctl-import-", suffix=".csv")
            with os.fdopen(fd, "wb") as out:
                binary = getattr(sys.stdin, "buffer", None)
                if binary is not None:
                    shutil.copyfileobj(binary, out, 1 << 20)
                else:  # a text-only stdin (embedding, tests)
                    while chunk := sys.stdin.read(1 << 20):
                        out.write(chunk.encode("utf-8"))
            self._spool = spool
            self.path = spool
            self.display = "<stdin>"
        else:
            if not os.path.isfile(path):
                raise CliError(f"{path}: no such file")
            self.path = path
            self.display = path
        self.sha256 = _sha256(self.path)
        if delimiter is not None and len(delimiter) != 1:
            raise CliError("--delimiter takes one character, e.g. ';' or ','")
        self.delimiter = delimiter or self._sniff_delimiter()
        self._spelling: dict[str, str] = {}  # header name -> as the file writes it, where they differ
        self.header = self._read_header()
        self.blank_rows = 0  # rows whose cells are all empty, skipped; known after one pass of rows()

    def written(self, column: str) -> str:
        """A header column as the file writes it (`Client` for `client`), for messages."""
        return self._spelling.get(column, column)

    def close(self) -> None:
        if self._spool:
            with contextlib.suppress(OSError):
                os.unlink(self._spool)
            self._spool = None

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
                for cells in reader:
                    line, start = start, reader.line_num + 1
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

    def _not_utf8(self, number: int, exc: UnicodeDecodeError) -> CliError:
        """The error for line `number` (its bytes in `exc.object`, without a BOM) that is not UTF-8."""
        raw = bytes(exc.object)
        bad = raw[exc.start:exc.start + 1].hex()
        guess = ""
        try:
            raw.decode("cp1252")
            guess = " (it looks like Windows-1252/Latin-1 text)"
        except UnicodeDecodeError:
            pass
        return CliError(f"{self.display}: line {number} is not UTF-8: byte 0x{bad} at position {exc.start + 1}"
                        f"{guess}; save the file as UTF-8 (CSV UTF-8 in a spreadsheet) and run again")

    def _first_line(self) -> str:
        for line in self._text_lines():
            return line
        return ""

    def _sniff_delimiter(self) -> str:
        line = self._first_line()
        counts = {",": 0, ";": 0}
        quoted = False
        for ch in line:
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch in counts:
                counts[ch] += 1
        return ";" if counts[";"] > counts[","] else ","

    def _read_header(self) -> list[str]:
        reader = csv.reader(self._text_lines(), delimiter=self.delimiter)
        try:
            header = next(reader)
        except StopIteration:
            raise CliError(f"{self.display}: the file is empty (expected a header line)") from None
        except csv.Error as exc:
            raise _csv_error(self.display, 1, exc) from None
        written = [h.strip() for h in header]
        while written and written[-1] == "":
            written.pop()  # a trailing column with no name: values in it count as extra cells
        names: list[str] = []
        first: dict[str, str] = {}
        for i, as_written in enumerate(written, start=1):
            if not as_written:
                raise CliError(f"{self.display}: line 1: column {i} has no name")
            name = canonical_column(as_written)
            if name in first:
                twice = repr(as_written) if first[name] == as_written else f"{first[name]!r} ({as_written!r})"
                raise CliError(f"{self.display}: line 1: column {twice} appears twice")
            first[name] = as_written
            if name != as_written:
                self._spelling[name] = as_written
            names.append(name)
        return names


def _csv_error(display: str, line: int, exc: csv.Error) -> CliError:
    text = str(exc)
    if "field larger than field limit" in text:
        cause = (f"a cell is longer than {MAX_CELL_CHARS} characters (is a quote left open? "
                 "it makes the rest of the file one cell)")
    elif "new-line character seen in unquoted field" in text:
        cause = "a line break (CR) inside a cell that is not in quotes; put the cell in quotes"
    else:
        cause = text
    return CliError(f"{display}: line {line}: {cause}")


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
