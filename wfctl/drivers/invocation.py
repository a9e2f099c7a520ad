"""A command's invocation as its driver reads it: the AppContext the root callback built, the records its
words name (an id, the beginning of one, or a name), a JSON document it was given. Shared by the verbs
(wfctl.commands) and their drivers, so it sits below both.
"""

from __future__ import annotations

from typing import Any

import typer

from wfctl.context import AppContext


def app_context(ctx: typer.Context) -> AppContext:
    """The AppContext built by the root callback."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):  # a command invoked without the root app (tests of one command)
        from wfctl.context import GlobalOptions

        obj = AppContext(GlobalOptions())
        ctx.find_root().obj = obj
    return obj


def resolve_ref(ctx: typer.Context, kind: str, ref: str, *, parent: str | None = None) -> str:
    """The id of the `kind` record that `ref` names (its id, a unique beginning of it, or its name:
    wfctl.api.records.refs), `parent` (an id) scoping a name; a whole id is returned with no request. No match
    is exit 4 (`no branch 'X'`), several exit 2 (each candidate with its id)."""
    return resolve_in(app_context(ctx).client, kind, ref, parent=parent, offered=offered_options(ctx))


def offered_options(ctx: typer.Context) -> frozenset[str]:
    """The option names (`--client`, `-o`, ...) the running command takes."""
    return frozenset(name for param in ctx.command.params for name in param.opts)


def resolve_in(client: Any, kind: str, ref: str, *, parent: str | None = None,
               offered: frozenset[str] = frozenset()) -> str:
    """`resolve_ref` with a client: `offered`, the options of the command, says whether an ambiguous name
    can be told apart by naming its parent (`--branch <branch>`)."""
    from wfctl.api.records.refs import AmbiguousReference, resolve
    from wfctl.api.records.resources import RESOURCES
    from wfctl.errors import CliError

    try:
        return resolve(client, kind, ref, parent=parent)
    except AmbiguousReference as exc:
        owner = RESOURCES[kind].parent
        option = f"--{owner}"
        if (parent is not None or not owner or len({c.parent for c in exc.candidates}) < 2
                or option not in offered):
            raise
        # the same name under several parents: naming the parent is the other way out (issue 49)
        raise CliError(f"{exc}, or name its {owner} ({option} <{owner}>)") from None


def resolve_refs(ctx: typer.Context, kind: str, refs: list[str] | None, *, check: bool = False) -> list[str]:
    """`resolve_ref` of each of `refs`; `check`: a whole id is read once to make sure it names a record
    (where a wrong one would otherwise give an empty answer, e.g. an export's empty file)."""
    from wfctl.api.records.refs import is_whole_id, require

    ids = []
    for ref in refs or []:
        record_id = resolve_ref(ctx, kind, ref)
        if check and is_whole_id(ref):
            require(app_context(ctx).client, kind, record_id, ref)
        ids.append(record_id)
    return ids


def read_json_input(path: str, option: str, stdin: Any = None) -> Any:
    """The JSON document in file `path` (`-` is stdin: `stdin`, else the process's) given to `option`; a
    problem is one line, exit 2."""
    import json
    import sys

    from wfctl.errors import CliError

    where = "stdin" if path == "-" else path
    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, encoding="utf-8-sig") as handle:
                text = handle.read()
    except OSError as exc:
        raise CliError(f"{option}: cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CliError(f"{option} {where}: not UTF-8 text") from None
    try:
        document = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise CliError(f"{option} {where}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise CliError(f"{option} {where}: JSON nested more than {MAX_JSON_DEPTH} levels deep") from None
    except ValueError as exc:  # NaN or Infinity; an integer of more digits than Python converts
        reason = str(exc) if "NaN" in str(exc) or "Infinity" in str(exc) else "a number with too many digits"
        raise CliError(f"{option} {where}: not valid JSON: {reason}") from None
    if _depth_exceeds(document, MAX_JSON_DEPTH):
        raise CliError(f"{option} {where}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return document


#: Deepest JSON document accepted as input. Records nest three levels; far deeper documents would
#: break Python's recursion limit somewhere between here and the wire.
MAX_JSON_DEPTH = 100


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _depth_exceeds(document: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` levels (iterative: no recursion of its own)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        elif not isinstance(value, list):
            continue
        if depth > limit:
            return True
        stack.extend((item, depth + 1) for item in value if isinstance(item, dict | list))
    return False
