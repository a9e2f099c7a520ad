"""The query engine of --jq, --jq-each and `wfctl jq`: libjq itself (`wfctl.render.jqlib`), run as jq's own
program runs it.

As jq's `main.c`: the filter runs on each input value in turn, and `input`/`inputs` read the same stream;
a runtime error is `jq: error (at <file>:<line>): ...` on stderr and the run goes on with the next input
(exit status 5, jq's); `halt` and `halt_error` stop the run with their status, `halt_error`'s message on
stderr as jq writes it; `debug` and `stderr` write to stderr; `--arg`, `--argjson`, `--slurpfile`,
`--rawfile`, `--args` and `--jsonargs` bind `$NAME`, `$ARGS.named` and `$ARGS.positional` (a repeated
name keeps its first value). Results are jq's own text (`jv_dump_string`): every digit of a literal,
`-0`, `1.000`, and 1.7976931348623157e+308 for a number beyond a double.

What wfctl adds around libjq, and why:

- **No environment.** `env` and `$ENV` are `{}`: a filter from a script or a colleague's snippet cannot
  read the token a script put in `WFCTL_ACCESS_TOKEN` (nor anything else of the process's environment).
  The filter runs as `def env: {}; {} as $ENV | (FILTER\n)`, all of the prefix on the filter's first line.
- **No modules.** `import`, `include` and `modulemeta` are refused in one sentence: no library path is
  searched (a filter cannot read files).
- **One line per error.** A filter that does not compile is compiled again alone, so its error is jq's
  message with jq's line and column, on one line; exit 2 (the command line was wrong).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from sys import float_info
from typing import Any

from wfctl.clierror import CliError
from wfctl.render import jqlib

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MODULE_NOT_FOUND = "module not found"
MODULES = ("modules are not offered: wfctl runs a filter without a library path, so import, include and "
           "modulemeta cannot be used")
BUILD = "wfctl (libjq 1.8.2, through the jq package)"
RUNTIME = 5  # jq's exit status for an error in the filter (JQ_ERROR_UNKNOWN)
NO_OUTPUT, NULL_KIND, OK = -4, -1, 0  # jq's process() results that -e reads
#: What jq names the input by in an error: a name (`<stdin>`, a file), or for several files read as one
#: stream each one's name and where it starts in the text.
Source = str | tuple[tuple[int, str], ...]


class QueryError(CliError):
    """A filter that does not compile, or input that is not JSON: one line, exit 2."""


class QueryFailed(CliError):
    """The filter failed on the data (`code` "jq" in a JSON error, not "usage"); exit 5, as jq's."""

    code = "jq"

    def __init__(self, message: str, *, reported: bool = False) -> None:
        super().__init__(message, RUNTIME)
        self.reported = reported


class QueryHalt(CliError):
    """`halt` or `halt_error` ended the run: its message is already on stderr; the exit status is its."""

    code = "jq"
    reported = True

    def __init__(self, status: int) -> None:
        super().__init__(f"the filter halted with status {status}", status)


def check_name(flag: str, name: str) -> None:
    if not _NAME.match(name):
        raise QueryError(f"{flag} {name}: not a jq variable name (letters, digits and _)")


def parse_argjson(name: str, text: str, option: str = "--argjson") -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise QueryError(f"{option} {name}: invalid JSON text: {text[:60]}") from None


