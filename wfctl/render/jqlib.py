"""libjq itself, in process: jq's compiler, interpreter, JSON parser and printer, called through ctypes.

The `jq` package (a dependency) links libjq 1.8.2 into its extension module and exports libjq's C API
from it. Its Python API hides what jq's own program uses (the `input` callback, `halt`/`halt_error` and
their exit code, `debug` and `stderr`, jq's printer with every digit of a number literal), so wfctl calls
the same C functions jq's `main.c` calls, on that very library: `wfctl jq` and `--jq` are jq as `| jq`
is. Nothing here knows the CLI; `wfctl.render.query` words the errors.

A `jv` (libjq's value, 16 bytes) travels by value. Ownership follows libjq's rule: a function consumes
the `jv`s it is given, except where libjq's header says otherwise (`jv_copy` makes a second reference).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache, partial
from typing import Any

INVALID, NULL, FALSE, TRUE, NUMBER, STRING, ARRAY, OBJECT = range(8)  # jv_kind

PRETTY, ASCII, COLOR, SORTED, TAB, ISATTY = 1, 2, 4, 8, 64, 128  # jv_print_flags
PARSE_SEQ, PARSE_STREAMING = 1, 2  # jv_parser_new's flags: --seq, --stream


def indent_flags(n: int) -> int:
    """JV_PRINT_INDENT_FLAGS(n): n spaces (0 to 7), a tab outside that range."""
    return TAB | PRETTY if n < 0 or n > 7 else n << 8 | PRETTY


class JqUnavailable(RuntimeError):
    """The installed `jq` package does not export libjq's C API (a build that hides its symbols)."""


class JV(ctypes.Structure):
    _fields_ = [("kind_flags", ctypes.c_ubyte), ("pad_", ctypes.c_ubyte), ("offset", ctypes.c_ushort),
                ("size", ctypes.c_int), ("u", ctypes.c_void_p)]


_P = ctypes.c_void_p
_INT = ctypes.c_int
CALLBACK = ctypes.CFUNCTYPE(None, _P, JV)  # jq_err_cb, jq_msg_cb: (data, jv)

_SIGNATURES: dict[str, tuple[Any, ...]] = {
    "jq_init": (_P,),
    "jq_teardown": (None, ctypes.POINTER(_P)),
    "jq_compile_args": (_INT, _P, ctypes.c_char_p, JV),
    "jq_set_error_cb": (None, _P, CALLBACK, _P),
    "jq_set_debug_cb": (None, _P, CALLBACK, _P),
    "jq_set_stderr_cb": (None, _P, CALLBACK, _P),
    "jq_set_input_cb": (None, _P, _P, _P),
    "jq_set_attr": (None, _P, JV, JV),
    "jq_set_colors": (_INT, ctypes.c_char_p),
    "jq_start": (None, _P, JV, _INT),
    "jq_next": (JV, _P),
    "jq_halted": (_INT, _P),
    "jq_get_exit_code": (JV, _P),
    "jq_get_error_message": (JV, _P),
    "jq_util_input_init": (_P, _P, _P),
    "jq_util_input_set_parser": (None, _P, _P, _INT),
    "jq_util_input_next_input": (JV, _P),
    "jq_util_input_free": (None, ctypes.POINTER(_P)),
    "jv_parser_new": (_P, _INT),
    "jv_parser_set_buf": (None, _P, ctypes.c_char_p, _INT, _INT),
    "jv_parser_remaining": (_INT, _P),
    "jv_parse_sized": (JV, ctypes.c_char_p, _INT),
    "jv_dump_string": (JV, JV, _INT),
    "jv_dumpf": (None, JV, _P, _INT),
    "jv_string_sized": (JV, ctypes.c_char_p, _INT),
    "jv_string_value": (_P, JV),
    "jv_string_length_bytes": (_INT, JV),
    "jv_get_kind": (_INT, JV),
    "jv_copy": (JV, JV),
    "jv_free": (None, JV),
    "jv_equal": (_INT, JV, JV),
    "jv_invalid_has_msg": (_INT, JV),
    "jv_invalid": (JV,),
    "jv_invalid_with_msg": (JV, JV),
    "jv_invalid_get_msg": (JV, JV),
    "jv_number_value": (ctypes.c_double, JV),
    "jv_null": (JV,),
    "jv_array": (JV,),
    "jv_array_append": (JV, JV, JV),
    "jv_object": (JV,),
    "jv_object_set": (JV, JV, JV, JV),
    "jv_object_has": (_INT, JV, JV),
}


