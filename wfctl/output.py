"""Every way a record leaves the program: table, json, jsonl and csv.

One `Output` per command, built by `AppContext.output()`. Records are plain dicts exactly as the
service sends them. Rows are written as they arrive for json, jsonl and csv (constant memory for
`list --all`); a table needs every row to size its columns, so it collects them.

On a terminal a table is drawn with Rich; anywhere else it is plain aligned text: no colour, no
truncation, and no Rich import (Rich costs tens of milliseconds to import, and json/jsonl/csv never
need it).

What the service sent is data, never markup or terminal control: a table shows every value through
`wfctl.safetext` (control characters escaped, line breaks as spaces) and hands Rich `Text`, never a
string it would parse as markup; json escapes DEL and C1 controls too; csv cells that a spreadsheet
would run as a formula get a `'` in front.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from wfctl.safetext import json_text, one_line

if TYPE_CHECKING:
    from wfctl.api.client import Page
    from wfctl.context import IO

#: Columns of a list table, per kind (other formats show every field the service sent).
LIST_COLUMNS: dict[str, list[str]] = {
    "branch": ["id", "name", "address", "phone", "email", "createdOn"],
    "client": ["id", "name", "branchId", "email", "phone", "createdOn"],
    "site": ["id", "name", "address", "phone", "email", "assessmentRequired", "createdOn"],
}

#: Fields of a record shown as their own section by `get` in a table, with their columns.
SECTIONS: dict[str, list[str]] = {
    "rates": ["skill", "hourlyRate"],
    "departments": ["name", "contactPerson", "email"],
    "documents": ["name", "url"],
    "bannedWorkers": [],
}

_NO_WRAP = {"id", "branchId", "clientId", "phone", "email", "assessmentRequired", "createdOn", "updatedOn",
            "modifiedOn"}

_PLURAL = {"agency": "agencies", "branch": "branches", "client": "clients", "site": "sites"}


def plural(kind: str | None, count: int) -> str:
    """'1 client', '63 clients', '0 records'."""
    noun = kind or "record"
    return f"{count} {noun if count == 1 else _PLURAL.get(noun, noun + 's')}"


def parse_fields(fields: str | None) -> list[str] | None:
    if not fields:
        return None
    names = [name.strip() for name in fields.split(",") if name.strip()]
    return names or None


class Output:
    """Writes records to stdout in one format (`table`, `json`, `jsonl` or `csv`)."""

    def __init__(self, io: IO, fmt: str, *, fields: str | None = None) -> None:
        self.io = io
        self.format = fmt
        self.fields = parse_fields(fields)
        self._pretty = io.stdout_is_tty
        self._bold = "bold" if io.color else None  # --no-color/NO_COLOR: no escape codes at all

    # -- one object ----------------------------------------------------------------
    def record(self, record: dict[str, Any], kind: str | None = None) -> None:
        """One record (get, create, update, agency show)."""
        if self.format == "json":
            self._write_json(self._select(record))
        elif self.format == "jsonl":
            self.io.write(json_text(_compact(self._select(record))) + "\n")
        elif self.format == "csv":
            self.records([record], kind)
        else:
            self._record_table(record, kind)

    # -- many records --------------------------------------------------------------
    def records(self, rows: Iterable[dict[str, Any]], kind: str | None = None,
                columns: list[str] | None = None) -> int:
        """Rows of a list; returns how many were written."""
        return self._rows_out([list(rows)], kind, columns)

    def pages(self, pages: Iterable[Page], kind: str | None = None, columns: list[str] | None = None,
              limit: int | None = None) -> int:
        """The rows of each page as it arrives; a table ends with 'page 2 of 7, 63 clients'."""
        footer: list[tuple[int, int, int]] = []  # (number, count, total records) of the first and last page

        def chunks() -> Iterator[list[dict[str, Any]]]:
            for page in pages:
                numbers = (page.page_number, page.page_count, page.total_record_count)
                if footer:
                    footer[1:] = [numbers]
                else:
                    footer.append(numbers)
                rows = page.data
                del page  # only the rows travel on: the page's answer is not kept while the next is fetched
                yield rows

        count = self._rows_out(chunks(), kind, columns, limit=limit)
        if self.format == "table" and footer and self.io.stdout_is_tty:
            self.io.write(_footer(footer[0], footer[-1], count, kind, limit) + "\n")
        return count

    # -- other documents -----------------------------------------------------------
    def result(self, obj: dict[str, Any]) -> None:
        """An outcome such as delete's {status, message}: json prints it, a table its message."""
        if self.format == "json":
            self._write_json(obj)
        elif self.format == "jsonl":
            self.io.write(json_text(_compact(obj)) + "\n")
        else:
            message = obj.get("message") or obj.get("status") or ""
            self.io.write(f"{one_line(str(message))}\n")

    def value(self, obj: Any) -> None:
        """A raw JSON document: indented on a terminal, compact in a pipe."""
        self._write_json(obj)

    # -- json ----------------------------------------------------------------------
    def _write_json(self, obj: Any) -> None:
        self.io.write(json_text((_indented if self._pretty else _compact)(obj)) + "\n")

    def _select(self, record: dict[str, Any]) -> dict[str, Any]:
        if not self.fields:
            return record
        return {name: record.get(name) for name in self.fields}

    # -- rows ----------------------------------------------------------------------
    def _rows_out(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
                  columns: list[str] | None, *, limit: int | None = None) -> int:
        limited = _limited(chunks, limit) if limit is not None else chunks
        if self.format == "json":
            return self._json_array(limited)
        if self.format == "jsonl":
            return self._jsonl(limited)
        if self.format == "csv":
            return self._csv(limited, kind, columns)
        return self._table(limited, kind, columns)

    def _json_array(self, chunks: Iterable[list[dict[str, Any]]]) -> int:
        count = 0
        write = self.io.write
        encode = _indented if self._pretty else _compact
        first, between = ("[\n  ", ",\n  ") if self._pretty else ("[", ",")
        for chunk in chunks:
            if not chunk:
                continue
            texts = [encode(row) for row in self._selected(chunk)]
            if self._pretty:
                texts = [text.replace("\n", "\n  ") for text in texts]
            write(json_text((first if count == 0 else between) + between.join(texts)))  # one write per page
            count += len(texts)
        if count == 0:
            write("[]\n")
        else:
            write("\n]\n" if self._pretty else "]\n")
        return count

    def _jsonl(self, chunks: Iterable[list[dict[str, Any]]]) -> int:
        count = 0
        write = self.io.write
        for chunk in chunks:
            if chunk:
                write(json_text("\n".join(map(_compact, self._selected(chunk)))) + "\n")  # one write per page
                count += len(chunk)
        return count

    def _selected(self, rows: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
        return map(self._select, rows) if self.fields else rows

    def _csv(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
             columns: list[str] | None) -> int:
        import csv
        import io as stdio

        buffer = stdio.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        encode = None
        count = 0
        for chunk in chunks:
            for row in chunk:
                if encode is None:
                    encode, header = _csv_encoder(kind, self.fields or columns, dict.fromkeys(_keys_of(chunk)))
                    writer.writerow(header)
                writer.writerow(encode(row))
                count += 1
            self.io.write(buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
        if encode is None:
            writer.writerow(_csv_encoder(kind, self.fields or columns, {})[1])
        self.io.write(buffer.getvalue())
        return count

    # -- tables --------------------------------------------------------------------
    def _table(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
               columns: list[str] | None) -> int:
        rows = [row for chunk in chunks for row in chunk]
        names = self.fields or columns or LIST_COLUMNS.get(kind or "") or _keys_of(rows)
        cells = [[shown(row.get(name)) for name in names] for row in rows]
        if self.io.stdout_is_tty:
            from rich.table import Table
            from rich.text import Text

            table = Table(box=_box(), show_edge=False, pad_edge=False, header_style=self._bold)
            for name in names:
                table.add_column(Text(one_line(name)), overflow="ellipsis" if name in _NO_WRAP else "fold",
                                 no_wrap=name in _NO_WRAP)
            for line in cells:
                table.add_row(*map(Text, line))
            with self._rich() as console:
                console.print(table)
        else:
            self.io.write(_plain_table(names, cells))
        return len(rows)

    def _record_table(self, record: dict[str, Any], kind: str | None) -> None:
        names = self.fields or list(record)
        scalars = [(one_line(name), shown(record.get(name))) for name in names if name not in SECTIONS]
        sections = [name for name in names if name in SECTIONS and name in record]
        if self.io.stdout_is_tty:
            self._rich_record(scalars, sections, record)
            return
        width = max((len(name) for name, _ in scalars), default=0)
        lines = [f"{name + ':':<{width + 1}} {value}".rstrip() for name, value in scalars]
        for name in sections:
            lines.append("")
            items = record.get(name) or []
            lines.append(f"{name} ({len(items)}):")
            if items:
                lines.extend("  " + line for line in _section_lines(name, items))
        self.io.write("\n".join(lines) + "\n")

    def _rich_record(self, scalars: list[tuple[str, str]], sections: list[str], record: dict[str, Any]) -> None:

        with self._rich() as console:
            self._rich_sections(console, scalars, sections, record)

    @contextmanager
    def _rich(self) -> Iterator[Any]:
        """The Rich console, its output captured so that the cell padding at line ends can go."""
        console = self.io.console
        with console.capture() as capture:
            yield console
        self.io.write("".join(line.rstrip() + "\n" for line in capture.get().splitlines()))

    def _rich_sections(self, console: Any, scalars: list[tuple[str, str]], sections: list[str],
                       record: dict[str, Any]) -> None:
        from rich.table import Table
        from rich.text import Text

        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=self._bold)
        grid.add_column(overflow="fold")
        for name, value in scalars:
            grid.add_row(Text(name), Text(value))
        console.print(grid)
        for name in sections:
            items = record.get(name) or []
            console.print()
            console.print(Text(f"{name} ({len(items)})", style=self._bold or ""))
            if not items:
                continue
            if not SECTIONS[name]:
                for item in items:
                    console.print(Text(f"  {shown(item)}"))
                continue
            table = Table(box=_box(), show_edge=False, pad_edge=False, header_style=self._bold)
            for column in SECTIONS[name]:
                table.add_column(column, overflow="fold")
            for item in items:
                table.add_row(*(Text(shown(_get(item, column), column)) for column in SECTIONS[name]))
            console.print(table)


def cell(value: Any, name: str | None = None) -> str:
    """A value as table text: '' for missing, true/false, 2-decimal money, JSON for nested values."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "hourlyRate" and isinstance(value, int | float):
        return f"{value:.2f}"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return _compact(value)


# One encoder each for the process (json.dumps builds one per call). Records are decoded JSON or
# built here, so they cannot refer to themselves: the circular-reference check is skipped.
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
_indented = json.JSONEncoder(indent=2, ensure_ascii=False, check_circular=False).encode


def _limited(chunks: Iterable[list[dict[str, Any]]], limit: int) -> Iterator[list[dict[str, Any]]]:
    """Lists of rows, stopping (and closing the source, so no further page is fetched) at `limit`."""
    left = limit
    source = iter(chunks)
    try:
        for rows in source:
            rows = rows[:left]
            left -= len(rows)
            yield rows
            if left <= 0:
                return
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def _keys_of(rows: list[dict[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows[:50]:
        names.update(dict.fromkeys(row))
    return list(names)


def shown(value: Any, name: str | None = None) -> str:
    """A value as a person sees it in a table: `cell`, on one line, control characters escaped."""
    return one_line(cell(value, name))


def _get(item: Any, column: str) -> Any:
    return item.get(column) if isinstance(item, dict) else item


def _section_lines(name: str, items: list[Any]) -> list[str]:
    columns = SECTIONS[name]
    if not columns:
        return [shown(item) for item in items]
    return _plain_table(columns, [[shown(_get(item, c), c) for c in columns] for item in items]).splitlines()


def _plain_table(names: list[str], rows: list[list[str]]) -> str:
    """Aligned columns, two spaces apart, nothing cut: what a pipe gets instead of a Rich table.
    `rows` hold `shown` text: one line each, nothing a terminal would act on."""
    names = [one_line(name) for name in names]
    widths = [max([len(name)] + [len(row[i]) for row in rows]) for i, name in enumerate(names)]
    lines = ["  ".join(value.ljust(widths[i]) for i, value in enumerate(row)).rstrip()
             for row in [names, *rows]]
    return "\n".join(lines) + "\n"


def _box() -> Any:
    from rich import box

    return box.SIMPLE_HEAD


def _footer(first: tuple[int, int, int], last: tuple[int, int, int], count: int, kind: str | None,
            limit: int | None) -> str:
    """`first` and `last` are (page number, page count, total records) of the first and last page."""
    first_number = first[0]
    last_number, page_count, total_records = last
    total = plural(kind, total_records)
    if first_number == last_number:
        text = f"page {last_number} of {page_count}, {total}"
    else:
        text = f"pages {first_number}-{last_number} of {page_count}, {total}"
    if limit is not None and count < total_records:
        text += f" (showing {count})"
    return text


#: Import columns that list items never carry (the specification's list shapes).
_NOT_IN_LIST_ITEMS = {"client": {"billingAddress"}, "site": {"rates", "departments", "bannedWorkers"}}


def _import_columns(kind: str, columns: list[str], present: dict[str, Any]) -> list[str]:
    """`id` (which import ignores), then only the import columns the records carry: fed back to
    import, a column absent from the file leaves its field as it is, where an empty one would clear it."""
    if present:
        return ["id", *(name for name in columns if name in present)]
    return ["id", *(name for name in columns if name not in _NOT_IN_LIST_ITEMS.get(kind, ()))]


def _csv_encoder(kind: str | None, columns: list[str] | None, first: dict[str, Any]) -> tuple[Any, list[str]]:
    """(row -> cells, header) in the import format of `kind` (wfctl.bulk.csvformat)."""
    if kind in ("branch", "client", "site"):
        import importlib

        csvformat = importlib.import_module("wfctl.bulk.csvformat")
        names = columns or _import_columns(kind, csvformat.columns_for(kind), first)
        return (lambda row: csvformat.encode_record(kind, row, names)), names
    from wfctl.bulk.csvformat import neutralise

    names = columns or list(first)
    return (lambda row: [_csv_cell(row.get(name), neutralise) for name in names]), [neutralise(n) for n in names]


def _csv_cell(value: Any, neutralise: Any) -> str:
    """A cell of a csv that is not in an import format: a number stays a number (`-5` is no formula)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return cell(value)
    return neutralise(cell(value))
