"""Tables: records drawn as a table for a person or a pipe (`-o table`, `-o wide`, and `get` on a terminal).

On a terminal a table is drawn with Rich and fitted to the terminal's width (free text shortened with
'…', columns given way in an order per kind, ids and names always whole, a name too long for the room
the ids leave wrapped within its column); anywhere else it is plain
aligned text: no colour, no truncation, and no Rich import (Rich costs tens of milliseconds to import,
and a pipe never needs it). `wfctl.render.output` chooses the format and hands a table's rows here.

What the service sent is data, never markup or terminal control: a table shows every value through
`wfctl.text.safetext` (control characters escaped, line breaks as spaces) and hands Rich `Text`, never a
string it would parse as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.render.streams import IO

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

#: What a person reads on a terminal instead of a field's JSON key, in one record's view (`get`, `agency show`);
#: a list's columns keep the keys, as --fields names them, and a pipe, json, jsonl and csv keep them too.
WORDS = {"clientId": "client", "branchId": "branch", "assessmentRequired": "assessment required",
         "createdOn": "created", "updatedOn": "updated", "modifiedOn": "modified", "billingAddress": "billing address",
         "bannedWorkers": "banned workers", "hourlyRate": "hourly rate", "contactPerson": "contact",
         "holidayCapHours": "holiday cap (hours)"}


def words(name: str) -> str:
    """A field's name as words on a terminal: `assessmentRequired` -> `assessment required`, and any other
    camelCase key the same way (`workWeekStart` -> `work week start`), so `agency show` reads as `get` does."""
    import re

    return WORDS.get(name) or re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: " " + m.group(1).lower(), name)


class Tables:
    """Draws rows (a list) or one record (`get`) as a table in `fmt` (`table`, or `wide`: every field, no
    column left out), showing only `fields` when given."""

    def __init__(self, io: IO, fmt: str, fields: list[str] | None = None) -> None:
        self.io = io
        self.format = fmt
        self.fields = fields
        self._bold = "bold" if io.color else None  # --no-color/NO_COLOR: no escape codes at all

    def rows(self, chunks: Iterable[list[dict[str, Any]]], kind: str | None,
             columns: list[str] | None, *, empty_table: bool = True) -> int:
        """The rows of `chunks` as one table (a table needs every row to size its columns); returns how many."""
        rows = [row for chunk in chunks for row in chunk]
        if not rows and not empty_table:  # a page of a list on a terminal: its footer says there is nothing
            return 0
        if self.format == "wide":
            names = self.fields or _wide_columns(columns or LIST_COLUMNS.get(kind or "") or [], rows)
        else:
            names = self.fields or columns or LIST_COLUMNS.get(kind or "") or keys_of(rows)
        cells = [[shown(row.get(name)) for name in names] for row in rows]
        if not self.io.stdout_is_tty:
            self._write_plain(names, cells)
        elif kind in GIVE_WAY or self.format == "wide":
            # --fields and -o wide: exactly the columns asked for, none left out
            give_way = [] if self.fields or self.format == "wide" else GIVE_WAY[kind or ""]
            self._fitted_table(names, cells, give_way, kind)
        else:
            self._rich_table(names, cells)
        return len(rows)

    def _write_plain(self, names: list[str], cells: list[list[str]]) -> None:
        self.io.write(_plain_table(names, cells))

    def _rich_table(self, names: list[str], cells: list[list[str]]) -> None:
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

    def _fitted_table(self, names: list[str], cells: list[list[str]], give_way: list[str], kind: str | None) -> None:
        """A table for a person (style anchor 12): every value on one line; `id`, `name` and other ids
        whole; free text shortened with '…'; columns left out in `give_way` order while the table is
        wider than the terminal, and one dim line after it says which and how to see them."""
        from rich.text import Text

        with self._rich() as console:
            room = _UNLIMITED if self.format == "wide" else console.width
            shown_names, widths = fit_columns(names, cells, room, give_way)
            left_out = [name for name in names if name not in shown_names]
            keep = [names.index(name) for name in shown_names]
            kept = [[line[i] for i in keep] for line in cells]
            for column, (name, width) in enumerate(zip(shown_names, widths, strict=True)):
                if name in KEEP_END:  # a file's name is told by its end: `…/sites-final.csv`
                    for line in kept:
                        line[column] = _shorten_start(line[column], width)
            self._print_fitted(console, shown_names, kept, widths)
            if left_out:
                note = left_out_note(left_out, console.width)
                console.print(Text(note, style="dim" if self.io.color else ""), soft_wrap=True)

    def _print_fitted(self, console: Any, names: list[str], cells: list[list[str]], widths: list[int], *,
                      labelled: bool = False) -> None:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=_box(), show_edge=False, pad_edge=False, header_style=self._bold)
        for name, width in zip(names, widths, strict=True):
            folded = name in FOLDED  # wrapped within its width (only a name longer than the room is)
            table.add_column(Text(one_line(words(name) if labelled else name)), width=width, no_wrap=not folded,
                             overflow="fold" if folded else "ellipsis")
        for line in cells:
            table.add_row(*map(Text, line))
        needed = sum(widths) + _GAP * max(len(widths) - 1, 0)
        _print_wide(console, table, needed)

    def record(self, record: dict[str, Any], kind: str | None) -> None:
        """One record, a line a field, then its sections (rates, departments, ...) as small tables."""
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
            self._fitted_record(console, scalars, sections, record)

    @contextmanager
    def _rich(self) -> Iterator[Any]:
        """The Rich console, its output captured so that the cell padding at line ends can go."""
        console = self.io.console
        width = console.width
        with console.capture() as capture:
            yield console
        self.io.write("".join(_rule_within(_end_trimmed(line), width) + "\n" for line in capture.get().splitlines()))

    def _fitted_record(self, console: Any, scalars: list[tuple[str, str]], sections: list[str],
                       record: dict[str, Any]) -> None:
        """One record on a terminal (`get`, `agency show`): one line a field, ids, names and the other
        values whole, free text shortened with '…' to the terminal's width; section tables the same way."""
        from rich.table import Table
        from rich.text import Text

        label = max((cell_width(words(name)) for name, _ in scalars), default=0)
        room = max(console.width - label - 2, 1)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=self._bold, no_wrap=True)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        needed = 0
        for name, value in scalars:
            whole = cell_width(value)
            if not _is_free_text(name):
                needed = max(needed, label + 2 + whole)
            grid.add_row(Text(words(name)), Text(value if whole <= room or not _is_free_text(name) else
                                          _shorten(value, room)))
        _print_wide(console, grid, needed)
        for name in sections:
            items = record.get(name) or []
            console.print()
            console.print(Text(f"{words(name)} ({len(items)})", style=self._bold or ""))
            if not items:
                continue
            columns = SECTIONS[name]
            if not columns:
                for item in items:
                    console.print(Text(f"  {shown(item)}"), no_wrap=True, overflow="ellipsis")
                continue
            cells = [[shown(_get(item, column), column) for column in columns] for item in items]
            shown_names, widths = fit_columns(columns, cells, console.width, [], labelled=True)
            self._print_fitted(console, shown_names, cells, widths, labelled=True)