@cache
def library() -> Any:
    """The loaded library, its functions typed (once a process)."""
    try:
        import jq
    except ImportError:  # pragma: no cover - a dependency
        raise JqUnavailable("the jq library is not installed: pip install jq") from None
    try:
        lib: Any = ctypes.CDLL(jq.__file__)
        for name, (restype, *argtypes) in _SIGNATURES.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
    except (OSError, AttributeError) as exc:  # pragma: no cover - a jq build that hides libjq's API
        raise JqUnavailable(f"the installed jq package does not offer libjq's C API ({exc})") from None
    lib.dumped = ctypes.CFUNCTYPE(ctypes.c_char_p, JV)(("jv_string_value", lib))  # the bytes, in one call
    if not _flags_readable(lib):  # pragma: no cover - a libjq older than 1.7: not the jq the suite expects
        raise JqUnavailable("the jq package's libjq lays out its values otherwise than libjq 1.7+")
    return lib


def kind(value: JV) -> int:
    """jv_get_kind without a call into the library: jv.h's `kind_flags` holds the kind in its low four bits
    (libjq 1.7+; `library()` checks it)."""
    return value.kind_flags & 0xF


def has_message(value: JV) -> bool:
    """Whether an invalid value carries a message (an error, not the end); it is not consumed."""
    return value.kind_flags == _INVALID_MSG


_INVALID_MSG = INVALID | 0x80  # JVP_FLAGS_INVALID_MSG: the kind and JVP_PAYLOAD_ALLOCATED


def _flags_readable(lib: Any) -> bool:
    """Whether this libjq lays out `kind_flags` as 1.7+ does, so that `kind` and `has_message` may read it."""
    data = b"x"
    values = [lib.jv_null(), lib.jv_array(), lib.jv_invalid(), lib.jv_invalid_with_msg(lib.jv_null()),
              lib.jv_string_sized(data, 1)]
    readable = all(kind(value) == lib.jv_get_kind(lib.jv_copy(value)) for value in values) and all(
        has_message(value) == (kind(value) == INVALID and bool(lib.jv_invalid_has_msg(lib.jv_copy(value))))
        for value in values)
    for value in values:
        lib.jv_free(value)
    return readable


@cache
def _next_input_cb() -> Any:
    """jq's own input callback (jq_util_input_next_input_cb): `input` reads the run's stream in C."""
    return ctypes.cast(library().jq_util_input_next_input_cb, _P)


def set_colors(spec: str) -> bool:
    """JQ_COLORS' colours for the COLOR flag (jq_set_colors); False, leaving jq's own, for a bad value."""
    return bool(library().jq_set_colors(spec.encode("utf-8", "replace")))


def text_of(value: JV) -> bytes:
    """A jv string's bytes (consumes it)."""
    lib = library()
    size = lib.jv_string_length_bytes(lib.jv_copy(value))
    data = ctypes.string_at(lib.jv_string_value(value), size)
    lib.jv_free(value)
    return data


def dump(value: JV, flags: int = 0) -> bytes:
    """jq's text of a value, as jq prints it (consumes it). The text holds no NUL (jq writes it \\u0000), so
    its bytes are read up to the first, in one call."""
    lib = library()
    text = lib.jv_dump_string(value, flags)
    data: bytes = lib.dumped(text)
    lib.jv_free(text)
    return data


