"""The completion answer: one Tab press (`_WFCTL_COMPLETE=complete_bash|zsh|fish`) answered from the help
index (wfctl.cmdline.helpindex) as typer's BashComplete, ZshComplete and FishComplete answer it, stdlib only.

A request the index cannot answer the way click would (`--opt=value` forms it does not know, `--`, an
unknown word, a completion callback that is not wfctl's cached ids) raises NotIndexed: Typer answers it.
tests/newcomer/test_fast_path.py compares both answers for every command.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from wfctl.cmdline.helpindex import NotIndexed, profiles

if typing.TYPE_CHECKING:
    from wfctl.cmdline.argv import CompletionRequest, Walk


def complete_answer(index: dict[str, Any], request: CompletionRequest) -> tuple[str, int]:
    """One Tab press, answered as typer's BashComplete, ZshComplete and FishComplete do."""
    if not request.valid:
        raise NotIndexed
    items = _completions(index, request)
    if request.shell == "bash":
        return "\n".join(value for value, _ in items) + "\n", 0
    if request.shell == "zsh":
        lines = [f'"{_zsh_escape(value)}":"{_zsh_escape(text)}"' if text else f'"{_zsh_escape(value)}"'
                 for value, text in items]
        return ("_arguments '*: :((" + "\n".join(lines) + "))'\n" if lines else "_files\n"), 0
    if request.fish_action == "is-args":
        return "", 0 if items else 1
    if request.fish_action == "get-args" and items:
        lines = [f"{value}\t{''.join(' ' if ch.isspace() else ch for ch in text)}" if text else value
                 for value, text in items]
        return "\n".join(lines) + "\n", 0
    return "\n", 0


def _completions(index: dict[str, Any], request: CompletionRequest) -> list[tuple[str, str | None]]:
    """click's _resolve_context and _resolve_incomplete over the index (see shell_completion.py), from the
    one walk of the complete words."""
    tree = index["tree"]
    walk = request.line.walk(tree)
    _check(walk)
    incomplete, environ = request.incomplete, request.line.environ
    level = walk.levels[-1]
    node, values, root_values = level.node, level.values, walk.levels[0].values
    if walk.pending is not None:  # its value, whatever it looks like (`--sort-by -na`), as click's parser reads it
        return _value_completions(walk.pending, incomplete, index, root_values, values, environ)
    if incomplete.startswith("-"):
        return _command_completions(node, level.given, incomplete)
    arguments = [p for p in node["params"] if p["kind"] == "argument"]
    for position, param in enumerate(arguments):
        if param["nargs"] == -1 or position >= level.positionals:
            return _value_completions(param, incomplete, index, root_values, values, environ)
    return _command_completions(node, level.given, incomplete)


def _check(walk: Walk) -> None:
    """Raise NotIndexed where click would complete these words otherwise than the walk reads them."""
    if walk.dashes is not None or walk.problems:
        raise NotIndexed
    level, pending = walk.levels[-1], walk.pending
    arguments = [p for p in level.node["params"] if p["kind"] == "argument"]
    if pending is None and level.positionals > len(arguments) and not any(p["nargs"] == -1 for p in arguments):
        raise NotIndexed
    if pending is not None and walk.left == max(1, pending.get("nargs") or 1) and walk.words[-1] not in pending["opts"]:
        raise NotIndexed  # a secondary name that takes a value: not a case click completes


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


def _value_completions(param: dict[str, Any], incomplete: str, index: dict[str, Any], root_values: dict[str, Any],
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
    if kind == "ids" and detail == "complete_profiles":  # held by the index, keyed by the config file
        return [(name, url or None) for name, url in profiles(index) if name.startswith(incomplete)]
    if kind == "ids":
        from wfctl.cmdline import completion_cache

        context = _CompletionContext(_root_params(index["tree"], root_values, environ), values)
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


def _zsh_escape(text: str) -> str:
    return (text.replace('"', '""').replace("'", "''").replace("$", "\\$").replace("`", "\\`")
            .replace(":", r"\\:"))