# -- fitting a table to the terminal --------------------------------------------------

#: Columns a table leaves out first when the terminal is too narrow, per kind, in order: the first
#: gives way first. `id` and `name` never do. Free text (FREE_TEXT) is first shortened with '…' (down to
#: _MIN_FREE characters) before any column is left out.
GIVE_WAY: dict[str, list[str]] = {
    "branch": ["createdOn", "email", "phone", "address"],
    "client": ["createdOn", "branchId", "phone", "email"],
    "site": ["createdOn", "assessmentRequired", "email", "phone", "address"],
    # wfctl imports list
    "run": ["kind", "started"],
    # a `rates set` plan: the change is new - old, read off the two before it
    "rate change": ["change"],
    # the sandbox's accounts (wfctl sandbox users|agencies list)
    "user": ["branch", "agency"],
    "agency": ["phone", "email", "users"],
}

#: Columns of free text: shortened with '…' rather than wrapped. Everything else (ids, names, emails,
#: phones, dates, numbers) is shown whole or not at all.
FREE_TEXT = {"address", "billingAddress", "contactPerson", "url", "skill", "notes", "description", "file", "counts"}
#: Free text shortened at its start, keeping its end (a file's name): `…/sites-final.csv`.
KEEP_END = {"file"}

#: Names: whole, and on one line where the terminal has the room; a name longer than the room the ids leave
#: (over 41 characters beside a 36-character id at 80 columns) is wrapped within its column, never cut,
#: so the table stays within the terminal (the terminal wrapping a row past its edge broke every column).
FOLDED = {"name"}

_MIN_FREE = 16  # a free-text column is not shortened below this (nor below its heading)
_MIN_FOLDED = 12  # a name is not folded narrower than this
_UNLIMITED = 1 << 30  # -o wide: nothing shortened, the terminal wraps long lines
_GAP = 3  # between two columns of a Rich table with SIMPLE_HEAD, no edge padding


def cell_width(text: str) -> int:
    """Terminal cells `text` takes (a CJK character takes two)."""
    from rich.cells import cell_len

    return int(cell_len(text))


def _is_free_text(name: str) -> bool:
    return name in FREE_TEXT


def _shorten(text: str, width: int) -> str:
    from rich.cells import set_cell_size

    if cell_width(text) <= width:
        return text
    return str(set_cell_size(text, max(width - 1, 0))) + "…"


def _shorten_start(text: str, width: int) -> str:
    """`text` in `width` cells, its start given way to '…' (a path keeps its file name)."""
    if cell_width(text) <= width:
        return text
    tail = text
    while tail and cell_width(tail) > max(width - 1, 0):
        tail = tail[1:]
    return "…" + tail


def _end_trimmed(line: str) -> str:
    """`line` without the padding at its end, also where a style's codes close after it: a bold heading
    padded to a long name's width was wider than the terminal, which wrapped it into a blank line."""
    import re

    match = re.search(r"\s+((?:\x1b\[[0-9;]*m)*)$", line)
    return line[:match.start()] + match.group(1) if match else line


