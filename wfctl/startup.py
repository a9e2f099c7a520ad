"""Start-up: what keeps `--help` and a Tab press fast (see bench/startup.py and docs/newcomer.md).

Importing typer alone takes longer than a person waits for a Tab press, so `wfctl --help`, every
`wfctl <command>... --help` and every completion request (`_WFCTL_COMPLETE=complete_bash|zsh|fish`)
are answered from an index instead: the help text of every command and the completion tree, both
generated from the Typer app itself (`build_index`), kept in the user's cache and keyed by wfctl's
version, the newest mtime under the package and the Python environment, and laid out for the
terminal's width (80 to 120 columns: another width builds it again). No index yet (the first run
after an install, an edit or a new width), or a request the index cannot answer the way click would (a terminal
narrower than 80 columns, `--opt=value` forms it does not know, `--`, an unknown word, a completion
callback that is not wfctl's cached ids), and the request goes to Typer as before, which also writes
the index. tests/newcomer/test_fast_path.py compares both answers for every command.

The rest of this module makes the Typer path lighter, and is the one place that uses typer's private
API (`typer._coercion`, parameters' `type_descriptor` and `_custom_shell_complete`); each use falls
back to typer's own behaviour when the attribute is missing:

- typer coerces every option value through a pydantic TypeAdapter (built even for an option left
  unset), so any command imported pydantic (60-100 ms, ~10 MB). `lighten()` gives options typed
  `str`, a str Enum, `int` (with its min/max), `bool` and `list[str]` a plain coercion instead. A
  value the plain coercion is not sure of (`--page x`, `--page 1_000`) goes to typer's own, so the
  accepted spellings do not change; a value refused is one plain line in wfctl's words
  (`error: --page-size: 'abc' is not a whole number`, exit 2). Options of other types keep typer's.
"""

from __future__ import annotations

import os
import sys
import types
import typing
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wfctl.typercompat import Command, Context

INDEX_FORMAT = 1
HELP_WIDTH = 80  # the index holds help laid out for a terminal of 80 columns or more (narrower: Typer)
HELP_MAX_WIDTH = 120  # help uses the terminal's width up to this many columns (wfctl.help_format)
COMPLETE_VAR = "_WFCTL_COMPLETE"
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class _NotIndexed(Exception):
    """The index cannot answer this request exactly as Typer would: Typer answers it."""


# -- the fast path (stdlib only) ------------------------------------------------------------------
def fast_answer(args: list[str], environ: typing.Mapping[str, str] | None = None) -> tuple[str, int] | None:
    """(what to print on stdout, exit code) for a help or completion request the index answers,
    or None when Typer has to run (not such a request, no index, or one the index cannot answer)."""
    environ = os.environ if environ is None else environ
    instruction = environ.get(COMPLETE_VAR)
    if not instruction and not _wants_help(args):
        return None
    index = load_index()
    if index is None:
        return None
    try:
        if instruction:
            return _complete(index, instruction, environ)
        return _help(index, args)
    except Exception:  # _NotIndexed, or an index not shaped as this version writes it: a cache, so Typer answers
        return None


def is_fast_request(args: list[str], environ: typing.Mapping[str, str] | None = None) -> bool:
    """Whether fast_answer would try the index for this request (so a missing index is worth writing)."""
    environ = os.environ if environ is None else environ
    return bool(environ.get(COMPLETE_VAR)) or _wants_help(args)


def index_path() -> str:
    from wfctl.dirs import cache_dir

    return os.path.join(cache_dir(), f"index-{_hash(sys.prefix)}.json")


def index_key() -> str:
    """What the index was built from: wfctl's version, the newest file under the package, the format."""
    from wfctl import __version__

    return f"{INDEX_FORMAT}|{__version__}|{_newest_mtime(_PACKAGE)}|{sys.prefix}"


def load_index() -> dict[str, Any] | None:
    import json

    try:
        with open(index_path(), encoding="utf-8") as handle:
            index = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(index, dict) or index.get("key") != index_key() or index.get("width") != help_width():
        return None  # built for another terminal width: built again for this one
    return index


