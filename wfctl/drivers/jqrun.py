"""`wfctl jq`'s run: a filter on saved JSON or JSONL, as jq runs it (the command's options as a value,
`JqAsked`, and `run`). Typer is not needed here: `wfctl.cmdline.jqpath` runs a plain `wfctl jq` command
line without building the app (which took a third of a run over 20,000 records: issue 44)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.clierror import CliError

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.render.query import Source
    from wfctl.render.streams import IO


@dataclass
class JqAsked:
    """What `wfctl jq` was asked: the filter (or with `from_file` the file of it), the words after it (files,
    or with --args/--jsonargs the values of $ARGS.positional), and jq's options by their long names."""

    expression: str
    words: list[str]
    raw: bool = False
    join: bool = False
    ascii: bool = False
    compact: bool = False
    tab: bool = False
    indent: int | None = None
    sort_keys: bool = False
    null_input: bool = False
    slurp: bool = False
    raw_input: bool = False
    from_file: bool = False
    seq: bool = False
    stream: bool = False
    color: bool = False
    monochrome: bool = False
    exit_status: bool = False
    args: tuple[tuple[str, str], ...] = ()
    argjson: tuple[tuple[str, str], ...] = ()
    slurpfile: tuple[tuple[str, str], ...] = ()
    rawfile: tuple[tuple[str, str], ...] = ()
    positional_text: bool = False
    positional_json: bool = False
    output: str | None = None  # -o FORMAT: the results rendered as --jq renders them


def run(io: IO, asked: JqAsked, context: AppContext | None = None) -> None:
    """The filter run on the input, written to `io`; `context`, the app's, renders -o FORMAT (a plain command
    line without -o runs with none: wfctl.cmdline.jqpath)."""
    from wfctl.render import jqlib
    from wfctl.render.querybinding import compile_query

    expression, values = asked.expression, list(asked.words)
    if asked.from_file:
        expression = _utf8(_file(expression), expression).decode("utf-8")
    positional: list[Any] = []
    if asked.positional_text or asked.positional_json:
        positional = [_json_arg(value) if asked.positional_json else value for value in values]
        values = []
    indent, output, slurp = asked.indent, asked.output, asked.slurp
    if indent is not None and not -1 <= indent <= 7:
        raise CliError("--indent takes a number between -1 and 7")
    jq_printing = (asked.raw or asked.join or asked.ascii or asked.compact or asked.tab or indent is not None
                   or asked.sort_keys or asked.seq or asked.color)
    if output is not None and jq_printing:
        raise CliError("-o renders results in a format of its own: leave out -r, -j, -a, -c, -S, -C, --tab, "
                       "--indent and --seq, or -o")
    flags = _flags(compact=asked.compact, tab=asked.tab, indent=indent, sort_keys=asked.sort_keys, ascii=asked.ascii)
    if (asked.color or io.color) and not asked.monochrome and output is None:
        flags |= _colors(jqlib, io.write_err)
    query = compile_query(expression, option="", args=asked.args, argjson=asked.argjson, slurpfile=asked.slurpfile,
                          rawfile=asked.rawfile, positional=positional, err=io.write_err,
                          debug_flags=flags & ~(jqlib.PRETTY | jqlib.TAB | 0x700))
    data, source = _read(values, needed=not asked.null_input)
    if asked.raw_input:
        data, slurp = _lines_as_texts(data, slurp=slurp), False
    parsing = 0 if asked.raw_input else ((jqlib.PARSE_SEQ if asked.seq else 0)
                                         | (jqlib.PARSE_STREAMING if asked.stream else 0))  # jq's
    if output is not None:
        from wfctl.render.shaped import Shape, ShapedOutput

        assert context is not None, "-o is read by the app"
        out = ShapedOutput(io, context.output(output).format, Shape(jq=expression), option="", query=query)
        out.texts(data, slurp=slurp, null_input=asked.null_input, source=source, exit_status=asked.exit_status,
                  parsing=parsing)
        return
    write = io.write
    for text in query.texts(data, flags=flags, raw=asked.raw or asked.join, join=asked.join, ascii=asked.ascii,
                            slurp=slurp, null_input=asked.null_input, source=source, parsing=parsing, seq=asked.seq):
        write(text)  # each text is many results (Query.texts)
    query.finish(exit_status=asked.exit_status)


def _colors(jqlib: Any, err: Any) -> int:
    """jq's colour flag, with the colours of JQ_COLORS where it is set (as jq: a bad value is said, and jq's
    own colours are used)."""
    import os

    spec = os.environ.get("JQ_COLORS")
    jqlib.set_colors("")  # jq's own colours first: libjq keeps the last ones set in the process
    if spec is not None and not jqlib.set_colors(spec):
        err("Failed to set $JQ_COLORS\n")
    return int(jqlib.COLOR)


def _lines_as_texts(data: bytes, *, slurp: bool) -> bytes:
    """-R: each line of the input (a last one without its newline too) as a JSON text of it, so that the
    run, `input` and `inputs` read them as jq reads raw input; with -s, the whole input as one text."""
    import json

    text = data.decode("utf-8")
    if slurp:
        return json.dumps(text, ensure_ascii=False).encode("utf-8")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")


def _flags(*, compact: bool, tab: bool, indent: int | None, sort_keys: bool, ascii: bool) -> int:
    """jq's printing options as jq's main sets them (2 spaces unless said otherwise)."""
    from wfctl.render.jqlib import ASCII, PRETTY, SORTED, TAB, indent_flags

    flags = indent_flags(2)
    if tab:
        flags = (flags & ~indent_flags(7)) | TAB | PRETTY
    if indent is not None:
        flags = (flags & ~(TAB | indent_flags(7))) | indent_flags(indent)
    if compact:
        flags &= ~(TAB | indent_flags(7))
    return flags | (SORTED if sort_keys else 0) | (ASCII if ascii else 0)


def _json_arg(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        raise CliError(f"--jsonargs: invalid JSON text: {text[:60]}") from None


def _read(files: list[str], *, needed: bool) -> tuple[bytes, Source]:
    """The input as bytes (UTF-8 checked), and what jq names it by in an error: `<stdin>`, the file, or
    for several files (one stream, as jq reads them) each one's name and where it starts."""
    if not files or files == ["-"]:
        stdin = sys.stdin
        if not files and needed and stdin.isatty():
            raise CliError("give a JSON or JSONL file, or - for standard input (e.g. wfctl sites list -o json | "
                           "wfctl jq '.[0]' -)")
        if not needed and not files and stdin.isatty():
            return b"", "<stdin>"
        return _utf8(_stdin(), "<stdin>"), "<stdin>"
    chunks, starts, at = [], [], 0
    for file in files:
        name = "<stdin>" if file == "-" else file
        chunk = _utf8(_stdin() if file == "-" else _file(file), name)
        chunks.append(chunk)
        starts.append((at, name))
        at += len(chunk)
    return b"".join(chunks), starts[0][1] if len(starts) == 1 else tuple(starts)


def _stdin() -> bytes:
    stdin = sys.stdin
    return stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode("utf-8")


def _file(file: str) -> bytes:
    try:
        with open(file, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise CliError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{file}: is a folder, not a file") from None
    except OSError as exc:
        raise CliError(f"{file}: {exc.strerror}") from None


def _utf8(data: bytes, source: str) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise CliError(f"{source}: not UTF-8 text (JSON is): the byte 0x{data[exc.start]:02x} on line {line}") \
            from None
    return data