def read_file(path: str, option: str, name: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise QueryError(f"{option} {name} {path}: no such file") from None
    except OSError as exc:
        raise QueryError(f"{option} {name} {path}: {exc.strerror}") from None


class Query:
    """A compiled filter and jq's way of running it. `args`: --arg NAME VALUE pairs (text); `argjson`:
    --argjson NAME JSON; `slurpfile`/`rawfile`: NAME FILE; `positional`: $ARGS.positional (Python values).
    `err` writes to stderr (errors, `debug`, `stderr`, a `halt_error` message)."""

    def __init__(self, expression: str, *, option: str = "--jq", args: Iterable[tuple[str, str]] = (),
                 argjson: Iterable[tuple[str, str]] = (), slurpfile: Iterable[tuple[str, str]] = (),
                 rawfile: Iterable[tuple[str, str]] = (), positional: Iterable[Any] = (),
                 err: Callable[[str], None] | None = None, debug_flags: int = 0) -> None:
        try:
            self._lib = jqlib.library()
        except jqlib.JqUnavailable as exc:  # pragma: no cover - a jq build without libjq's API
            raise CliError(str(exc)) from None
        self.option = option
        self._said = f"{option}: " if option else ""  # `wfctl jq`: jq's words alone
        self._err = err or write_stderr
        self._debug_flags = debug_flags
        named = self._named(args, argjson, slurpfile, rawfile)
        values = [jqlib.parse(json.dumps(value).encode()) for value in positional]
        self.expression = expression
        wrapped = f"def env: {{}}; {{}} as $ENV | ({expression}\n)"
        self._program = self._compile(wrapped, named, values)
        if not self._program.compiled:
            errors = _compile_errors(expression, named, values)  # the filter alone: jq's line and column
            if not errors or any(_MODULE_NOT_FOUND in error for error in errors):  # compiles alone: `module`
                raise QueryError(f"{self._said}{MODULES}")
            raise QueryError(f"{self._said}{_one_line(errors)}")
        for value in values:
            self._lib.jv_free(value)
        self.status = NO_OUTPUT  # jq's `ret` after the last input
        self.last = -1  # jq's `last_result` (-e): -1 none, 0 null or false, 1 other
        self.halted = False
        self.failures = 0

    # -- results for a format (--jq, --jq-each, wfctl jq -o FORMAT) ----------------------------------
    # `printed` None: each result a Python value (numbers jq prints otherwise than Python are `Literal`s);
    # jv print flags: each result as jq prints it with those flags (-o json and jsonl: jq's numbers).
    def run(self, document: Any, *, printed: int | None = None) -> list[Any]:
        """Every result of the filter on one input (a Python value, as json.loads gives it). An error
        ends the run (--jq reads one whole document): QueryFailed."""
        return list(self._python(_dumps(document), raise_errors=True, printed=printed))

    def each(self, documents: list[Any], *, printed: int | None = None) -> Iterator[Any]:
        """The filter on each of `documents` in turn (--jq-each); a record it fails on is reported and the
        run goes on, as jq goes on with its next input (`finish` then says so)."""
        if not documents:
            return iter(())
        return self._python("\n".join(_dumps(doc) for doc in documents), printed=printed)

    def run_texts(self, texts: str | bytes, *, slurp: bool = False, null_input: bool = False,
                  source: Source = "<stdin>", printed: int | None = None, parsing: int = 0) -> Iterator[Any]:
        """The results of the filter on each JSON value in `texts` (`slurp`: on one list of them all)."""
        return self._python(texts, slurp=slurp, null_input=null_input, source=source, printed=printed,
                            parsing=parsing)

    def finish(self, *, exit_status: bool = False) -> None:
        """After the last input: jq's exit status (the last input's, as jq's main; `exit_status`: -e's), raised
        when it is not 0. Every message is already on stderr."""
        status = self.status
        if exit_status:
            status = {-1: 4, 0: 1}.get(self.last, 0) if status == NO_OUTPUT else abs(status)
        if status <= 0:
            return
        if status == RUNTIME and not self.halted:
            raise QueryFailed(f"{self._said}the filter failed on its last input", reported=True)
        raise QueryHalt(status)

    # -- jq's text (wfctl jq) ---------------------------------------------------------------------
    def texts(self, data: str | bytes, *, flags: int, raw: bool = False, join: bool = False, ascii: bool = False,
              slurp: bool = False, null_input: bool = False, source: Source = "<stdin>", parsing: int = 0,
              seq: bool = False) -> Iterator[str]:
        """The results as jq prints them with these options (`flags`: jv print flags; `raw`: -r, `join`: -j;
        `seq`: an RS before each JSON text), several results a text: what they print, one after another."""
        string = jqlib.STRING
        end = b"" if join else b"\n"
        start = b"\x1e" if seq else b""
        printer = jqlib.printer()
        value, text, write = printer.value, printer.text, printer.write
        count = 0
        try:
            for result in self._results(data, slurp=slurp, null_input=null_input, source=source, parsing=parsing):
                if raw and result.kind_flags & 0xF == string:
                    if ascii:
                        value(result, jqlib.ASCII, end)  # -ra: quoted, as jq
                    else:
                        text(result, end)
                else:
                    if start:
                        write(start)
                    value(result, flags, end)
                count += 1
                if count == 512:
                    yield printer.take().decode("utf-8", "replace")
                    count = 0
            if count:
                yield printer.take().decode("utf-8", "replace")
        finally:
            printer.close()

    # -- jq's main loop ---------------------------------------------------------------------------
    def _python(self, data: str | bytes, *, slurp: bool = False, null_input: bool = False,
                source: Source = "<stdin>", raise_errors: bool = False, printed: int | None = None,
                parsing: int = 0) -> Iterator[Any]:
        dump = jqlib.dump
        results = self._results(data, slurp=slurp, null_input=null_input, source=source, raise_errors=raise_errors,
                                parsing=parsing)
        if printed is None:
            for result in results:
                yield loads(dump(result))
        else:
            for result in results:
                yield dump(result, printed).decode("utf-8", "replace")

    def _results(self, data: str | bytes, *, slurp: bool = False, null_input: bool = False,
                 source: Source = "<stdin>", raise_errors: bool = False, parsing: int = 0) -> Iterator[jqlib.JV]:
        """jq's main loop and its process(): each input's results, then what ended them (the end, an
        error, a halt), in one loop: the libjq calls of a value are most of `wfctl jq`'s time (issue 44)."""
        if self.halted:
            return
        lib, program = self._lib, self._program
        inputs = program.feed(data.encode("utf-8") if isinstance(data, str) else data, slurp=slurp, parsing=parsing)
        state, read, start, step = program.state, inputs.reader(), lib.jq_start, lib.jq_next
        can_halt = program.can_halt
        # a value's kind is the low four bits of its kind_flags (jqlib.kind), read inline: this is the loop
        # of every value; a kind_flags of 0 is an invalid value without a message (the results' plain end)
        invalid, null, false = jqlib.INVALID, jqlib.NULL, jqlib.FALSE
        value = lib.jv_null() if null_input else None
        while True:
            if value is None:
                value = read()
                if value.kind_flags & 0xF == invalid:
                    if not jqlib.has_message(value):
                        return  # the end: an invalid value without a message owns nothing
                    self._unreadable(value, inputs, source, parsing)
                    value = None
                    continue
            start(state, value, 0)
            status = NO_OUTPUT
            while True:
                result = step(state)
                if program.pending is not None:  # raised in `debug` or `stderr`: raised here
                    program.raise_pending(result)
                kind = result.kind_flags & 0xF
                if kind == invalid:
                    break
                status = NULL_KIND if kind in (null, false) else OK
                yield result
            if result.kind_flags or can_halt:  # an error, or perhaps a halt
                self._ended(result, status, inputs, source, raise_errors)
            else:
                self.status = status
                if status != NO_OUTPUT:
                    self.last = 1 if status == OK else 0
            if self.halted or null_input:
                return
            value = None

    def _unreadable(self, value: jqlib.JV, inputs: jqlib.Inputs, source: Source, parsing: int) -> None:
        """Input that is not JSON: under --seq jq says so and reads on from the next RS; else the end."""
        message, _text = jqlib.message_of(value)
        start, name = _file(source, inputs)
        if not parsing & jqlib.PARSE_SEQ:
            raise QueryError(f"{name}: not JSON: parse error: {message}")
        self._err(f"jq: ignoring parse error (at {name}:{inputs.line(start)}): {message}\n")

    def _ended(self, result: jqlib.JV, status: int, inputs: jqlib.Inputs, source: Source, raise_errors: bool) -> None:
        """What ended an input's results (an invalid value: the end, an error, or a halt), as jq's process()
        says it; `status`: what the results were."""
        program = self._program
        if program.can_halt and program.halted():
            self._lib.jv_free(result)
            self.halted = True
            status, written = program.halt()
            if written:
                self._err(written.decode("utf-8", "replace"))
        elif jqlib.has_message(result):  # else the results' end: an invalid value without one owns nothing
            message, text = jqlib.message_of(result)
            if message is not None:
                status = RUNTIME
                self.failures += 1
                if message.startswith(_MODULE_NOT_FOUND):  # modulemeta
                    message = MODULES
                said = message if text else f"(not a string): {message}"
                if raise_errors:
                    raise QueryFailed(f"{self._said}jq: error: {said}")
                start, name = _file(source, inputs)
                where = f" (at {name}:{inputs.line(start)})" if not self.option else ""
                self._err(f"{self._said}jq: error{where}{': ' if text else ' '}{said}\n")
        self.status = status
        if status in (OK, NULL_KIND):
            self.last = 1 if status == OK else 0

    # -- building -----------------------------------------------------------------------------------
    def _named(self, args: Iterable[tuple[str, str]], argjson: Iterable[tuple[str, str]],
               slurpfile: Iterable[tuple[str, str]], rawfile: Iterable[tuple[str, str]]) -> list[tuple[str, bytes, str]]:
        """(NAME, JSON text, option) in jq's order; the first of a repeated name is the one bound."""
        named: list[tuple[str, bytes, str]] = []
        for flag, pairs in (("--arg", args), ("--argjson", argjson), ("--slurpfile", slurpfile),
                            ("--rawfile", rawfile)):
            for name, value in pairs:
                check_name(flag, name)
                if flag == "--arg":
                    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
                elif flag == "--argjson":
                    parse_argjson(name, value, flag)
                    text = value.encode("utf-8")
                elif flag == "--rawfile":
                    text = json.dumps(read_file(value, flag, name).decode("utf-8", "replace"),
                                      ensure_ascii=False).encode("utf-8")
                else:
                    text = _slurped(read_file(value, flag, name), flag, name, value)
                named.append((name, text, flag))
        return named

    def _compile(self, text: str, named: list[tuple[str, bytes, str]], values: list[jqlib.JV]) -> jqlib.Program:
        return jqlib.Program(text, [(name, jqlib.parse(value)) for name, value, _flag in named],
                             [self._lib.jv_copy(value) for value in values], BUILD, self._debug, self._stderr)

    def _debug(self, value: jqlib.JV) -> None:
        self._err('["DEBUG:",' + jqlib.dump(value, self._debug_flags).decode("utf-8", "replace") + "]\n")

    def _stderr(self, value: jqlib.JV) -> None:
        if self._lib.jv_get_kind(value) == jqlib.STRING:
            self._err(jqlib.text_of(value).decode("utf-8", "replace"))
        else:
            self._err(jqlib.dump(value).decode("utf-8", "replace"))


def _file(source: Source, inputs: jqlib.Inputs) -> tuple[int, str]:
    """Where the file the parser is in starts in the text, and its name."""
    if isinstance(source, str):
        return 0, source
    consumed = inputs.consumed()
    return next(((start, name) for start, name in reversed(source) if start < consumed), source[0])


def _compile_errors(expression: str, named: list[tuple[str, bytes, str]], values: list[jqlib.JV]) -> list[str]:
    """jq's messages for the filter alone: none when it compiles."""
    lib = jqlib.library()
    program = jqlib.Program(expression, [(name, jqlib.parse(value)) for name, value, _flag in named],
                            [lib.jv_copy(value) for value in values], BUILD, lib.jv_free, lib.jv_free)
    errors = [] if program.compiled else program.errors
    program.close()
    return errors


def _slurped(data: bytes, flag: str, name: str, path: str) -> bytes:
    """--slurpfile: every JSON value of the file in one list, as jq's text."""
    lib = jqlib.library()
    inputs = jqlib.Inputs(data, slurp=True)
    try:
        value = inputs.next()
        if lib.jv_get_kind(value) == jqlib.INVALID:
            message, _text = jqlib.message_of(value)
            raise QueryError(f"{flag} {name} {path}: not JSON: {message}")
        return jqlib.dump(value)
    finally:
        inputs.close()


def _one_line(errors: list[str]) -> str:
    """jq's compile messages on one line: each `jq: error: ...` without the excerpt of the filter under it."""
    lines = [line for text in errors for line in text.splitlines() if line.startswith("jq: error")]
    if not lines:
        return "jq: error: the filter does not compile"
    return "; ".join(line[:-1] if line.endswith(":") else line for line in lines)


def _dumps(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False)


class Literal(float):
    """A number of a result that jq prints otherwise than Python would (`1.000`, `-0`, `1E+2`,
    `10000000000000000`): a float to compute and sort with, jq's text where it is shown (`str`)."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> Literal:
        number = super().__new__(cls, _number(text))
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text


def _number(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # beyond a double: jq prints the largest one
        return float_info.max if value > 0 else -float_info.max
    return value


def _float(text: str) -> float:
    value = _number(text)
    return value if repr(value) == text else Literal(text)


def _int(text: str) -> int | float:
    return Literal(text) if text == "-0" else int(text)


def loads(text: str | bytes) -> Any:
    """jq's JSON text as Python values: a number jq prints otherwise than Python (its literal's digits) as
    a `Literal`, which shows as jq shows it; beyond a double, the largest one (as jq prints it)."""
    return json.loads(text, parse_float=_float, parse_int=_int)


def write_stderr(text: str) -> None:
    from wfctl.render.streams import IO

    IO.write_err(text)
