"""Every way a record leaves the program: table, wide, json, jsonl, csv and yaml.

`FORMATS` is the one list of formats: -o's choices, its help and completion (wfctl.commands.output_options)
and the config's check of the `output` setting read it; `is_machine` (and `Output.machine`) is the one
answer to "is this output for a program?". A new format is its name there and its writer here.

One `Output` per command, built by `AppContext.output()`. Records are plain dicts exactly as the service
sends them. Rows are written as they arrive for json, jsonl and csv (constant memory for `list --all`); a
table needs every row to size its columns, so it collects them.

A table (on a terminal drawn with Rich, in a pipe plain aligned text) is `wfctl.render.tables`' part; this
module chooses the format and writes json, jsonl and csv. What the service sent is data, never markup
or terminal control: json escapes DEL and C1 controls too; csv cells that a spreadsheet would run as a
formula get a `'` in front where a spreadsheet may open them (a file, a terminal's copy and paste), not when
stdout is a pipe to another program, which gets the values (`+44 ...`, never `'+44 ...`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from wfctl.render.tables import Tables, cell, compact, keys_of
from wfctl.text.safetext import json_text, one_line

if TYPE_CHECKING:
    from wfctl.api.client import Page
    from wfctl.render.streams import IO


#: Every output format, in the order --help names them, with what its name alone does not say.
FORMATS: dict[str, str] = {
    "table": "",
    "wide": "a table of every column",
    "json": "",
    "jsonl": "",
    "csv": "",
    "yaml": "",
}
#: The formats written for a program, not a person: under them errors are JSON too.
MACHINE_FORMATS = frozenset({"json", "jsonl"})
#: The formats that write the document itself (a program's shape, not a person's view): json, jsonl, yaml.
STRUCTURED_FORMATS = frozenset({"json", "jsonl", "yaml"})
#: The formats drawn as a table, for a person to read.
TABLE_FORMATS = frozenset({"table", "wide"})


def is_machine(fmt: str | None) -> bool:
    """Whether `fmt` (a name of FORMATS, or what a user typed) is output for a program: json or jsonl."""
    return fmt in MACHINE_FORMATS


def plural(kind: str | None, count: int) -> str:
    """'1 client', '63 clients', '0 records' (`wfctl.api.records.resources.counted`)."""
    from wfctl.api.records.resources import counted

    return counted(kind, count)


def parse_fields(fields: str | None) -> list[str] | None:
    if not fields:
        return None
    names = [name.strip() for name in fields.split(",") if name.strip()]
    return names or None


def field_names(kind: str, asked: list[str], option: str = "--fields") -> list[str]:
    """The `--fields` names of a `kind` record in the service's spelling, matched as an import's headers
    are (any case; spaces and underscores aside: `Name`, `client id`). A name the kind does not have is
    an error naming the nearest (exit 2), before anything is asked of the service: a column of nulls
    would read as "none"."""
    from wfctl.api.records.resources import record_fields

    whose = "the agency's" if kind == "agency" else f"a {kind}'s"
    return spelled_names(asked, record_fields(kind), option, whose)


def spelled_names(asked: list[str], known: Iterable[str], option: str, whose: str) -> list[str]:
    """`asked` as `known` spells them (any case; spaces and underscores aside); a name not known is an error
    naming the nearest and every known one (`whose` fields), exit 2."""
    from wfctl.clierror import CliError
    from wfctl.files.csvformat import header_key, nearest_name

    known = list(known)
    by_key = {header_key(name): name for name in reversed(known)}
    names = []
    for name in asked:
        spelled = name if name in known else by_key.get(header_key(name))
        if spelled is None:
            near = nearest_name(name, known)
            hint = f"did you mean {near}? " if near else ""
            raise CliError(f"{option} {one_line(name)}: unknown field; {hint}{whose} fields are {', '.join(known)}")
        names.append(spelled)
    return names


class Output:
    """Writes records to stdout in one format (`table`, `wide`, `json`, `jsonl` or `csv`). `wide` is a
    table of every field, no column left out (kubectl's `-o wide`). `fields` of a `kind` are checked
    and spelled as the service spells them (`field_names`)."""

    def __init__(self, io: IO, fmt: str, *, fields: str | None = None, kind: str | None = None) -> None:
        self.io = io
        self.format = fmt
        self.fields = parse_fields(fields)
        if self.fields and kind is not None:
            self.fields = field_names(kind, self.fields)
        self._pretty = io.stdout_is_tty
        self._tables = Tables(io, fmt, self.fields)

    #: Whether --jq, --sort-by or --columns shape what is written (wfctl.render.shaped.ShapedOutput).
    shaped = False
    #: Whether a run's document was written (`run_rows`): its counts' `line` then adds nothing.
    _document_written = False

    @property
    def machine(self) -> bool:
        """Whether this output is for a program (json, jsonl; `is_machine`): errors are JSON too."""
        return is_machine(self.format)

    @property
    def structured(self) -> bool:
        """Whether this output writes the document itself (json, jsonl, yaml): what a command hands over is
        then what -o json shows, not the words and columns a person reads."""
        return self.format in STRUCTURED_FORMATS

    @property
    def tabular(self) -> bool:
        """Whether this output is a table for a person (table, wide), where words may replace values."""
        return self.format in TABLE_FORMATS

    # -- one object ----------------------------------------------------------------
    def record(self, record: dict[str, Any], kind: str | None = None) -> None:
        """One record (get, create, update, agency show)."""
        if self.format == "json":
            self._write_json(self._select(record))
        elif self.format == "jsonl":
            self.io.write(json_text(compact(self._select(record))) + "\n")
        elif self.format == "csv":
            self.records([record], kind)
        elif self.format == "yaml":
            self._write_yaml(self._select(record))
        else:
            self._tables.record(record, kind)

    # -- many records --------------------------------------------------------------
    def records(self, rows: Iterable[dict[str, Any]], kind: str | None = None,
                columns: list[str] | None = None) -> int:
        """Rows of a list, each written as soon as it comes (json, jsonl, yaml, csv: a generator of a thousand
        pages streams in flat memory; a table needs them all to size its columns); returns how many."""
        if isinstance(rows, list):
            return self._rows_out([rows], kind, columns)
        return self._rows_out(_growing_chunks(rows, first=100 if self.format == "csv" else 1), kind, columns)

    def pages(self, pages: Iterable[Page], kind: str | None = None, columns: list[str] | None = None,
              limit: int | None = None) -> int:
        """The rows of each page as it arrives; a table ends with 'page 2 of 7, 63 clients'."""
        from wfctl.api.errors import ApiError, ForeignOrigin, PaginationError

        footer: list[tuple[int, int, int]] = []  # (number, count, total records) of the first and last page
        refused: list[ApiError] = []

        def chunks() -> Iterator[list[dict[str, Any]]]:
            try:
                yield from each_page()
            except (ForeignOrigin, PaginationError) as exc:  # a link not followed: what was read is shown first
                refused.append(exc)

        def each_page() -> Iterator[list[dict[str, Any]]]:
            for page in pages:
                numbers = (page.page_number, page.page_count, page.total_record_count)
                if footer:
                    footer[1:] = [numbers]
                else:
                    footer.append(numbers)
                rows = page.data
                del page  # only the rows travel on: the page's answer is not kept while the next is fetched
                yield rows

        count = self._rows_out(chunks(), kind, columns, limit=limit, empty_table=not self.io.stdout_is_tty)
        if self.tabular and footer and self.io.stdout_is_tty:
            self.io.write(_footer(footer[0], footer[-1], count, kind, limit, all_pages=len(footer) > 1) + "\n")
        if refused:
            raise refused[0]
        return count

    # -- other documents -----------------------------------------------------------
    def result(self, obj: dict[str, Any]) -> None:
        """An outcome such as delete's {status, message}: json prints it, a table its message."""
        if self.format == "json":
            self._write_json(obj)
        elif self.format == "jsonl":
            self.io.write(json_text(compact(obj)) + "\n")
        elif self.format == "yaml":
            self._write_yaml(obj)
        else:
            message = obj.get("message") or obj.get("status") or ""
            self.io.write(f"{one_line(str(message))}\n")

    def value(self, obj: Any) -> None:
        """A raw JSON document: indented on a terminal, compact in a pipe (-o yaml: as YAML)."""
        if self.format == "yaml":
            self._write_yaml(obj)
        else:
            self._write_json(obj)

    def _write_yaml(self, obj: Any) -> None:
        from wfctl.render.yamltext import dump

        self.io.write(dump(obj))

    def line(self, obj: Any) -> None:
        """One compact JSON line (a run's counts after its jsonl rows). Shaped (--jq, --sort-by) or -o yaml:
        the document `run_rows` wrote was the answer and the line is left out; else it is the answer."""
        if self.shaped or self.format == "yaml":
            if not self._document_written:
                self.value(obj)
            return
        self.io.write(json_text(compact(obj)) + "\n")

    def plan_document(self, rows: Iterable[Any], summary: dict[str, Any]) -> bool:
        """A plan's rows and counts for a program, as `run_rows` writes a run's: json and yaml, the document
        `{"rows": [...], "summary": {...}}` (what a query reads, when shaped); jsonl, a line per row, then the
        summary's line. False, writing nothing, for a person's format (table, wide, csv)."""
        if not (self.shaped or self.structured):
            return False
        self.run_rows(rows, summary)
        if self.format == "jsonl":
            self.line({"summary": summary})
        return True

    def run_rows(self, rows: Iterable[Any], summary: dict[str, Any] | None = None, *, key: str = "rows",
                 as_json: Callable[[Any], Any] | None = None, as_text: Callable[[Any], str] | None = None) -> int:
        """The rows of a plan or a run (or a diff's records), for a program, written a row at a time (memory
        stays flat in the run's size): json, one document `{"rows": [...], "summary": {...}}` (`key` names
        the list); jsonl, a line per row (`summary` left out: it is the caller's `line`, if any). `as_json` makes a
        row a JSON value (default: it is one), `as_text` its compact JSON text where a row has it ready (a
        plan's create). Returns the count. Shaped (--jq, --sort-by) or -o yaml: the -o json document, which
        the query reads whole and the format renders (`value`), summary included whatever the format."""
        to_json = as_json or (lambda row: row)
        to_text = as_text or (lambda row: compact(to_json(row)))
        write, count = self.io.write, 0
        if self.shaped or self.format == "yaml":
            listed = [to_json(row) for row in rows]
            self.value({key: listed, "summary": summary or {}})
            self._document_written = True
            return len(listed)
        if self.format == "jsonl":
            for row in rows:
                write(json_text(to_text(row)) + "\n")
                count += 1
            return count
        if not self._pretty:
            write(f'{{"{key}":[')
            for row in rows:
                write(json_text(("," if count else "") + to_text(row)))
                count += 1
            write('],"summary":' + json_text(compact(summary or {})) + "}\n")
            return count
        # on a terminal, laid out as `value` lays out the whole document (json.dumps' indent=2)
        write(f'{{\n  "{key}": [')
        for row in rows:
            write(json_text(("," if count else "") + "\n    " + _indented(to_json(row)).replace("\n", "\n    ")))
            count += 1
        write(("\n  ]" if count else "]") + ',\n  "summary": '
              + json_text(_indented(summary or {}).replace("\n", "\n  ")) + "\n}\n")
        return count

    # -- json ----------------------------------------------------------------------
    def _write_json(self, obj: Any) -> None:
        self.io.write(json_text((_indented if self._pretty else compact)(obj)) + "\n")

    def _select(self, record: dict[str, Any]) -> dict[str, Any]:
        if not self.fields:
            return record
        return {name: record.get(name) for name in self.fields}

    # -- rows ----------------------------------------------------------------------
    def _rows_out(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
                  columns: list[str] | None, *, limit: int | None = None, empty_table: bool = True) -> int:
        limited = _limited(chunks, limit) if limit is not None else chunks
        if self.format == "json":
            return self._json_array(limited)
        if self.format == "jsonl":
            return self._jsonl(limited)
        if self.format == "csv":
            return self._csv(limited, kind, columns)
        if self.format == "yaml":
            return self._yaml(limited)
        return self._tables.rows(limited, kind, columns, empty_table=empty_table)

    def _json_array(self, chunks: Iterable[list[dict[str, Any]]]) -> int:
        count = 0
        write = self.io.write
        encode = _indented if self._pretty else compact
        first, between = ("[\n  ", ",\n  ") if self._pretty else ("[", ",")
        for chunk in chunks:
            if not chunk:
                continue
            texts = [encode(row) for row in self._selected(chunk)]
            if self._pretty:
                texts = [text.replace("\n", "\n  ") for text in texts]
            write(json_text((first if count == 0 else between) + between.join(texts)))  # one write per page
            self.io.flush()  # out now, not when a buffer fills: `| head -1` is answered by the first page
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
                write(json_text("\n".join(map(compact, self._selected(chunk)))) + "\n")  # one write per page
                self.io.flush()
                count += len(chunk)
        return count

    def _yaml(self, chunks: Iterable[list[dict[str, Any]]]) -> int:
        from wfctl.render.yamltext import dump

        count = 0
        for chunk in chunks:
            if chunk:
                self.io.write(dump(list(self._selected(chunk))))  # one write per page
                self.io.flush()
                count += len(chunk)
        if count == 0:
            self.io.write("[]\n")
        return count

    def _selected(self, rows: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
        return map(self._select, rows) if self.fields else rows

    def _csv(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
             columns: list[str] | None) -> int:
        import csv
        import io as stdio

        buffer = stdio.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        mode = self.io.csv_mode  # WFCTL_CSV: plain or spreadsheet wherever it goes; else by where it goes
        protect = not self.io.stdout_is_pipe if mode is None else mode == "spreadsheet"  # a pipe: the values
        if self.io.stdout_is_new_file if mode is None else mode == "spreadsheet":
            buffer.write("\ufeff")  # `list -o csv > FILE`, as `export > FILE`: a BOM for spreadsheets
        encode = None
        count = 0
        for chunk in chunks:
            for row in chunk:
                if encode is None:
                    encode, header = _csv_encoder(kind, self.fields or columns, dict.fromkeys(keys_of(chunk)),
                                                  protect=protect)
                    writer.writerow(header)
                writer.writerow(encode(row))
                count += 1
            self.io.write(buffer.getvalue())
            self.io.flush()
            buffer.seek(0)
            buffer.truncate()
        if encode is None:
            writer.writerow(_csv_encoder(kind, self.fields or columns, {}, protect=protect)[1])
        self.io.write(buffer.getvalue())
        return count


# Indented JSON (on a terminal); compact is `wfctl.render.tables.compact`. One encoder for the process.
_indented = json.JSONEncoder(indent=2, ensure_ascii=False, check_circular=False).encode


def _growing_chunks(rows: Iterable[dict[str, Any]], *, first: int = 1,
                    most: int = 100) -> Iterator[list[dict[str, Any]]]:
    """`rows` in lists of `first`, then twice as many each time up to `most`: the first record is written
    (and flushed) as soon as it is read, later ones a page's worth at a time."""
    chunk: list[dict[str, Any]] = []
    size = first
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
            size = min(size * 2, most)
    if chunk:
        yield chunk


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


def _footer(first: tuple[int, int, int], last: tuple[int, int, int], count: int, kind: str | None,
            limit: int | None, *, all_pages: bool = False) -> str:
    """`first` and `last` are (page number, page count, total records) of the first and last page. Says
    how to see more when pages are left (`--page 2`, `--all`), and that a page past the end is."""
    first_number = first[0]
    last_number, page_count, total_records = last
    total = plural(kind, total_records)
    if page_count == 0 or total_records == 0:
        return f"{total}"
    if count == 0 and first_number > page_count:
        return (f"page {first_number} is past the end: {total} on {plural('page', page_count)}; "
                f"the last is --page {page_count}")
    if limit is not None and count < total_records and first_number == 1:
        # --limit chose the page size: "page 1 of 2" spoke of pages of that size, not of the list's
        return f"{total} (showing the first {count}; --all shows every one)"
    if first_number == last_number:
        text = f"page {last_number} of {page_count}, {total}"
    else:
        text = f"pages {first_number}-{last_number} of {page_count}, {total}"
    if limit is not None and count < total_records:
        return text + f" (showing {count}; --all shows every one)"
    if last_number < page_count and not all_pages:
        text += f"; more: --page {last_number + 1}, or --all"
    return text


def _import_columns(kind: str, columns: list[str], present: dict[str, Any]) -> list[str]:
    """`id` (which import ignores), then only the import columns the records carry: fed back to
    import, a column absent from the file leaves its field as it is, where an empty one would clear it.
    (List items lack the fields of the kind's definition's `not_in_list_items`: only the full record has
    them; `list --fields` refuses them.)"""
    from wfctl.api.records.resources import RESOURCES

    if present:
        return ["id", *(name for name in columns if name in present)]
    return ["id", *(name for name in columns if name not in RESOURCES[kind].not_in_list_items)]


def _csv_encoder(kind: str | None, columns: list[str] | None, first: dict[str, Any], *,
                 protect: bool = True) -> tuple[Any, list[str]]:
    """(row -> cells, header) in the import format of `kind` (wfctl.files.csvformat); `protect`: a cell a spreadsheet
    would run as a formula gets its `'` (import takes it off again)."""
    from wfctl.api.records.resources import RESOURCES

    if kind in RESOURCES:  # a resource's records in its import format; anything else as it comes
        from wfctl.files import csvformat

        names = columns or _import_columns(kind, csvformat.columns_for(kind), first)
        return (lambda row: csvformat.encode_record(kind, row, names, protect=protect)), names
    from wfctl.files.csvformat import neutralise

    if not protect:
        from wfctl.files.csvformat import neutralise as protected

        def neutralise(text: str) -> str:  # a value's own leading `'` is kept, as import reads the cell back
            return protected(text) if text.startswith("'") else text

    names = columns or list(first)
    return (lambda row: [_csv_cell(row.get(name), neutralise) for name in names]), [neutralise(n) for n in names]


def _csv_cell(value: Any, neutralise: Any) -> str:
    """A cell of a csv that is not in an import format: a number stays a number (`-5` is no formula)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return cell(value)
    return neutralise(cell(value))


def markdown_table(header: list[str], rows: Iterable[list[str]]) -> str:
    """A GitHub-flavoured Markdown table (a pull request's comment): each cell's text escaped so that what
    the service sent stays text (`|`, `<`, `*`, a backtick; `&` as `&amp;`), a cell's lines joined by `<br>`."""
    def text(value: str) -> str:
        escaped = (one_line(line).replace("&", "&amp;").replace("<", "&lt;")
                   for line in str(value).split("\n"))
        return "<br>".join(_MARKDOWN_SPECIAL.sub(r"\\\g<0>", line) for line in escaped)

    out = ["| " + " | ".join(text(name) for name in header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(text(value) for value in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]|~]")