def _rule_within(line: str, width: int) -> str:
    """A table's rule line (─) no wider than the terminal: a table wider than the terminal (-o wide, ids
    kept whole) has its rows wrapped by the terminal, but a rule wrapped would draw a second, stray rule."""
    if len(line) > width and line and set(line) <= {"─", " ", "━", "═"}:
        return line[:width]
    return line


def fit_columns(names: list[str], cells: list[list[str]], room: int,
                give_way: list[str], *, labelled: bool = False) -> tuple[list[str], list[int]]:
    """(columns shown, their widths) of a table `room` cells wide. Free text gives up width first (down
    to _MIN_FREE), then columns go in `give_way` order; the others are always whole, so the table is
    wider than `room` when they alone are (the terminal then wraps the line: nothing is cut)."""
    natural = {name: max([cell_width(one_line(words(name) if labelled else name))] + [cell_width(line[i]) for line in cells])
               for i, name in enumerate(names)}
    floor = {name: min(natural[name], max(_MIN_FREE, cell_width(name))) if _is_free_text(name) else natural[name]
             for name in names}
    shown = list(names)
    candidates = [name for name in give_way if name in names]
    while sum(floor[n] for n in shown) + _GAP * (len(shown) - 1) > room and candidates:
        shown.remove(candidates.pop(0))
    fixed = sum(natural[n] for n in shown if not _is_free_text(n)) + _GAP * (len(shown) - 1)
    widths = {n: natural[n] for n in shown}
    free = sorted((n for n in shown if _is_free_text(n)), key=lambda n: natural[n])
    spare = room - fixed
    for i, name in enumerate(free):  # the narrowest first, each at most an equal share of what is left
        share = spare // (len(free) - i)
        widths[name] = max(floor[name], min(natural[name], share))
        spare -= widths[name]
    over = sum(widths.values()) + _GAP * (len(shown) - 1) - room
    folds = {n: widths[n] - max(_MIN_FOLDED, cell_width(n)) for n in shown if n in FOLDED}
    if 0 < over <= sum(folds.values()):  # a name longer than the room the others leave: folded, whole
        for name, slack in folds.items():  # (where the ids alone are wider, the terminal wraps the line)
            cut = min(over, slack)
            widths[name] -= max(cut, 0)
            over -= max(cut, 0)
    return shown, [widths[n] for n in shown]


def left_out_note(left_out: list[str], room: int = 80) -> str:
    """The line under a table that left columns out: which, and how to see them; on one line of `room`
    cells ('and 2 more' when the names do not fit)."""
    end = "; -o wide shows all"
    for count in range(len(left_out), 0, -1):
        more = len(left_out) - count
        text = f"not shown: {', '.join(left_out[:count])}{f' and {more} more' if more else ''}{end}"
        if cell_width(text) <= room:
            return text
    return f"not shown: {len(left_out)} columns{end}"


def _print_wide(console: Any, renderable: Any, needed: int) -> None:
    """Print `renderable` at least `needed` cells wide, even past the terminal's width (the terminal then
    wraps the line, cutting nothing), so that ids and names are never cut."""
    width = console.width
    if needed <= width:
        console.print(renderable)
        return
    console.width = needed
    try:
        console.print(renderable)
    finally:
        console.width = width


def _wide_columns(first: list[str], rows: list[dict[str, Any]]) -> list[str]:
    """`-o wide`: the usual columns, then every other field the records carry."""
    return list(dict.fromkeys([*first, *keys_of(rows)]))


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
    return compact(value)


def _compact_encoder() -> Callable[[Any], str]:
    """Compact JSON (a nested value in a cell; jsonl and json in a pipe, wfctl.render.output): one encoder for
    the process (json.dumps builds one per call). Records are decoded JSON or built here, so they cannot
    refer to themselves: the circular-reference check is skipped. The json module's C encoder is made
    once, not once a call as `JSONEncoder.encode` does (a third less time a record in a 100,000-record
    jsonl stream); where it is missing or answers otherwise than `encode`, `encode` it is."""
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
    try:
        from json import encoder as module

        c_make_encoder = getattr(module, "c_make_encoder", None)  # not in the typing stubs
        if c_make_encoder is None:
            return encoder.encode
        make = c_make_encoder(None, encoder.default, module.encode_basestring, None, ":", ",", False, False, True)
        probe = {"s": "é\x7f\"\n", "n": [1, -2.5, 1e100, None, True, False], "o": {}, "l": []}
        if "".join(make(probe, 0)) != encoder.encode(probe):
            return encoder.encode
    except Exception:  # another Python's signature: the plain encoder
        return encoder.encode

    def encode(value: Any) -> str:
        return "".join(make(value, 0))

    return encode


compact = _compact_encoder()


def keys_of(rows: list[dict[str, Any]]) -> list[str]:
    """The fields of the first 50 rows, in order of first appearance."""
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
