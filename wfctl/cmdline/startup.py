"""Start-up: what keeps `--help` and a Tab press fast (see bench/startup.py and docs/newcomer.md).

Importing typer alone takes longer than a person waits for a Tab press, so `wfctl --help`, every
`wfctl <command>... --help` and every completion request (`_WFCTL_COMPLETE=complete_bash|zsh|fish`) are
answered from an index instead, before anything of Typer loads. wfctl.cmdline.main asks this module first; the
pieces are one idea each:

- wfctl.cmdline.argv: the command line parsed once (what it asks, and its one walk over the index's tree);
- wfctl.cmdline.helpindex: the index (where it is kept, its key, its width) and `--help` answered from it;
- wfctl.cmdline.completeanswer: a Tab press answered from it;
- wfctl.cmdline.indexbuilder: the index built from the Typer app (the first such request after an install, an
  edit or a new terminal width goes to Typer, which then writes the index);
- wfctl.cmdline.coercion: the Typer path made lighter (option values coerced without pydantic).

A request the index cannot answer the way click would goes to Typer as before.
tests/newcomer/test_fast_path.py compares both answers for every command.
"""

from __future__ import annotations

import typing

from wfctl.cmdline.argv import CommandLine, CompletionRequest
from wfctl.cmdline.helpindex import help_answer, load_index


def fast_answer(line: CommandLine | list[str],
                environ: typing.Mapping[str, str] | None = None) -> tuple[str, int] | None:
    """(what to print on stdout, exit code) for a help or completion request the index answers,
    or None when Typer has to run (not such a request, no index, or one the index cannot answer)."""
    if not isinstance(line, CommandLine):
        line = CommandLine(line, environ)
    if not line.fast_request:
        return None
    index = load_index()
    if index is None:
        return None
    try:
        if line.completion:
            from wfctl.cmdline.completeanswer import complete_answer

            return complete_answer(index, CompletionRequest(line.completion, line.environ))
        return help_answer(index, line)
    except Exception:  # NotIndexed, or an index not shaped as this version writes: a cache, so Typer answers
        return None
