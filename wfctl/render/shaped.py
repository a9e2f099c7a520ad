"""The query options applied: --jq, --jq-each (with --arg, --argjson), --sort-by and --columns.

A command whose output options ask for any of them gets a `ShapedOutput`. To the command it is an Output
for a program (`format` json, `machine`): the command hands it the JSON document it would print with
-o json, whatever -o says, so the answer never depends on -o. The ShapedOutput collects every page of a
list, sorts it, runs the filter once on the whole result (--jq) or on each record as it arrives
(--jq-each, streaming), and only then renders in the format asked for (`render`).

How results are rendered: json prints each result as jq does (indented on a terminal, compact in a
pipe); jsonl one result a line; yaml one document, or a stream of them (`---`) for several results. A
table or csv shows records: the results (or the one result's items, where it is a single list) must be
objects; a table also shows plain values one a line, as `jq -r` does. Anything else is a one-line
error naming what the result holds and the formats that show it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.clierror import CliError
from wfctl.render.output import Output
from wfctl.render.tables import compact
from wfctl.text.safetext import json_text

if TYPE_CHECKING:
    from wfctl.api.client import Page
    from wfctl.render.query import Query, Source
    from wfctl.render.streams import IO


@dataclass(frozen=True)
class Shape:
    """What the query options asked for (as typed; checked when the ShapedOutput is made)."""

    jq: str | None = None
    jq_each: str | None = None
    args: tuple[tuple[str, str], ...] = ()
    argjson: tuple[tuple[str, str], ...] = ()
    sort_by: str | None = None
    columns: str | None = None

    def __bool__(self) -> bool:
        return bool(self.jq is not None or self.jq_each is not None or self.sort_by or self.columns or self.args
                    or self.argjson)

    @property
    def whole(self) -> bool:
        """Whether the answer needs every record of a list (a sort, a filter on the whole result): a list
        command then reads every page, as with --all (issue 49)."""
        return self.jq is not None or bool(self.sort_by)

    @property
    def needs(self) -> set[str]:
        """The record fields its --columns and --sort-by read (a list needs full records for some)."""
        from wfctl.render.sortcolumns import parse_columns, parse_sort

        fields = {column.needs for column in parse_columns(self.columns) or []}
        fields |= {column_needs(key.source) for key in parse_sort(self.sort_by) or []}
        return fields


def column_needs(source: str) -> str:
    from wfctl.render.sortcolumns import Column

    return Column(source, source).needs


class ShapedOutput(Output):
    """An Output whose records are shaped before they are rendered (the module's docstring)."""

    shaped = True

    def __init__(self, io: IO, fmt: str, shape: Shape, *, fields: str | None = None, kind: str | None = None,
                 option: str | None = None, query: Query | None = None) -> None:
        from wfctl.render.sortcolumns import parse_columns, parse_sort

        super().__init__(io, "json", fields=fields, kind=kind)
        if shape.jq is not None and shape.jq_each is not None:
            raise CliError("give --jq or --jq-each, not both (--jq-each's results are a stream; --jq reads the whole)")
        if (shape.args or shape.argjson) and shape.jq is None and shape.jq_each is None:
            raise CliError("--arg and --argjson name variables of a --jq or --jq-each filter: give one")
        self.render = Output(io, fmt)
        # the records themselves (sorted, not queried) show exactly --fields, in its order, in every format
        self._records = Output(io, fmt, fields=fields, kind=kind) if fields else self.render
        self.option = option if option is not None else "--jq" if shape.jq is not None else "--jq-each"
        self._said = f"{self.option}: " if self.option else ""
        self.query = query
        expression = shape.jq if shape.jq is not None else shape.jq_each
        if expression is not None and query is None:
            from wfctl.render.querybinding import compile_query

            self.query = compile_query(expression, option=self.option, args=shape.args, argjson=shape.argjson,
                               err=io.write_err)
        self.each = shape.jq_each is not None
        self.sort = parse_sort(shape.sort_by)
        self.columns = parse_columns(shape.columns)
        self._unchecked = kind is None
        if kind is not None:  # a record's fields, matched and refused as --fields' are (issue 49)
            from dataclasses import replace

            self.sort = [replace(key, source=_spelled(kind, key.source, "--sort-by")) for key in self.sort or []] or None
            if self.query is None:  # after a query, --columns names the fields of its results
                self.columns = [replace(column, source=_spelled(kind, column.source, "--columns"))
                                for column in self.columns or []] or None

    # -- what a command hands over ------------------------------------------------------------
    def record(self, record: dict[str, Any], kind: str | None = None) -> None:
        self._document(self._select(record), kind, one=True)

    def records(self, rows: Iterable[dict[str, Any]], kind: str | None = None,
                columns: list[str] | None = None) -> int:
        return self._chunks(_chunked(rows), kind, columns)

    def pages(self, pages: Iterable[Page], kind: str | None = None, columns: list[str] | None = None,
              limit: int | None = None) -> int:
        return self._chunks(_page_rows(pages, limit), kind, columns)

    def _chunks(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None, columns: list[str] | None) -> int:
        """A list arriving in chunks (pages): streamed through --jq-each where the format streams, else whole."""
        if self.each and not self.sort and self.render.structured:
            count = 0
            assert self.query is not None
            printed = self._printed

            def results() -> Iterator[Any]:
                nonlocal count
                for rows in chunks:
                    count += len(rows)
                    yield from self.query.each(list(self._selected(rows)), printed=printed)  # type: ignore[union-attr]

            self._stream(results())
            self.query.finish()  # a record the filter failed on, or a halt: jq's exit status
            return count
        listed = [row for rows in chunks for row in self._selected(rows)]
        self._document(listed, kind, columns=columns)
        return len(listed)

    def result(self, obj: dict[str, Any]) -> None:
        self._document(obj, None, one=True)

    def value(self, obj: Any) -> None:
        self._document(obj, None, one=True)

    def texts(self, text: str | bytes, *, slurp: bool = False, null_input: bool = False, source: Source = "<stdin>",
              exit_status: bool = False, parsing: int = 0) -> None:
        """The filter on JSON text (`wfctl jq -o FORMAT`): each value in turn, or one list of them all (`slurp`)."""
        assert self.query is not None
        results: Iterable[Any] = self.query.run_texts(text, slurp=slurp, null_input=null_input, source=source,
                                                      printed=self._printed, parsing=parsing)
        if self.render.structured:
            self._stream(results)
        else:
            self._table(list(results))
        self.query.finish(exit_status=exit_status)

    # -- shaping -------------------------------------------------------------------------------
    def _document(self, doc: Any, kind: str | None, *, one: bool = False, columns: list[str] | None = None) -> None:
        from wfctl.render.sortcolumns import check_named, shape_rows, sort_rows

        if self.sort or self.columns:  # a skill or a department no row has: refused with the nearest
            check_named([*(("--sort-by " + ("-" if key.descending else "") + key.source, key.source)
                           for key in self.sort or []),
                         *((f"--columns {_said_column(c)}", c.source) for c in self.columns or [])],
                        doc if isinstance(doc, list) else [doc])
        if self.sort:
            if not isinstance(doc, list):
                raise CliError("--sort-by sorts a list, and this command shows one record")
            if self._unchecked:  # rows of no record kind (rates list's): the fields they carry
                self.sort = _by_rows(self.sort, doc, columns)
            doc = sort_rows(doc, self.sort)
        if self.query is not None:
            printed = self._printed
            results: Iterable[Any] = self.query.each(doc if isinstance(doc, list) else [doc], printed=printed) \
                if self.each else self.query.run(doc, printed=printed)
            if self.render.structured:
                self._stream(results)
            else:
                self._table(list(results))
            self.query.finish()
            return
        if self.columns:
            rows = shape_rows(doc if isinstance(doc, list) else [doc], self.columns)
            if not self.render.structured:  # a person's table or a spreadsheet: money with two decimals
                rows = _money(rows, [c.header for c in self.columns if c.money])
            self.render.records(rows, None, [c.header for c in self.columns])
        elif isinstance(doc, list):
            self._records.records(doc, kind, columns)
        elif one and isinstance(doc, dict):
            self._records.record(doc, kind)
        else:
            self.render.value(doc)

    # -- rendering results ---------------------------------------------------------------------
    @property
    def _printed(self) -> int | None:
        """How the query hands its results over: for -o json and jsonl, jq's own text with these print flags
        (every digit of a literal, `-0`, `1.000`: numbers as jq prints them; indented on a terminal, compact
        in a pipe), else None: Python values for yaml, a table and csv (`wfctl.render.query.Literal` numbers)."""
        fmt = self.render.format
        if fmt == "jsonl" or (fmt == "json" and not self._pretty):
            return 0
        if fmt == "json":
            from wfctl.render.jqlib import indent_flags

            return indent_flags(2)
        return None

    def _stream(self, results: Iterable[Any]) -> None:
        write = self.io.write
        if self._printed is not None:  # jq's text, a result a line, each out as it comes (--jq-each streams)
            for text in results:
                write(json_text(text) + "\n")
            return
        from wfctl.render.yamltext import dump

        for index, value in enumerate(results):
            write(dump(value, start=index > 0))

    def _table(self, results: list[Any]) -> None:
        from wfctl.render.query import Literal
        from wfctl.render.sortcolumns import shape_rows

        fmt = self.render.format
        rows = results[0] if len(results) == 1 and isinstance(results[0], list) else results
        if not rows:
            return
        if self.columns:
            if not all(isinstance(row, dict) for row in rows):
                raise CliError(f"{self._said}--columns reads fields of records, and the result holds "
                               f"{_holds(rows)}; leave out --columns, or make the filter give objects")
            rows = shape_rows(rows, self.columns)
        if all(isinstance(row, dict) for row in rows):
            if fmt == "csv":
                nested = next((key for row in rows for key, value in row.items() if isinstance(value, dict | list)),
                              None)
                if nested is not None:
                    raise CliError(f"{self._said}-o csv writes flat records, and the field {nested} holds a "
                                   f"list or an object; pick its parts in the filter, or use -o json, jsonl or yaml")
            columns = [c.header for c in self.columns] if self.columns else _keys(rows)
            self.render.records(rows, None, columns)
            return
        if fmt != "csv" and not any(isinstance(row, dict | list) for row in rows):
            self.io.write("".join(f"{row if isinstance(row, str | Literal) else compact(row)}\n" for row in rows))  # jq -r
            return
        raise CliError(f"{self._said}-o {fmt} shows a list of records (objects), and the result holds "
                       f"{_holds(rows)}; -o json, jsonl or yaml shows any result")


def _spelled(kind: str, source: str, option: str) -> str:
    """A --sort-by or --columns source's field of a `kind` record in the service's spelling (`hourlyrate`,
    `Name`), as --fields matches it; a field the kind does not have is an error naming the nearest (exit 2).
    A pseudo-column (`rate:<skill>`, ...) reads its own field, and a dotted path is checked at its first."""
    from wfctl.api.records.resources import RESOURCES
    from wfctl.render.output import field_names
    from wfctl.render.sortcolumns import PSEUDO_FIELDS

    pseudo, sep, _ = source.partition(":")
    if (sep and pseudo in PSEUDO_FIELDS) or (kind not in RESOURCES and kind != "agency"):
        return source
    head, dot, rest = source.partition(".")
    return field_names(kind, [head], option)[0] + dot + rest


def _by_rows(keys: list[Any], rows: list[Any], columns: list[str] | None) -> list[Any]:
    """--sort-by's keys as the rows spell their fields (`-hourlyrate`: `hourlyRate`); a field no row has
    (nor the command's columns) is an error naming the nearest (exit 2), not a list left unsorted."""
    from dataclasses import replace

    from wfctl.render.output import spelled_names
    from wfctl.render.sortcolumns import PSEUDO_FIELDS

    known = list(dict.fromkeys([*(columns or []), *_keys([row for row in rows[:1000] if isinstance(row, dict)])]))
    if not known:
        return keys
    spelled = []
    for key in keys:
        pseudo, sep, _ = key.source.partition(":")
        head, dot, rest = key.source.partition(".")
        if not (sep and pseudo in PSEUDO_FIELDS) and head not in known:
            key = replace(key, source=spelled_names([head], known, "--sort-by", "the rows'")[0] + dot + rest)
        spelled.append(key)
    return spelled


def _said_column(column: Any) -> str:
    return column.source if column.header == column.source else f"{column.header}={column.source}"


def _money(rows: list[dict[str, Any]], headers: list[str]) -> list[dict[str, Any]]:
    """`13.5` as `13.50` in the columns of rates (a number stays a number in json, jsonl and yaml)."""
    if not headers:
        return rows
    for row in rows:
        for header in headers:
            value = row.get(header)
            if isinstance(value, int | float) and not isinstance(value, bool):
                row[header] = f"{value:.2f}"
    return rows


def _holds(rows: list[Any]) -> str:
    names = {dict: "objects", list: "lists", str: "text", bool: "true/false", int: "numbers", float: "numbers",
             type(None): "nulls"}
    kinds = dict.fromkeys(names.get(type(row), "values") for row in rows)
    return " and ".join(kinds)


def _keys(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of the rows, in the order they first appear."""
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(row))
    return list(keys)


def _chunked(rows: Iterable[dict[str, Any]], size: int = 100) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _page_rows(pages: Iterable[Page], limit: int | None) -> Iterator[list[dict[str, Any]]]:
    """Each page's rows as it arrives, stopping (no further page fetched) at `limit`."""
    left = limit
    for page in pages:
        rows = page.data
        del page  # only the rows travel on
        if left is not None:
            rows = rows[:left]
            left -= len(rows)
        yield rows
        if left is not None and left <= 0:
            return
