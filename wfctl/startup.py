"""Start-up: what keeps `--help` and a Tab press fast (see bench/startup.py and docs/newcomer.md).

Importing typer alone takes longer than a person waits for a Tab press, so `wfctl --help`, every
`wfctl <command>... --help` and every completion request (`_WFCTL_COMPLETE=complete_bash|zsh|fish`) are
answered from an index instead, before anything of Typer loads. wfctl.main asks this module first; the
pieces are one idea each:

- wfctl.helpindex: the index (where it is kept, its key, its width) and `--help` answered from it;
- wfctl.completeanswer: a Tab press answered from it;
- wfctl.indexbuilder: the index built from the Typer app (the first such request after an install, an
  edit or a new terminal width goes to Typer, which then writes the index);
- wfctl.coercion: the Typer path made lighter (option values coerced without pydantic).

A request the index cannot answer the way click would goes to Typer as before.
tests/newcomer/test_fast_path.py compares both answers for every command.
"""

from __future__ import annotations

import os
import typing

from wfctl.helpindex import help_answer, load_index

COMPLETE_VAR = "_WFCTL_COMPLETE"


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
            from wfctl.completeanswer import complete_answer

            return complete_answer(index, instruction, environ)
        return help_answer(index, args)
    except Exception:  # NotIndexed, or an index not shaped as this version writes: a cache, so Typer answers
        return None


def is_fast_request(args: list[str], environ: typing.Mapping[str, str] | None = None) -> bool:
    """Whether fast_answer would try the index for this request (so a missing index is worth writing)."""
    environ = os.environ if environ is None else environ
    return bool(environ.get(COMPLETE_VAR)) or _wants_help(args)


def _wants_help(args: list[str]) -> bool:
    words = args[: args.index("--")] if "--" in args else args
    return not args or "--help" in words or "-h" in words
