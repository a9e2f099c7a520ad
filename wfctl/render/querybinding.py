"""Which engine runs a filter (`compile_query`): `wfctl.render.query` on libjq's C API, or where the `jq` package
hides that API (its Windows builds export nothing but the module's own entry point, so `wfctl.render.jqlib`
cannot reach libjq there) `BindingQuery`, on the package's Python API.

The same language, semantics and messages (libjq runs the filter), with what that API cannot give said in
docs/queries.md: `input`/`inputs`, `halt`/`halt_error`, `debug` and `stderr` do nothing useful, an error on
an input ends the run, and where a layout is asked (indented, sorted keys, `-a`) numbers print as Python's
json prints them (compact output is jq's own text).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wfctl.clierror import CliError
from wfctl.render import jqlib
from wfctl.render.query import (
    MODULES,
    NO_OUTPUT,
    NULL_KIND,
    OK,
    RUNTIME,
    Query,
    QueryError,
    QueryFailed,
    Source,
    check_name,
    loads,
    parse_argjson,
    read_file,
    write_stderr,
)


def compile_query(expression: str, **options: Any) -> Query:
    """The filter compiled, on libjq's C API where the jq package offers it, else on its Python API."""
    try:
        jqlib.library()
    except jqlib.JqUnavailable:
        return BindingQuery(expression, **options)
    return Query(expression, **options)


class BindingQuery(Query):
    """A Query (same options, same methods) on the jq package's Python API."""

    def __init__(self, expression: str, *, option: str = "--jq", args: Iterable[tuple[str, str]] = (),
                 argjson: Iterable[tuple[str, str]] = (), slurpfile: Iterable[tuple[str, str]] = (),
                 rawfile: Iterable[tuple[str, str]] = (), positional: Iterable[Any] = (),
                 err: Callable[[str], None] | None = None, debug_flags: int = 0) -> None:
        try:
            import jq
        except ImportError:  # pragma: no cover - a dependency
            raise CliError("the jq library is not installed: pip install jq") from None
        self.option, self._said, self._err = option, f"{option}: " if option else "", err or write_stderr
        self.status, self.last, self.halted, self.failures = NO_OUTPUT, -1, False, 0
        named: dict[str, Any] = {}
        for flag, pairs in (("--arg", args), ("--argjson", argjson), ("--slurpfile", slurpfile),
                            ("--rawfile", rawfile)):
            for name, value in pairs:
                check_name(flag, name)
                if name not in named:  # the first of a repeated name, as jq
                    named[name] = _value(flag, name, value)
        literal = json.dumps({"positional": list(positional), "named": named}, separators=(",", ":"))
        bound = "".join(f"$ARGS.named[{json.dumps(name)}] as ${name} | " for name in named)
        program = f"def env: {{}}; {{}} as $ENV | {literal} as $ARGS | {bound}({expression}\n) | tojson"
        try:
            self._binding = jq.compile(program)
        except ValueError as wrapped:
            error: Exception = wrapped
            try:  # the filter alone: its errors as jq words them, at jq's line and column
                jq.compile(expression, args={"ARGS": None, **dict.fromkeys(named)})
                raise QueryError(f"{self._said}{MODULES}") from None
            except ValueError as alone:
                error = alone
            lines = [line.rstrip(":") for line in str(error).splitlines() if line.startswith("jq: error")]
            if any("module not found" in line for line in lines):
                raise QueryError(f"{self._said}{MODULES}") from None
            raise QueryError(f"{self._said}{'; '.join(lines) or 'jq: error: the filter does not compile'}") from None

    def _python(self, data: str | bytes, *, slurp: bool = False, null_input: bool = False,
                source: Source = "<stdin>", raise_errors: bool = False, printed: int | None = None,
                parsing: int = 0) -> Iterator[Any]:
        if parsing:
            raise QueryError("--seq and --stream need libjq's C API, which this build of the jq package hides")
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        status = NO_OUTPUT
        try:
            for result in self._binding.input_text("null" if null_input else text, slurp=slurp and not null_input):
                value = loads(result)
                status = NULL_KIND if value is None or value is False else OK
                self.last = 0 if status == NULL_KIND else 1
                yield value if printed is None else result if printed == 0 else _printed(value, printed)
        except ValueError as exc:  # the binding ends the run at an error: no next input
            message = (str(exc).strip().splitlines() or ["the filter failed"])[0]
            if message.startswith("parse error"):
                name = source if isinstance(source, str) else source[0][1]
                raise QueryError(f"{name}: not JSON: {message}") from None
            status = RUNTIME
            self.failures += 1
            if raise_errors:
                raise QueryFailed(f"{self._said}jq: error: {message}") from None
            self._err(f"{self._said}jq: error: {message}\n")
        finally:
            self.status = status

    def texts(self, data: str | bytes, *, flags: int, raw: bool = False, join: bool = False, ascii: bool = False,
              slurp: bool = False, null_input: bool = False, source: Source = "<stdin>", parsing: int = 0,
              seq: bool = False) -> Iterator[str]:
        end, start = "" if join else "\n", "\x1e" if seq else ""
        for result in self._python(data, slurp=slurp, null_input=null_input, source=source, printed=0,
                                   parsing=parsing):
            if raw and result.startswith('"') and not ascii:
                yield loads(result) + end
            else:  # `tojson` is jq's compact text (every digit of a number): kept where no layout is asked
                yield start + (result if flags & ~jqlib.COLOR == 0 else _printed(loads(result), flags)) + end


def _printed(value: Any, flags: int) -> str:
    """A value laid out as jq's print flags ask, by Python's json (numbers as Python prints them)."""
    indent: str | int | None = None
    if flags & jqlib.PRETTY:
        indent = "\t" if flags & jqlib.TAB else (flags >> 8) & 7
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(value, indent=indent, separators=separators, ensure_ascii=bool(flags & jqlib.ASCII),
                      sort_keys=bool(flags & jqlib.SORTED))


def _value(flag: str, name: str, value: str) -> Any:
    if flag == "--arg":
        return value
    if flag == "--argjson":
        return parse_argjson(name, value, flag)
    text = read_file(value, flag, name).decode("utf-8", "replace")
    if flag == "--rawfile":
        return text
    decoder, values, index = json.JSONDecoder(), [], 0
    while index < len(text.rstrip()):
        try:
            item, index = decoder.raw_decode(text, index + len(text[index:]) - len(text[index:].lstrip()))
        except ValueError as exc:
            raise QueryError(f"{flag} {name} {value}: not JSON: {exc}") from None
        values.append(item)
    return values
