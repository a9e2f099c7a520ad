"""Streaming CSV input: UTF-8 with or without BOM, CRLF or LF, `,` or `;`, quoted delimiters and newlines.

The file is read several times (validate, send, report) and never held in memory: stdin is spooled to
a temporary file first. Its SHA-256 names the import run (idempotency keys, journal).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from wfctl.errors import CliError

BOM = b"\xef\xbb\xbf"

csv.field_size_limit(10 * 1024 * 1024)


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
        self.header = self._read_header()

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
        """Every data row, streamed; blank lines are skipped."""
        lines = _LineCounter(self._text_lines())
        reader = csv.reader(lines, delimiter=self.delimiter)
        header = None
        number = 0
        start = 1
        for cells in reader:
            if header is None:
                header = self.header
                start = lines.count + 1
                continue
            line, start = start, lines.count + 1
            if not cells or (all(c == "" for c in cells) and len(cells) <= 1):
                continue
            number += 1
            extra = max(0, len(cells) - len(header))
            yield Row(number, line, {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(header)},
                      extra)

    # -- private -----------------------------------------------------------------------------

    def _text_lines(self) -> Iterator[str]:
        with open(self.path, "rb") as f:
            for number, raw in enumerate(f, start=1):
                if number == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    bad = raw[exc.start:exc.start + 1].hex()
                    guess = ""
                    try:
                        raw.decode("cp1252")
                        guess = " (it looks like Windows-1252/Latin-1 text)"
                    except UnicodeDecodeError:
                        pass
                    raise CliError(
                        f"{self.display}: line {number} is not UTF-8: byte 0x{bad} at position {exc.start + 1}"
                        f"{guess}; save the file as UTF-8 (CSV UTF-8 in a spreadsheet) and run again"
                    ) from None

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
        names = [h.strip() for h in header]
        seen: set[str] = set()
        for i, name in enumerate(names, start=1):
            if not name:
                raise CliError(f"{self.display}: line 1: column {i} has no name")
            if name in seen:
                raise CliError(f"{self.display}: line 1: column {name!r} appears twice")
            seen.add(name)
        return names


class _LineCounter:
    """An iterator of lines that counts them (csv.reader's line_num counts records' lines too,
    but only after a record is complete; this gives the physical line where each record starts)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.count = 0

    def __iter__(self) -> _LineCounter:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.count += 1
        return line


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