class Printer:
    """jq's printer into memory, as jq's main prints to stdout: each value written with jv_dumpf into a FILE of
    the C library's `open_memstream`, and `take` the bytes of what was printed since the last take. Two calls
    into libjq a result where jv_dump_string takes three, and jv_dumpf writes through the FILE's buffer where
    jv_dump_string grows a jv string: a pretty-printed run takes about 15% less time (issue 44)."""

    def __init__(self, libc: Any) -> None:
        self._lib, self._libc = library(), libc
        self._buffer, self._size = ctypes.c_void_p(), ctypes.c_size_t()
        self._file: Any = None
        self._open()

    def value(self, value: JV, flags: int, end: bytes = b"") -> None:
        """A value as jq prints it with these flags (consumes it), then `end`."""
        self._lib.jv_dumpf(value, self._file, flags)
        if end:
            self._libc.fwrite(end, 1, len(end), self._file)

    def text(self, value: JV, end: bytes = b"") -> None:
        """A jv string's bytes, as -r prints it (consumes it), then `end`."""
        lib, fwrite = self._lib, self._libc.fwrite
        fwrite(lib.jv_string_value(value), 1, lib.jv_string_length_bytes(lib.jv_copy(value)), self._file)
        lib.jv_free(value)
        if end:
            fwrite(end, 1, len(end), self._file)

    def write(self, data: bytes) -> None:
        self._libc.fwrite(data, 1, len(data), self._file)

    def take(self) -> bytes:
        libc = self._libc
        libc.fclose(self._file)  # the buffer and its size final (POSIX): a new FILE for what follows
        self._file = None
        data = ctypes.string_at(self._buffer, self._size.value) if self._buffer else b""
        libc.free(self._buffer)
        self._open()
        return data

    def close(self) -> None:
        if self._file:
            self._libc.fclose(self._file)
            self._libc.free(self._buffer)
            self._file = None

    def _open(self) -> None:
        self._file = self._libc.open_memstream(ctypes.byref(self._buffer), ctypes.byref(self._size))
        if not self._file:
            raise MemoryError("open_memstream")


class StringPrinter:
    """A Printer where the C library has no `open_memstream`: each value's text through jv_dump_string."""

    def __init__(self) -> None:
        self._texts: list[bytes] = []

    def value(self, value: JV, flags: int, end: bytes = b"") -> None:
        self._texts.append(dump(value, flags) + end)

    def text(self, value: JV, end: bytes = b"") -> None:
        self._texts.append(text_of(value) + end)

    def write(self, data: bytes) -> None:
        self._texts.append(data)

    def take(self) -> bytes:
        data = b"".join(self._texts)
        self._texts.clear()
        return data

    def close(self) -> None:
        self._texts.clear()


def printer() -> Printer | StringPrinter:
    """A printer into memory: jv_dumpf's where the C library offers open_memstream (POSIX 2008: Linux,
    macOS 10.13+, the BSDs), else jv_dump_string's."""
    libc = _libc()
    return StringPrinter() if libc is None else Printer(libc)


@cache
def _libc() -> Any:
    try:
        libc: Any = ctypes.CDLL(None)
        for name, (restype, *argtypes) in {
            "open_memstream": (_P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t)),
            "fwrite": (ctypes.c_size_t, _P, ctypes.c_size_t, ctypes.c_size_t, _P),
            "fclose": (_INT, _P),
            "free": (None, _P),
        }.items():
            function = getattr(libc, name)
            function.restype, function.argtypes = restype, argtypes
    except (OSError, AttributeError, TypeError):  # pragma: no cover - no C library of that kind (Windows)
        return None
    return libc


def parse(text: bytes) -> JV:
    """One JSON text as libjq reads it (literals keep their digits); invalid with a message if it is not."""
    return library().jv_parse_sized(text, len(text))


def equal(a: bytes, b: bytes) -> bool:
    """Whether two JSON texts hold the same value, as jq compares them."""
    return bool(library().jv_equal(parse(a), parse(b)))