def _wants_help(args: list[str]) -> bool:
    words = args[: args.index("--")] if "--" in args else args
    return not args or "--help" in words or "-h" in words


def _help(index: dict[str, Any], args: list[str]) -> tuple[str, int]:
    """`wfctl [options] <command>... --help` (or a bare `wfctl`): the help of the command named, found
    the way click parses. Typer answers instead where click would first act on an option value (a
    callback, a value it could reject) of a command above the one asked about."""
    if _terminal_columns() < HELP_WIDTH:
        raise _NotIndexed
    node = index["tree"]
    path: list[str] = []
    given: dict[str, str | bool] = {}
    words = args[: args.index("--")] if "--" in args else args
    if not words:
        return index["help"][""] + "\n", 0
    pending: dict[str, Any] | None = None
    for word in words:
        if pending is not None:
            given[pending["name"]], pending = word, None
        elif word in node["help_opts"]:
            return index["help"][" ".join(path)] + "\n", 0
        elif word.startswith("-") and word != "-":
            name, eq, value = word.partition("=")
            option = _option(node, name)
            if option is None or option["callback"]:
                raise _NotIndexed
            if option["takes_value"] and not eq:
                pending = option
            else:
                given[option["name"]] = value if eq else True
        elif node["commands"] is not None:
            if word not in node["commands"]:
                raise _NotIndexed  # Typer says what is wrong with it
            _check_values(node, given)
            node, path, given = node["commands"][word], [*path, word], {}
    raise _NotIndexed


def _check_values(node: dict[str, Any], given: dict[str, Any]) -> None:
    """Raise _NotIndexed unless click would accept the option values of `node` (a command above the
    one whose help is asked for, so click processes them first), environment variables included."""
    for param in node["params"]:
        if param["kind"] != "option":
            continue
        value = given.get(param["name"])
        for name in param["envvar"] if value is None else ():
            value = os.environ.get(name) or value
        if value is None or value is True:
            continue
        completes = param["completes"] or [None, None]
        if param["callback"] or not (param["plain"] or (completes[0] == "choices"
                                                        and value in completes[1]["values"])):
            raise _NotIndexed


def help_width() -> int:
    """The width the index lays help out for: the terminal's, from HELP_WIDTH to HELP_MAX_WIDTH."""
    return max(HELP_WIDTH, min(_terminal_columns(), HELP_MAX_WIDTH))


def _terminal_columns() -> int:
    """The width click lays help out for: $COLUMNS, else the terminal's, else 80 (shutil's rule)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        if columns <= 0:
            columns = 80
    return columns


def _complete(index: dict[str, Any], instruction: str, environ: typing.Mapping[str, str]) -> tuple[str, int]:
    """One Tab press, answered as typer's BashComplete, ZshComplete and FishComplete do."""
    action, _, shell = instruction.partition("_")
    if action != "complete" or shell not in ("bash", "zsh", "fish"):
        raise _NotIndexed
    if shell == "bash":
        words = _split(environ.get("COMP_WORDS", ""))
        cword = int(environ.get("COMP_CWORD", "0"))
        args, incomplete = words[1:cword], (words[cword] if cword < len(words) else "")
    else:
        line = environ.get("_TYPER_COMPLETE_ARGS", "")
        args = _split(line)[1:]
        incomplete = ""
        if args and not line.endswith(" "):
            incomplete = args.pop()
    items = _completions(index["tree"], args, incomplete, environ)
    if shell == "bash":
        return "\n".join(value for value, _ in items) + "\n", 0
    if shell == "zsh":
        lines = [f'"{_zsh_escape(value)}":"{_zsh_escape(text)}"' if text else f'"{_zsh_escape(value)}"'
                 for value, text in items]
        return ("_arguments '*: :((" + "\n".join(lines) + "))'\n" if lines else "_files\n"), 0
    fish_action = environ.get("_TYPER_COMPLETE_FISH_ACTION", "")
    if fish_action == "is-args":
        return "", 0 if items else 1
    if fish_action == "get-args" and items:
        lines = [f"{value}\t{''.join(' ' if ch.isspace() else ch for ch in text)}" if text else value
                 for value, text in items]
        return "\n".join(lines) + "\n", 0
    return "\n", 0


