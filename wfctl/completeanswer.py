"""The completion answer: one Tab press (`_WFCTL_COMPLETE=complete_bash|zsh|fish`) answered from the help
index (wfctl.helpindex) as typer's BashComplete, ZshComplete and FishComplete answer it, stdlib only.

A request the index cannot answer the way click would (`--opt=value` forms it does not know, `--`, an
unknown word, a completion callback that is not wfctl's cached ids) raises NotIndexed: Typer answers it.
tests/newcomer/test_fast_path.py compares both answers for every command.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from wfctl.helpindex import NotIndexed, find_option


def complete_answer(index: dict[str, Any], instruction: str, environ: typing.Mapping[str, str]) -> tuple[str, int]:
    """One Tab press, answered as typer's BashComplete, ZshComplete and FishComplete do."""
    action, _, shell = instruction.partition("_")
    if action != "complete" or shell not in ("bash", "zsh", "fish"):
        raise NotIndexed
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
        raise NotIndexed
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
    left = 0  # words the pending option still takes (`--arg NAME VALUE`: two)
    positionals = 0
    for word in args:
        if pending is not None:
            if word.startswith("-") and word != "-":
                raise NotIndexed
            values[pending["name"]] = word
            left -= 1
            if left <= 0:
                pending = None
        elif word.startswith("-") and word != "-":
            name, eq, value = word.partition("=")
            option = find_option(node, name)
            attached = None
            if option is None and not eq and not word.startswith("--") and len(word) > 2:
                option, attached = find_option(node, word[:2]), word[2:]  # -ojson
                if option is not None and not option["takes_value"]:
                    raise NotIndexed  # -vq: several flags in one word
            if option is None or (eq and not option["takes_value"]):
                raise NotIndexed
            given.add(option["name"])
            if eq or attached is not None:
                values[option["name"]] = value if eq else attached
            elif option["takes_value"]:
                pending, left = option, max(1, option.get("nargs") or 1)
        elif node["commands"] is not None and positionals == 0:
            if word not in node["commands"]:
                raise NotIndexed
            node, values, given = node["commands"][word], {}, set()
        else:
            arguments = [p for p in node["params"] if p["kind"] == "argument"]
            if positionals < len(arguments) and arguments[positionals]["nargs"] == 1:
                values[arguments[positionals]["name"]] = word  # as click's ctx.params (`config set <key> <TAB>`)
            positionals += 1
    arguments = [p for p in node["params"] if p["kind"] == "argument"]
    if pending is None and positionals > len(arguments) and not any(p["nargs"] == -1 for p in arguments):
        raise NotIndexed
    if pending is not None and left == max(1, pending.get("nargs") or 1) and args and args[-1] not in pending["opts"]:
        raise NotIndexed  # a secondary name that takes a value: not a case click completes
    return node, values, given, pending, positionals


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
    raise NotIndexed


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