def message_of(value: JV) -> tuple[str | None, bool]:
    """The message of an invalid value, and whether it was text (consumes it); (None, False) when none."""
    lib = library()
    if not lib.jv_invalid_has_msg(lib.jv_copy(value)):
        lib.jv_free(value)
        return None, False
    message = lib.jv_invalid_get_msg(value)
    if lib.jv_get_kind(message) == STRING:
        return text_of(message).decode("utf-8", "replace"), True
    return dump(message).decode("utf-8", "replace"), False


class Program:
    """A compiled jq program with its arguments: `named` maps NAME to a jv (made by `string`/`parse`),
    `positional` is a list of jvs. Compile errors are collected in `errors` (jq's words, lines and all).
    `debug` and `stderr` receive what the builtins of those names emit (and own it: they free it)."""

    def __init__(self, text: str, named: list[tuple[str, JV]], positional: list[JV],
                 build: str, debug: Callable[[JV], None], stderr: Callable[[JV], None]) -> None:
        lib = self._lib = library()
        self.errors: list[str] = []
        self.pending: BaseException | None = None  # raised in a callback: raised again once libjq returns
        self._callbacks = (self._guard(lambda e: self.errors.append(_error_text(e))), self._guard(debug),
                           self._guard(stderr))
        self._state = _P(lib.jq_init())
        if not self._state:
            raise MemoryError("jq_init")
        self._input: Inputs | None = None
        arguments, args = lib.jv_object(), lib.jv_array()
        for value in positional:
            args = lib.jv_array_append(args, value)
        for name, value in named:  # the first of a repeated name wins, as jq's options
            key = string(name)
            if lib.jv_object_has(lib.jv_copy(arguments), lib.jv_copy(key)):
                lib.jv_free(key)
                lib.jv_free(value)
            else:
                arguments = lib.jv_object_set(arguments, key, value)
        every = lib.jv_object_set(lib.jv_object_set(lib.jv_object(), string("positional"), args),
                                  string("named"), lib.jv_copy(arguments))
        arguments = lib.jv_object_set(arguments, string("ARGS"), every)
        if not lib.jv_object_has(lib.jv_copy(arguments), string("JQ_BUILD_CONFIGURATION")):
            arguments = lib.jv_object_set(arguments, string("JQ_BUILD_CONFIGURATION"), string(build))
        lib.jq_set_attr(self._state, string("JQ_LIBRARY_PATH"), lib.jv_array())  # no modules: no search path
        lib.jq_set_error_cb(self._state, self._callbacks[0], None)
        self.compiled = bool(lib.jq_compile_args(self._state, text.encode("utf-8"), arguments))
        # Only the builtins `halt` and `halt_error` (C functions of jq's builtin.c; builtin.jq's halt_error/0
        # calls halt_error/1) stop a program, and jq calls nothing by a computed name (modules, which could
        # hide one, are not offered): a program whose text never says `halt` cannot halt, and its run need not
        # ask libjq after each input whether it did.
        self.can_halt = "halt" in text
        lib.jq_set_debug_cb(self._state, self._callbacks[1], None)
        lib.jq_set_stderr_cb(self._state, self._callbacks[2], None)

    def feed(self, data: bytes, *, slurp: bool = False, parsing: int = 0) -> Inputs:
        """The JSON values of `data` as the program's inputs (`input` and `inputs` read them too); `parsing`:
        the parser's flags (PARSE_SEQ, PARSE_STREAMING)."""
        if self._input is not None:
            self._input.close()
        inputs = Inputs(data, slurp=slurp, parsing=parsing)
        self._lib.jq_set_input_cb(self._state, _next_input_cb(), inputs.state)
        self._input = inputs
        return inputs

    def start(self, value: JV) -> None:
        self._lib.jq_start(self._state, value, 0)

    @property
    def state(self) -> Any:
        """The jq_state, for a loop that calls jq_start and jq_next itself (then `raise_pending` after each)."""
        return self._state

    def next(self) -> JV:
        result = self._lib.jq_next(self._state)
        if self.pending is not None:
            self.raise_pending(result)
        return result

    def raise_pending(self, result: JV) -> None:
        """What a callback raised (a closed stderr, Ctrl-C in `debug`), raised once libjq has returned, not a
        traceback from a callback; `result`, what jq_next returned, is freed."""
        error, self.pending = self.pending, None
        self._lib.jv_free(result)
        if error is not None:
            raise error

    def _guard(self, function: Callable[[JV], None]) -> Any:
        def call(_data: Any, value: JV) -> None:
            try:
                function(value)
            except OSError:  # stderr closed: jq loses the line and goes on, so does wfctl
                pass
            except BaseException as exc:
                self.pending = exc

        return CALLBACK(call)

    def halted(self) -> bool:
        return bool(self._lib.jq_halted(self._state))

    def halt(self) -> tuple[int, bytes | None]:
        """After a halt: jq's exit status and what jq writes to stderr (None: nothing), as jq's main."""
        lib = self._lib
        code = lib.jq_get_exit_code(self._state)
        kind = lib.jv_get_kind(code)
        status = 0 if kind == INVALID else int(lib.jv_number_value(code)) if kind == NUMBER else 5
        lib.jv_free(code)
        message = lib.jq_get_error_message(self._state)
        kind = lib.jv_get_kind(message)
        if kind == STRING:
            return status, text_of(message)
        if kind in (NULL, INVALID):
            lib.jv_free(message)
            return status, None
        return status, dump(message) + b"\n"

    def close(self) -> None:
        if self._state:
            self._lib.jq_teardown(ctypes.byref(self._state))
        if self._input is not None:
            self._input.close()
            self._input = None

    def __del__(self) -> None:
        self.close()