def _completions(tree: dict[str, Any], args: list[str], incomplete: str,
                 environ: typing.Mapping[str, str]) -> list[tuple[str, str | None]]:
    """click's _resolve_context and _resolve_incomplete over the index (see shell_completion.py)."""
    if "--" in args:
        raise _NotIndexed
    if incomplete == "=":
        incomplete = ""
    elif "=" in incomplete and incomplete.startswith("-"):
        name, _, incomplete = incomplete.partition("=")
        args = [*args, name]
    root_values: dict[str, Any] = {}
    node, values, given, pending, positionals = _parse(tree, args, root_values)
    if incomplete.startswith("-"):
        return _command_completions(node, given, incomplete)
    if pending is not None:
        return _value_completions(pending, incomplete, tree, root_values, values, environ)
    arguments = [p for p in node["params"] if p["kind"] == "argument"]
    for position, param in enumerate(arguments):
        if param["nargs"] == -1 or position >= positionals:
            return _value_completions(param, incomplete, tree, root_values, values, environ)
    return _command_completions(node, given, incomplete)


def _parse(tree: dict[str, Any], args: list[str], root_values: dict[str, Any]) -> tuple[Any, ...]:
    """Walk the complete words: the command they reach, its option values given, the names of its
    options given, the option still waiting for its value (or None) and how many positional values."""
    node = tree
    values: dict[str, Any] = root_values
    given: set[str] = set()
    pending: dict[str, Any] | None = None
    positionals = 0
    for word in args:
        if pending is not None:
            if word.startswith("-") and word != "-":
                raise _NotIndexed
            values[pending["name"]] = word
            pending = None
        elif word.startswith("-") and word != "-":
            name, eq, value = word.partition("=")
            option = _option(node, name)
            attached = None
            if option is None and not eq and not word.startswith("--") and len(word) > 2:
                option, attached = _option(node, word[:2]), word[2:]  # -ojson
                if option is not None and not option["takes_value"]:
                    raise _NotIndexed  # -vq: several flags in one word
            if option is None or (eq and not option["takes_value"]):
                raise _NotIndexed
            given.add(option["name"])
            if eq or attached is not None:
                values[option["name"]] = value if eq else attached
            elif option["takes_value"]:
                pending = option
        elif node["commands"] is not None and positionals == 0:
            if word not in node["commands"]:
                raise _NotIndexed
            node, values, given = node["commands"][word], {}, set()
        else:
            positionals += 1
    arguments = [p for p in node["params"] if p["kind"] == "argument"]
    if pending is None and positionals > len(arguments) and not any(p["nargs"] == -1 for p in arguments):
        raise _NotIndexed
    if pending is not None and args and args[-1] not in pending["opts"]:
        raise _NotIndexed  # a secondary name that takes a value: not a case click completes
    return node, values, given, pending, positionals


def _option(node: dict[str, Any], name: str) -> dict[str, Any] | None:
    for param in node["params"]:
        if param["kind"] == "option" and (name in param["opts"] or name in param["secondary"]):
            return param
    return None


def _command_completions(node: dict[str, Any], given: set[str],
                         incomplete: str) -> list[tuple[str, str | None]]:
    items: list[tuple[str, str | None]] = []
    for name, sub in (node["commands"] or {}).items():
        if name.startswith(incomplete) and not sub["hidden"]:
            items.append((name, sub["short_help"]))
    if incomplete and not incomplete[0].isalnum():
        for param in node["params"]:
            if param["kind"] != "option" or param["hidden"] or (not param["multiple"] and param["name"] in given):
                continue
            items.extend((name, param["help"]) for name in [*param["opts"], *param["secondary"]]
                         if name.startswith(incomplete))
    return items


