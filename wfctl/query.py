"""The query engine of --jq, --jq-each and `wfctl jq`: jq's own language, semantics and messages (libjq,
through the `jq` package, loaded only when a query is asked for).

What wfctl adds around libjq, and why:

- **No environment.** `env` and `$ENV` are `{}`: a filter from a script or a colleague's snippet cannot
  read the token a script put in `WFCTL_ACCESS_TOKEN` (nor anything else of the process's environment).
- **Every digit.** Input goes to libjq as JSON text (its decimal numbers keep a literal's digits) and each
  result comes back through jq's `tojson`, parsed by Python's json (exact integers): an id beyond 2^53
  keeps every digit, as jq 1.7 prints it. (The binding's own conversion goes through a double.)
- **--arg / --argjson** bind `$NAME` and `$ARGS.named`, as jq's options of those names do.

A filter that does not compile is compiled again alone, so its error is jq's message with jq's line and
column; the filter that runs is the same text inside `def env: {}; {} as $ENV | ... | (FILTER\n) | tojson`, all of
the prefix on the filter's first line (`$__loc__` keeps its line numbers).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from wfctl.clierror import CliError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class QueryError(CliError):
    """A filter that does not compile, or fails on the data: jq's message, exit 2."""


def _message(exc: Exception) -> str:
    """jq's message on one line: each `jq: error: ...` without the excerpt of the filter under it."""
    text = str(exc).strip()
    lines = [line for line in text.splitlines() if line.startswith("jq: error")]
    if not lines:
        return f"jq: error: {text.splitlines()[0] if text else 'the filter failed'}"
    return "; ".join(line[:-1] if line.endswith(":") else line for line in lines)


def _library() -> Any:
    try:
        import jq
    except ImportError:  # pragma: no cover - a dependency; said plainly if an install lost it
        raise CliError("the jq library is not installed: pip install jq") from None
    return jq


def parse_argjson(name: str, text: str, option: str = "--argjson") -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise QueryError(f"{option} {name}: invalid JSON text: {text[:60]}") from None


class Query:
    """A compiled filter. `args`: --arg NAME VALUE pairs (text); `argjson`: --argjson NAME JSON pairs."""

    def __init__(self, expression: str, *, option: str = "--jq", args: Iterable[tuple[str, str]] = (),
                 argjson: Iterable[tuple[str, str]] = ()) -> None:
        self.option = option
        self._said = f"{option}: " if option else ""  # `wfctl jq`: jq's words alone
        named: dict[str, Any] = {}
        for flag, pairs, decode in (("--arg", args, None), ("--argjson", argjson, parse_argjson)):
            for name, value in pairs:
                if not _NAME.match(name):
                    raise QueryError(f"{flag} {name}: not a jq variable name (letters, digits and _)")
                named[name] = decode(name, value, flag) if decode else value
        jq = _library()
        literal = json.dumps({"positional": [], "named": named}, ensure_ascii=True, separators=(",", ":"))
        bound = "".join(f"$ARGS.named[{json.dumps(name)}] as ${name} | " for name in named)
        program = f"def env: {{}}; {{}} as $ENV | {literal} as $ARGS | {bound}({expression}\n) | tojson"
        try:  # one compile when it compiles (libjq compiles its builtins each time: ~1 MB)
            self._program = jq.compile(program)
        except ValueError as wrapped:
            error: Exception = wrapped
            try:  # the user's filter alone: its errors as jq words them, at jq's line and column
                jq.compile(expression, args={"ARGS": None, **dict.fromkeys(named)})
            except ValueError as alone:
                error = alone
            raise QueryError(f"{self._said}{_message(error)}") from None

    def run(self, document: Any) -> list[Any]:
        """Every result of the filter on one input (a Python value, as json.loads gives it)."""
        return list(self._results(json.dumps(document, ensure_ascii=False)))

    def run_texts(self, texts: str, *, slurp: bool = False) -> Iterator[Any]:
        """The results of the filter on each JSON value in `texts` (JSON text, values one after another;
        `slurp`: on one list of them all)."""
        return self._results(texts, slurp=slurp)

    def each(self, documents: list[Any]) -> Iterator[Any]:
        """The filter on each of `documents` in turn (--jq-each): one call into libjq for the lot."""
        if not documents:
            return iter(())
        return self._results("\n".join(json.dumps(doc, ensure_ascii=False) for doc in documents))

    def _results(self, text: str, *, slurp: bool = False) -> Iterator[Any]:
        loads = json.loads
        try:
            for result in self._program.input_text(text, slurp=slurp):
                yield loads(result)
        except ValueError as exc:
            message = _runtime(exc)
            if message.startswith("parse error"):  # the input is not JSON (`wfctl jq` on a file)
                raise QueryError(f"{self._said}not JSON: {message}") from None
            raise QueryError(f"{self._said}jq: error: {message}") from None


def _runtime(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "the filter failed"
