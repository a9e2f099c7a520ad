"""Plain-text help: summary, description, options grouped by panel, and a verbatim Examples block.

Typer draws `rich_help_panel` groups only through rich, which costs tens of milliseconds on every
`--help`; this renders the same groups with click's own HelpFormatter. Docstrings are written as:

    Imperative one-line summary.

    Longer description, rewrapped to the terminal.

    Examples:
      $ wfctl sites list --client <client-id>

The root group (`WfctlGroup`, the `cls=` of the root Typer app) gives every command below it the
same formatting when the tree is built, so command modules need no hook of their own.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

from typer.core import TyperGroup

from wfctl.cmdline.coercion import lighten, lighten_param
from wfctl.cmdline.helpindex import HELP_MAX_WIDTH
from wfctl.cmdline.typercompat import Command, Context, HelpFormatter

EXAMPLES_HEADING = "Examples"
DEFAULT_OPTIONS_PANEL = "Options"
DEFAULT_ARGUMENTS_PANEL = "Arguments"
DEFAULT_COMMANDS_PANEL = "Commands"
ROOT_OPTIONS_PANEL = "Global options"
#: Panels named on a line or two, not described option by option, and where they are described: the query
#: options are on every command that prints records, and in full (16 lines at 80 columns) they pushed a
#: command's own arguments and options off a 24-line screen, as the global options did.
NAMED_PANELS = {"Query": "wfctl help queries"}

# Options a command cannot run without that click does not enforce itself (the command checks them, as
# --from-file may give the name): marked as required in help all the same. Keyed by the command's path.
REQUIRED_OPTIONS: dict[str, tuple[str, ...]] = {
    "sites list": ("--client",),
    "sites create": ("--client", "--name"),
    "clients create": ("--branch", "--name"),
    "branches create": ("--name",),
}
_TYPE_WORDS = {"int": "<n>", "int range": "<n>", "float": "<number>", "float range": "<number>", "str": "<text>"}
_TYPE_SUFFIX = re.compile(r" <(int range|float range|int|float|str)>$")
_RANGE = re.compile(r"(?:(-?[0-9.]+)<=)?x(?:<=(-?[0-9.]+)|>=(-?[0-9.]+))?")


def split_help(text: str | None) -> tuple[str, str]:
    """The prose (summary and description) and the Examples block (dedented, verbatim) of a help text."""
    text = inspect.cleandoc(text or "").partition("\f")[0]
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip().rstrip(":").lower() == EXAMPLES_HEADING.lower() and line.rstrip().endswith(":"):
            prose = "\n".join(lines[:index]).strip()
            examples = textwrap.dedent("\n".join(lines[index + 1:])).strip("\n")
            return prose, examples
    return text.strip(), ""


def summary(text: str | None) -> str:
    """The first line of a help text: the command's one-line summary."""
    prose, _ = split_help(text)
    return prose.splitlines()[0].strip() if prose else ""