def _value_completions(param: dict[str, Any], incomplete: str, tree: dict[str, Any], root_values: dict[str, Any],
                       values: dict[str, Any], environ: typing.Mapping[str, str]) -> list[tuple[str, str | None]]:
    completes = param["completes"]
    if completes is None:
        return []
    kind, detail = completes
    if kind == "choices":
        if detail["case_sensitive"]:
            return [(c, None) for c in detail["values"] if c.startswith(incomplete)]
        return [(c, None) for c in detail["values"] if c.lower().startswith(incomplete.lower())]
    if kind == "file":
        return [(incomplete, None)]
    if kind == "ids":
        from wfctl import completion_cache

        context = _CompletionContext(_root_params(tree, root_values, environ), values)
        items = getattr(completion_cache, detail)(context, incomplete)
        return [(str(value), text or None) for value, text in items if str(value).startswith(incomplete)]
    raise _NotIndexed


def _root_params(tree: dict[str, Any], given: dict[str, Any], environ: typing.Mapping[str, str]) -> dict[str, Any]:
    """The root's option values as click's resilient parse leaves them: the command line, else the
    environment variable."""
    params: dict[str, Any] = {}
    for param in tree["params"]:
        if param["kind"] != "option":
            continue
        value = given.get(param["name"])
        for name in param["envvar"] if value is None else ():
            value = environ.get(name) or None
            if value is not None:
                break
        params[param["name"]] = value
    return params


class _CompletionContext:
    """What wfctl's completion callbacks read of a click Context: the root's params, and their own."""

    def __init__(self, root_params: dict[str, Any], params: dict[str, Any]) -> None:
        self._root = types.SimpleNamespace(params=root_params)
        self.params = params

    def find_root(self) -> Any:
        return self._root


def _split(line: str) -> list[str]:
    """click's split_arg_string (shlex, posix, whitespace_split), without shlex for a plain line."""
    if not any(ch in line for ch in "\"'\\"):
        plain = line.replace("\t", " ").replace("\r", " ").replace("\n", " ")
        return [word for word in plain.split(" ") if word]
    import shlex

    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    out: list[str] = []
    try:
        out.extend(lexer)
    except ValueError:
        out.append(lexer.token)
    return out


def _zsh_escape(text: str) -> str:
    return (text.replace('"', '""').replace("'", "''").replace("$", "\\$").replace("`", "\\`")
            .replace(":", r"\\:"))


def _newest_mtime(top: str) -> int:
    newest = 0
    stack = [top]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
    return newest


def _hash(text: str) -> str:
    import zlib

    return format(zlib.crc32(text.encode()), "08x")


