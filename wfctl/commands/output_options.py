"""The output option group, declared once: -o/--output, and --fields where a command shows a record's fields.

A command takes the group with one decorator, as gh's `cmdutil.AddJSONFlags` and kubectl's
`PrintFlags.AddFlags` attach theirs in one call:

    @verb("get")
    @takes_output(fields=True)
    def get(ctx: typer.Context, branch_id: ..., output: OutputOptions = AS_CONFIGURED) -> None:
        out = output.writer(app_context(ctx), "branch")   # a wfctl.render.output.Output; out.machine, out.format

The decorator puts the group's options where the command's `output` parameter stands (so `--help` lists
them there) and hands the command one `OutputOptions`. The formats are `wfctl.render.output.FORMATS`: -o's
choices, its help and its completion come from there. A new format is a name there and its writer in
`wfctl.render.output`; a new query option (--jq, --sort-by) is declared here, carried by `OutputOptions` and
applied by `wfctl.render.output.Output`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from wfctl.cmdline.completion_cache import complete_columns, complete_fields, complete_sort_keys
from wfctl.commands.optiongroup import option_group
from wfctl.drivers.asked import AS_CONFIGURED as AS_CONFIGURED
from wfctl.drivers.asked import NO_SHAPE as NO_SHAPE
from wfctl.drivers.asked import OutputOptions
from wfctl.render.output import FORMATS
from wfctl.render.shaped import Shape

if TYPE_CHECKING:

    OutputFormat = StrEnum
else:  # -o's choices, a str Enum (wfctl.cmdline.coercion checks it without pydantic), in the order of FORMATS
    OutputFormat = StrEnum("OutputFormat", [(name, name) for name in FORMATS])

F = TypeVar("F", bound=Callable[..., Any])
OUTPUT_PANEL = "Output"


def formats_help(**notes: str) -> str:
    """`Output format: table, wide (a table of every column), json, jsonl or csv.`: FORMATS, each with its
    note (`notes` replace some)."""
    named = [f"{name} ({note})" if note else name for name, note in {**FORMATS, **notes}.items()]
    return f"Output format: {', '.join(named[:-1])} or {named[-1]}."


def global_output_option(panel: str) -> Any:
    """The root command's -o/--output (also WFCTL_OUTPUT): before the command, for every command."""
    return typer.Option("--output", "-o", envvar="WFCTL_OUTPUT", help=formats_help(wide="a table of every field"),
                        rich_help_panel=panel, show_default=False)


Format = Annotated[
    OutputFormat | None,
    typer.Option("--output", "-o", help=formats_help(), rich_help_panel=OUTPUT_PANEL, show_default=False),
]
QUERY_PANEL = "Query"
Jq = Annotated[
    str | None,
    typer.Option("--jq", help="jq filter on the whole result: reads every page first (wfctl help queries).",
                 rich_help_panel=QUERY_PANEL, metavar="<filter>", show_default=False),
]
JqEach = Annotated[
    str | None,
    typer.Option("--jq-each", help="jq filter on each record, streamed.",
                 rich_help_panel=QUERY_PANEL, metavar="<filter>", show_default=False),
]
Args = Annotated[
    list[str] | None,
    typer.Option("--arg", help="Bind $NAME to a text in the filter.",
                 rich_help_panel=QUERY_PANEL, metavar="<name> <value>", show_default=False),
]
ArgJson = Annotated[
    list[str] | None,
    typer.Option("--argjson", help="Bind $NAME to a JSON value in the filter.",
                 rich_help_panel=QUERY_PANEL, metavar="<name> <json>", show_default=False),
]
SortBy = Annotated[
    str | None,
    typer.Option("--sort-by", help="Sort by fields (-FIELD: descending), naturally; reads every page first.",
                 rich_help_panel=QUERY_PANEL, metavar="<field,...>", show_default=False,
                 autocompletion=complete_sort_keys),
]
Columns = Annotated[
    str | None,
    typer.Option("--columns", help="Columns to show: HEADER=SOURCE, ...",
                 rich_help_panel=QUERY_PANEL, metavar="<header=source,...>", show_default=False,
                 autocompletion=complete_columns),
]
Fields = Annotated[
    str | None,
    typer.Option("--fields", help="The fields to show, e.g. id,name,email.",
                 rich_help_panel=OUTPUT_PANEL, metavar="<a,b,c>", autocompletion=complete_fields),
]


#: The options that take two words (`--arg NAME VALUE`, as jq's): typer declares no such option, so the
#: click command is given them once it is built (`pair_options`, from wfctl.cmdline.app.root_command).
PAIRED = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})


def pair_options(command: Any) -> None:
    """Every --arg, --argjson, --slurpfile and --rawfile under `command` takes NAME VALUE (click's nargs=2,
    repeatable)."""
    for param in getattr(command, "params", []):
        if PAIRED.intersection(param.opts):
            param.nargs = 2
    for sub in (getattr(command, "commands", None) or {}).values():
        pair_options(sub)


#: The query options, after -o and --fields in every command's output group.
QUERY = {"jq": Jq, "jq_each": JqEach, "args": Args, "argjson": ArgJson, "sort_by": SortBy, "columns": Columns}



def takes_output(*, fields: bool = False) -> Callable[[F], F]:
    """Give a command the output options (-o/--output; `fields`: --fields too) in place of its parameter
    `output: OutputOptions = AS_CONFIGURED`, which then receives what they asked for."""
    group = {"output": Format, **({"fields": Fields} if fields else {}), **QUERY}  # parameter: its option
    return option_group("output", {name: (option, None) for name, option in group.items()}, _asked)


def _asked(given: dict[str, Any], ctx: Any) -> OutputOptions:
    """The OutputOptions the group's values ask for; a query option shapes every Output the command makes
    (AppContext.output), not only `writer`'s."""
    if given["output"] is not None:
        given["output"] = str(given["output"])  # the format's name (a StrEnum's str is its value)
    shape = Shape(jq=given.pop("jq"), jq_each=given.pop("jq_each"), args=tuple(given.pop("args") or ()),
                  argjson=tuple(given.pop("argjson") or ()), sort_by=given.pop("sort_by"),
                  columns=given.pop("columns"))
    if shape and ctx is not None:
        from wfctl.commands.options import app_context

        app_context(ctx).shape = shape
    return OutputOptions(format=given.pop("output"), shape=shape, **given)