class HelpMixin:
    """Formats a click command's help as plain text with panels and an Examples block."""

    _wfctl_help = True

    def get_help_option_names(self: Any, ctx: Context) -> list[str]:
        # click's, in the order the context lists them: click builds a set, so -h and --help came in
        # a different order from one process to the next (in completions)
        taken = {name for param in self.params for name in (*param.opts, *param.secondary_opts)}
        return [name for name in ctx.help_option_names if name not in taken]

    def get_help_option(self: Any, ctx: Context) -> Any:
        # click's own (typer does not override it); the option is built on first use, so it is
        # lightened here rather than in adopt()
        option = Command.get_help_option(self, ctx)
        if option is not None:
            lighten_param(option)
        return option

    def get_help(self: Any, ctx: Context) -> str:
        # the terminal's width up to HELP_MAX_WIDTH columns (click stops at 80)
        formatter = HelpFormatter(width=ctx.terminal_width, max_width=ctx.max_content_width or HELP_MAX_WIDTH)
        self.format_help(ctx, formatter)
        return formatter.getvalue().rstrip("\n")

    def format_usage(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        # click writes a required argument as `{<site-id>}`: here it is `<site-id>` (optional: `[...]`)
        pieces = [_plain_usage_piece(piece) for piece in self.collect_usage_pieces(ctx)]
        formatter.write_usage(ctx.command_path, " ".join(pieces))

    def format_help(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_options(ctx, formatter)
        self.format_examples(ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_help_text(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        prose, _ = split_help(self.help)
        if self.deprecated:
            prose = f"{prose} (DEPRECATED)".strip()
        if prose:
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(prose)

    def format_options(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        panels: dict[str, list[tuple[str, str]]] = {DEFAULT_ARGUMENTS_PANEL: [], DEFAULT_OPTIONS_PANEL: []}
        required = REQUIRED_OPTIONS.get(ctx.command_path.partition(" ")[2], ())
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            record = _plain_record(param, record, required)
            default = DEFAULT_ARGUMENTS_PANEL if param.param_type_name == "argument" else DEFAULT_OPTIONS_PANEL
            panels.setdefault(getattr(param, "rich_help_panel", None) or default, []).append(record)
        for name, rows in panels.items():
            _write_section(formatter, name, rows)
        if getattr(self, "commands", None) is not None:
            self.format_commands(ctx, formatter)
        if ctx.parent is not None:
            _write_inherited_options(ctx, formatter)

    def format_commands(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        panels: dict[str, list[tuple[str, str]]] = {DEFAULT_COMMANDS_PANEL: []}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            panel = getattr(command, "rich_help_panel", None) or DEFAULT_COMMANDS_PANEL
            short = command.short_help or summary(command.help)
            panels.setdefault(panel, []).append((name, short))
        for name, rows in panels.items():
            _write_section(formatter, name, rows)

    def format_examples(self: Any, ctx: Context, formatter: HelpFormatter) -> None:
        _, examples = split_help(self.help)
        if not examples:
            return
        formatter.write_paragraph()
        formatter.write_heading(EXAMPLES_HEADING)
        indent = " " * (formatter.current_indent + formatter.indent_increment)
        for line in examples.splitlines():
            for part in _example_lines(line.rstrip(), formatter.width - len(indent)):
                formatter.write(f"{indent}{part}\n")


class WfctlGroup(HelpMixin, TyperGroup):
    """The root group: its commands, and theirs, get the plain-text help format."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        lighten(self)
        for command in self.commands.values():
            adopt(command)


def adopt(command: Command) -> None:
    """Give `command` and every command below it the plain-text help format (and the light
    option coercion of wfctl.cmdline.coercion).

    Typer has no per-app default for the classes of the commands other modules register, so the
    class of each built command is swapped for a subclass carrying `HelpMixin` (same state, same
    behaviour apart from help)."""
    if not getattr(command, "_wfctl_help", False):
        command.__class__ = _help_class(type(command))
    lighten(command)
    for child in getattr(command, "commands", {}).values():
        adopt(child)


_help_classes: dict[type, type] = {}


def _help_class(base: type) -> type:
    # A single-base subclass with the mixin's methods copied in: CPython refuses to swap an object's
    # class for one with an extra base in front (a different layout), but accepts a plain subclass.
    if base not in _help_classes:
        methods = {name: value for name, value in vars(HelpMixin).items() if not name.startswith("__")}
        _help_classes[base] = type(f"Wfctl{base.__name__}", (base,), methods)
    return _help_classes[base]


def _plain_usage_piece(piece: str) -> str:
    if piece.startswith("{") and "}" in piece:
        inner, _, rest = piece[1:].rpartition("}")
        return inner + rest
    return piece


def _plain_record(param: Any, record: tuple[str, str], required: tuple[str, ...]) -> tuple[str, str]:
    """A help row without click's type names (`<site-id> <str>`, `--concurrency <int range>`) and
    range formulas (`1<=x<=256`), with `[required]` on an option the command cannot run without."""
    name, text = record
    if param.param_type_name == "argument":
        shown = getattr(param, "metavar", None) or name.split(" ", 1)[0]
        name = shown if name.startswith(shown) else name
    else:
        name = _TYPE_SUFFIX.sub(lambda m: " " + _TYPE_WORDS[m.group(1)], name)
    if text.endswith("]") and "[" in text:
        head, _, extra = text[:-1].rpartition("[")
        parts = [_plain_range(part) for part in extra.split("; ")]
        if any(opt in required for opt in getattr(param, "opts", ())) and "required" not in parts:
            parts.append("required")
        text = f"{head}[{'; '.join(parts)}]"
    elif any(opt in required for opt in getattr(param, "opts", ())):
        text = f"{text}  [required]" if text else "[required]"
    return name, text


def _plain_range(part: str) -> str:
    match = _RANGE.fullmatch(part)
    if match is None or part == "x":
        return part
    low, high, at_least = match.groups()
    if low is not None and high is not None:
        return f"{low} to {high}"
    if at_least is not None:
        return f"at least {at_least}"
    if high is not None:
        return f"at most {high}"
    return f"at least {low}" if low is not None else part


def _example_lines(line: str, width: int) -> list[str]:
    """An example command too long for the terminal, broken between words (a quoted word kept whole) with a
    shell's ` \\` continuation, so that it reads whole and can be pasted as it is (the terminal broke it
    mid-word)."""
    if len(line) <= width or not line.lstrip().startswith("$ "):
        return [line]
    words = re.findall(r"""(?:[^\s"']+|"[^"]*"|'[^']*')+""", line)
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and len(candidate) + 2 > width:
            lines.append(current + " \\")
            current = "    " + word
        else:
            current = candidate
    return [*lines, current]


def _write_section(formatter: HelpFormatter, name: str, rows: list[tuple[str, str]]) -> None:
    if not rows:
        return
    if name in NAMED_PANELS:  # one line under the section before it (Output): `--jq; --sort-by ... (where)`
        names = "; ".join(option.split(" ")[0] for option, _ in rows)
        indent = " " * (formatter.current_indent + 2)
        width = max(formatter.width - len(indent), 20)
        for line in textwrap.wrap(f"{names} ({NAMED_PANELS[name]})", width=width, break_on_hyphens=False,
                                  break_long_words=False):
            formatter.write(f"{indent}{line}\n")
        return
    with formatter.section(name):
        formatter.write_dl(rows)


def _write_names(formatter: HelpFormatter, heading: str, names: list[str]) -> None:
    """A section that names its options on a line or two (`--jq <filter>; --sort-by <field,...>`)."""
    with formatter.section(heading):
        indent = " " * formatter.current_indent
        width = max(formatter.width - formatter.current_indent, 20)
        for line in textwrap.wrap("; ".join(names), width=width, break_on_hyphens=False, break_long_words=False):
            formatter.write(f"{indent}{line}\n")


def _write_inherited_options(ctx: Context, formatter: HelpFormatter) -> None:
    """The root's options, so `wfctl sites list --help` also tells which there are, named on a line or two:
    in full (17 lines at 80 columns) they pushed the command's own arguments and options off a 24-line screen
    (a terminal keeps the last lines of a long help in view); `wfctl --help` describes them. An option the
    command declares itself (`-o`) is in its own section, not named twice."""
    root = ctx.find_root()
    own = {opt for param in ctx.command.params for opt in getattr(param, "opts", ())} if ctx.parent else set()
    names = []
    for param in root.command.params:
        record = param.get_help_record(root)
        if record is not None and param.name not in ("version",) and not own & set(param.opts):
            names.append(", ".join(sorted(param.opts, key=lambda opt: opt.startswith("--"))))
    if not names:
        return
    _write_names(formatter, f"{ROOT_OPTIONS_PANEL} (before or after the command; wfctl --help says more)", names)