# -- building the index (imports typer) -----------------------------------------------------------
def write_index() -> None:
    """Build the index from the Typer app and store it (atomically; a cache that cannot be written
    only means the next run takes the Typer path again)."""
    import json

    path = index_path()
    try:
        index = build_index()
        from wfctl.fsutil import write_private_file

        write_private_file(path, json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    except Exception:  # never fail the command the user ran because of a cache
        return


def build_index() -> dict[str, Any]:
    """The help text of every command (laid out for this terminal's width, `help_width()`) and the
    completion tree, as the Typer app renders and completes them."""
    from wfctl.main import _command

    key, width = index_key(), help_width()
    if (key, width) not in _built:  # a process running wfctl many times (the tests) builds it once a width
        root = _command()
        help_texts: dict[str, str] = {}
        tree = _node(root, _context(root, "wfctl", None, width), [], help_texts, width)
        if len(_built) > 8:
            _built.clear()
        _built[(key, width)] = {"key": key, "width": width, "help": help_texts, "tree": tree}
    return _built[(key, width)]


_built: dict[tuple[str, int], dict[str, Any]] = {}


def _context(command: Command, name: str, parent: Context | None, width: int) -> Context:
    from wfctl.typercompat import Context

    # click lays help out 2 columns narrower than the terminal; a width given to it is used as is
    settings = {**getattr(command, "context_settings", {}), "terminal_width": width - 2,
                "max_content_width": HELP_MAX_WIDTH}
    return Context(command, info_name=name, parent=parent, **settings)


def _node(command: Command, ctx: Context, path: list[str], help_texts: dict[str, str], width: int) -> dict[str, Any]:
    help_texts[" ".join(path)] = ctx.get_help()
    subcommands = getattr(command, "commands", None)
    help_option = command.get_help_option(ctx)
    return {
        "hidden": bool(command.hidden),
        "short_help": command.get_short_help_str(),
        "help_opts": list(help_option.opts) if help_option is not None else [],
        "params": [_param(param) for param in command.get_params(ctx)],
        "commands": None if subcommands is None else {
            name: _node(sub, _context(sub, name, ctx, width), [*path, name], help_texts, width)
            for name, sub in subcommands.items()},
    }


def _param(param: Any) -> dict[str, Any]:
    option = param.param_type_name == "option"
    envvar = param.envvar if isinstance(param.envvar, list | tuple) else [param.envvar] if param.envvar else []
    return {
        "kind": "option" if option else "argument",
        "name": param.name,
        "opts": list(param.opts),
        "secondary": list(param.secondary_opts),
        "takes_value": option and not (param.is_flag or param.count),
        "multiple": bool(param.multiple),
        "hidden": bool(getattr(param, "hidden", False)),
        "help": getattr(param, "help", None),
        "nargs": param.nargs,
        "envvar": list(envvar),
        "callback": param.callback is not None,
        "plain": _plain_str(param),
        "completes": _completes(param),
    }


def _completes(param: Any) -> list[Any] | None:
    """How typer completes a value of `param`: ["choices", {...}], ["file", None], ["ids", <function of
    wfctl.completion_cache>], None (nothing), or ["typer", None] (only typer knows: not indexed)."""
    custom = getattr(param, "_custom_shell_complete", None)
    if custom is not None:
        function = _autocompletion_function(custom)
        if getattr(function, "__module__", None) == "wfctl.completion_cache":
            return ["ids", function.__name__]
        return ["typer", None]
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return ["typer", None]
    if descriptor.is_choice and descriptor.choices is not None:
        from wfctl.typercompat import choice_as_str

        return ["choices", {"values": [choice_as_str(c) for c in descriptor.choices],
                            "case_sensitive": bool(descriptor.case_sensitive)}]
    if descriptor.is_file:
        return ["file", None]
    return None


def _plain_str(param: Any) -> bool:
    """Whether any value of `param` is accepted as it is (a str option: click cannot reject it)."""
    descriptor = getattr(param, "type_descriptor", None)
    return descriptor is not None and _unwrap_optional(descriptor.annotation) is str and not param.callback


def _autocompletion_function(custom: Any) -> Any:
    """The function given as `autocompletion=`: typer wraps it twice (compat_autocompletion closes
    over get_param_completion's wrapper, which carries __wrapped__)."""
    for cell in getattr(custom, "__closure__", None) or ():
        wrapped = getattr(cell.cell_contents, "__wrapped__", None)
        if wrapped is not None:
            return wrapped
    return None


# -- lighter coercion on the Typer path --------------------------------------------------------------
def lighten(command: Command) -> None:
    """Give the str and Enum options of `command` a coercion that needs no pydantic."""
    from wfctl.typercompat import RuntimeParam

    if RuntimeParam is None:  # another typer: nothing to lighten
        return
    for param in command.params:
        lighten_param(param, RuntimeParam)


def lighten_param(param: Any, runtime_param_class: type | None = None) -> None:
    """Plain coercion for one option: str, a str Enum, int, bool or list[str] (see the module's doc)."""
    if runtime_param_class is None:
        from wfctl.typercompat import RuntimeParam

        if RuntimeParam is None:
            return
        runtime_param_class = RuntimeParam
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", "absent") is not None:
        return
    annotation = _unwrap_optional(descriptor.annotation)
    info = descriptor.parameter_info
    if getattr(info, "parser", None) is not None:
        return
    plain = (annotation in (str, bool)
             or (annotation is int and not info.clamp)
             or annotation == list[str]
             or (isinstance(annotation, type) and issubclass(annotation, Enum) and issubclass(annotation, str)))
    if plain:
        param._runtime_param = _plain_runtime_param(runtime_param_class)(
            parameter_info=descriptor.parameter_info, annotation=annotation)


def _unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def _plain_int(value: Any) -> int | None:
    """An int from an int or a plain run of ASCII digits; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _loose_int(text: str) -> int | None:
    """An int from a signed run of ASCII digits (`-3`, ` +5 `), for the message of a value out of range."""
    text = text.strip().replace("_", "")
    digits = text[1:] if text[:1] in "+-" else text
    return int(text) if digits.isascii() and digits.isdigit() else None


def _value_error(param: Any, problem: str, ctx: Any) -> Exception:
    """A bad option value as one plain line, `error: --page-size: 'abc' is not a whole number` (exit 2),
    instead of click's usage block around pydantic's words."""
    from wfctl.typercompat import BadParameter

    names = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    longs = [name for name in names if name.startswith("--")]
    name = (longs or names or [str(getattr(param, "name", "") or "value")])[0]

    class OptionValueError(BadParameter):
        one_line = True  # shown as this one line by wfctl.main (no usage block)

        def format_message(self) -> str:
            return f"{name}: {problem}"

        def show(self, file: Any = None) -> None:
            (file or sys.stderr).write(f"error: {self.format_message()}\n")

    return OptionValueError(problem, ctx=ctx, param=param)


_plain_classes: dict[type, type] = {}


def _plain_runtime_param(base: type) -> type:
    """A typer RuntimeParam that coerces a str as itself and an Enum by value."""
    if base in _plain_classes:
        return _plain_classes[base]

    from dataclasses import dataclass

    from wfctl.typercompat import BadParameter

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):
        def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
            annotation = self.annotation
            if annotation is str:
                return value
            if annotation is bool:
                if isinstance(value, bool):
                    return value
                try:
                    return self._typer_coercion(value, param, ctx)
                except BadParameter:
                    raise _value_error(param, f"{value!r} is not true or false", ctx) from None
            if annotation is int:
                number = _plain_int(value)
                info = self.parameter_info
                if number is None:
                    try:  # typer's spellings (`1_000`, ` 5`), its words replaced by ours
                        number = self._typer_coercion(value, param, ctx)
                    except BadParameter:
                        if not isinstance(value, str) or _loose_int(value) is None:
                            raise _value_error(param, f"{value!r} is not a whole number", ctx) from None
                        number = _loose_int(value)
                if info.min is not None and number < info.min:
                    raise _value_error(param, f"{number} is too small (at least {info.min})", ctx)
                if info.max is not None and number > info.max:
                    raise _value_error(param, f"{number} is too large (at most {info.max})", ctx)
                return number
            if annotation == list[str]:
                if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                    return list(value)
                return self._typer_coercion(value, param, ctx)
            if isinstance(value, annotation):
                return value
            try:
                return annotation(value)
            except ValueError:
                choices = ", ".join(str(member.value) for member in annotation)
                raise _value_error(param, f"{value!r} is not one of {choices}", ctx) from None

        def _typer_coercion(self, value: Any, param: Any, ctx: Context) -> Any:
            """What typer would have done (pydantic): for values the plain path does not decide."""
            from wfctl.typercompat import build_runtime_param, resolve_type_descriptor

            typer_param = build_runtime_param(resolve_type_descriptor(self.annotation, self.parameter_info))
            return typer_param._coerce_value(value, param=param, ctx=ctx)

    _plain_classes[base] = PlainRuntimeParam
    return PlainRuntimeParam