class Inputs:
    """jq's input reader (jq_util_input) over text already in memory, so `input` and `inputs` in the
    program read the same stream as the run: the parser is given the whole text, and the reader's own
    file reading is never reached (it has no files)."""

    def __init__(self, data: bytes, *, slurp: bool, parsing: int = 0) -> None:
        lib = self._lib = library()
        self.data = data  # the parser reads this buffer in place: kept alive as long as the reader
        self.state = _P(lib.jq_util_input_init(None, None))
        self._parser = lib.jv_parser_new(parsing)
        lib.jv_parser_set_buf(self._parser, data, len(data), 0)
        lib.jq_util_input_set_parser(self.state, self._parser, 1 if slurp else 0)

    def next(self) -> JV:
        """The next value; invalid without a message at the end, with one for a parse error."""
        return self._lib.jq_util_input_next_input(self.state)

    def reader(self) -> Callable[[], JV]:
        """`next` as one call into libjq, for a loop over many values."""
        return partial(self._lib.jq_util_input_next_input, self.state)

    def consumed(self) -> int:
        """How many bytes of the text the parser has read."""
        return len(self.data) - self._lib.jv_parser_remaining(self._parser)

    def line(self, start: int = 0) -> int:
        """The line jq names in `jq: error (at <file>:LINE)`, counted from `start` (where the file began in
        the text): every line the parser was given so far (jq gives its parser a line at a time)."""
        consumed = self.consumed()
        if consumed <= start:
            return 0
        lines = self.data.count(b"\n", start, consumed)
        if self.data[consumed - 1:consumed] != b"\n" and self.data.find(b"\n", consumed) != -1:
            lines += 1  # the rest of the line was read too
        return lines

    def close(self) -> None:
        if self.state:
            self._lib.jq_util_input_free(ctypes.byref(self.state))  # frees the parser with it


def string(text: str) -> JV:
    data = text.encode("utf-8", "surrogateescape")
    return library().jv_string_sized(data, len(data))


def _error_text(error: JV) -> str:
    """A compile error's text (consumes it: a callback owns what libjq hands it)."""
    if library().jv_get_kind(error) == STRING:
        return text_of(error).decode("utf-8", "replace")
    return dump(error).decode("utf-8", "replace")
