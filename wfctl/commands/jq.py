"""wfctl jq: the --jq engine on a saved JSON or JSONL file (no jq needed, on Windows too)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import ArgJson, Args, Format
from wfctl.errors import CliError


def jq(
    ctx: typer.Context,
    expression: Annotated[str, typer.Argument(metavar="<filter>", help="A jq filter, e.g. '.[] | .name'.",
                                              show_default=False)],
    file: Annotated[str | None, typer.Argument(metavar="<file>|-", help="A JSON or JSONL file (default, or -: "
                                               "standard input).", show_default=False)] = None,
    slurp: Annotated[bool, typer.Option("--slurp", "-s", help="Read every value of the file into one list first "
                                        "(a saved -o jsonl then reads as --jq reads a list).")] = False,
    output: Format = None,
    args: Args = None,
    argjson: ArgJson = None,
) -> None:
    """Run a jq filter on a saved JSON or JSONL file: the engine of --jq, no jq needed.

    The filter runs on each JSON value of the file in turn, as jq does (--slurp: on one list of them all,
    so `wfctl jq -s F saved.jsonl` answers as `--jq F` did). `env` and `$ENV` are empty; integers beyond
    2^53 keep every digit. Results print as JSON; -o jsonl, yaml, table or csv as --jq renders them.
    `wfctl help queries` has worked examples.

    Examples:
      $ wfctl sites export --all-clients -o json > sites.json
      $ wfctl jq '.[] | select(.assessmentRequired) | .name' sites.json
      $ wfctl sites export --all-clients -o jsonl | wfctl jq -s 'group_by(.clientId) | map(length)' -
      $ wfctl jq --arg skill "Forklift Driver" '.[] | select(any(.rates[]; .skill == $skill)) | .name' sites.json
    """
    from wfctl.shaped import Shape, ShapedOutput

    app = app_context(ctx)
    fmt = app.output(str(output)).format if output is not None else "json"  # JSON, as jq: not the profile's table
    pairs: Any = (tuple(args or ()), tuple(argjson or ()))  # (NAME, VALUE) pairs: output_options.pair_options
    shape = Shape(jq=expression, args=pairs[0], argjson=pairs[1])
    out = ShapedOutput(app.io, fmt, shape, option="")
    out.texts(_read(file), slurp=slurp, source=file if file not in (None, "-") else "<stdin>")


def _read(file: str | None) -> str:
    if file in (None, "-"):
        if file is None and sys.stdin.isatty():
            raise CliError("give a JSON or JSONL file, or - for standard input (e.g. wfctl sites list -o json | "
                           "wfctl jq '.[0]' -)")
        return sys.stdin.read()
    try:
        with open(file, encoding="utf-8-sig") as f:
            return f.read()
    except FileNotFoundError:
        raise CliError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{file}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise CliError(f"{file}: not UTF-8 text (JSON is)") from None
    except OSError as exc:
        raise CliError(f"{file}: {exc.strerror}") from None
