"""wfctl jq: jq on a saved JSON or JSONL file, with jq's everyday options (libjq itself; no jq needed,
on Windows too)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from wfctl.commands.options import app_context
from wfctl.commands.output_options import Format

if TYPE_CHECKING:
    from wfctl.cmdline.typercompat import Context

JQ_PANEL = "jq's options"


def jq(
    ctx: typer.Context,
    expression: Annotated[str, typer.Argument(metavar="<filter>", help="A jq filter, e.g. '.[] | .name' or "
                                              "'-.n' (with -f: the file that holds it).", show_default=False)],
    files: Annotated[list[str] | None, typer.Argument(
        metavar="<file>", help="JSON or JSONL files, read as one stream (none, or -: standard input); "
                                    "after --args or --jsonargs: the values of $ARGS.positional.",
        show_default=False)] = None,
    raw: Annotated[bool, typer.Option("--raw-output", "-r", help="Text results as they are, without quotes.",
                                      rich_help_panel=JQ_PANEL)] = False,
    join: Annotated[bool, typer.Option("--join-output", "-j", help="As -r, and no newline after each result.",
                                       rich_help_panel=JQ_PANEL)] = False,
    ascii: Annotated[bool, typer.Option("--ascii-output", "-a", help="Characters beyond ASCII as \\u escapes.",
                                        rich_help_panel=JQ_PANEL)] = False,
    compact: Annotated[bool, typer.Option("--compact-output", "-c", help="Each result on one line.",
                                          rich_help_panel=JQ_PANEL)] = False,
    tab: Annotated[bool, typer.Option("--tab", help="Indent with a tab.", rich_help_panel=JQ_PANEL)] = False,
    indent: Annotated[int | None, typer.Option("--indent", metavar="<n>", help="Indent with n spaces (-1 to 7; "
                                               "default 2).", rich_help_panel=JQ_PANEL, show_default=False)] = None,
    sort_keys: Annotated[bool, typer.Option("--sort-keys", "-S", help="Keys of objects in order.",
                                            rich_help_panel=JQ_PANEL)] = False,
    null_input: Annotated[bool, typer.Option("--null-input", "-n", help="Run once on null; `input` and `inputs` "
                                             "read the files.", rich_help_panel=JQ_PANEL)] = False,
    slurp: Annotated[bool, typer.Option("--slurp", "-s", help="Read every value into one list first (a saved "
                                        "-o jsonl then reads as --jq reads a list).", rich_help_panel=JQ_PANEL)] = False,
    raw_input: Annotated[bool, typer.Option("--raw-input", "-R", help="Each line of the input is a text, not "
                                            "JSON (with -s: the whole input is one text).",
                                            rich_help_panel=JQ_PANEL)] = False,
    from_file: Annotated[bool, typer.Option("--from-file", "-f", help="Read the filter from the file named where "
                                            "the filter goes.", rich_help_panel=JQ_PANEL)] = False,
    seq: Annotated[bool, typer.Option("--seq", help="application/json-seq: an RS character before each result; "
                                      "input that is not JSON is skipped to the next RS.",
                                      rich_help_panel=JQ_PANEL)] = False,
    stream: Annotated[bool, typer.Option("--stream", help="Read the input as [path, leaf] events, as jq's "
                                         "--stream.", rich_help_panel=JQ_PANEL)] = False,
    color: Annotated[bool, typer.Option("--color-output", "-C", help="Colour the JSON (the default on a "
                                        "terminal, unless NO_COLOR is set; JQ_COLORS sets the colours).",
                                        rich_help_panel=JQ_PANEL)] = False,
    monochrome: Annotated[bool, typer.Option("--monochrome-output", "-M", help="No colour.",
                                             rich_help_panel=JQ_PANEL)] = False,
    exit_status: Annotated[bool, typer.Option("--exit-status", "-e", help="Exit 1 when the last result is false "
                                              "or null, 4 when there is none.", rich_help_panel=JQ_PANEL)] = False,
    args: Annotated[list[str] | None, typer.Option(
        "--arg", metavar="<name> <value>", help="Bind $NAME to a text (a repeated name keeps the first).",
        rich_help_panel=JQ_PANEL, show_default=False)] = None,
    argjson: Annotated[list[str] | None, typer.Option(
        "--argjson", metavar="<name> <json>", help="Bind $NAME to a JSON value.", rich_help_panel=JQ_PANEL,
        show_default=False)] = None,
    slurpfile: Annotated[list[str] | None, typer.Option(
        "--slurpfile", metavar="<name> <file>", help="Bind $NAME to a list of the file's JSON values.",
        rich_help_panel=JQ_PANEL, show_default=False)] = None,
    rawfile: Annotated[list[str] | None, typer.Option(
        "--rawfile", metavar="<name> <file>", help="Bind $NAME to the file's text.", rich_help_panel=JQ_PANEL,
        show_default=False)] = None,
    positional_text: Annotated[bool, typer.Option("--args", help="The arguments after the filter are texts of "
                                                  "$ARGS.positional, not files.", rich_help_panel=JQ_PANEL)] = False,
    positional_json: Annotated[bool, typer.Option("--jsonargs", help="The arguments after the filter are JSON "
                                                  "values of $ARGS.positional.", rich_help_panel=JQ_PANEL)] = False,
    output: Format = None,
) -> None:
    """Run a jq filter on saved JSON or JSONL files, as jq does: the engine of --jq, no jq needed.

    libjq itself runs the filter on each JSON value in turn, and prints each result as jq prints it
    (every digit of a number). `input`, `inputs`, `debug`, `stderr`, `halt_error` and errors on an input
    (reported, then the next input) behave as in jq, and so does the exit status (5: the filter failed
    on the last input). `env` and `$ENV` are empty; modules are not offered. -o json, jsonl, yaml,
    table or csv render the results as --jq does instead. `wfctl help queries` has worked examples.

    Examples:
      $ wfctl sites export --all-clients -o json > sites.json
      $ wfctl jq -r '.[] | select(.assessmentRequired) | .name' sites.json
      $ wfctl sites export --all-clients -o jsonl | wfctl jq -s 'group_by(.clientId) | map(length)'
      $ wfctl jq --arg skill "Forklift Driver" '.[] | select(any(.rates[]; .skill == $skill)) | .name' sites.json
      $ wfctl jq -n '[inputs | .[] | .bannedWorkers | length] | add' sites.json
    """
    from wfctl.drivers.jqrun import JqAsked, run

    app = app_context(ctx)
    run(app.io, JqAsked(
        expression=_unmarked(expression), words=[_unmarked(value) for value in files or ()], raw=raw, join=join,
        ascii=ascii, compact=compact, tab=tab, indent=indent, sort_keys=sort_keys, null_input=null_input,
        slurp=slurp, raw_input=raw_input, from_file=from_file, seq=seq, stream=stream, color=color,
        monochrome=monochrome, exit_status=exit_status, args=_pairs(args), argjson=_pairs(argjson),
        slurpfile=_pairs(slurpfile), rawfile=_pairs(rawfile), positional_text=positional_text,
        positional_json=positional_json, output=None if output is None else str(output)), app)


#: Put before a word that starts with - and is no option in jq's eyes (`-.a`, `-1`: a dash, then neither a
#: letter nor a dash), so that click reads it as the filter or a file, as jq does; no argument from a shell
#: can hold it (argv strings end at a NUL), and the command takes it off again.
_MARK = "\0"


class JqCommand(TyperCommand):
    """`wfctl jq`'s click command: a word jq would not take for an option (`wfctl jq '-.a'`) is a positional
    argument, as in jq (whose rule is: a dash, then a letter or a dash)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        takes = {name: param.nargs for param in self.params
                 if param.param_type_name == "option" and not getattr(param, "is_flag", False) for name in param.opts}
        words, index = [], 0
        while index < len(args):
            word = args[index]
            if word == "--":
                words += args[index:]
                break
            if word in takes:  # an option and its values, whatever they look like (--indent -1)
                words += args[index:index + 1 + takes[word]]
                index += 1 + takes[word]
                continue
            dashed = len(word) > 1 and word[0] == "-" and word[1] != "-" and not word[1].isalpha()
            words.append(_MARK + word if dashed else word)
            index += 1
        return super().parse_args(ctx, words)


jq.command_class = JqCommand  # type: ignore[attr-defined]  # wfctl.cmdline.app registers the command with it


def _unmarked(word: str) -> str:
    return word[len(_MARK):] if word.startswith(_MARK) else word


def _pairs(values: Any) -> tuple[tuple[str, str], ...]:
    return tuple(values or ())  # (NAME, VALUE) pairs: output_options.pair_options
