"""The index builder: the help index (wfctl.cmdline.helpindex) built from the Typer app itself, and stored.

The first help or Tab request after an install, an edit or a new terminal width goes to Typer (wfctl.cmdline.main),
which then calls `write_index`: the help text of every command, laid out as click lays it out, and the
completion tree (every command, option, argument and how its values complete). This module imports typer
(through wfctl.cmdline.app and wfctl.cmdline.typercompat) and reads parameters' `type_descriptor` and
`_custom_shell_complete`, typer's private API, falling back to "only typer knows" when they are missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wfctl.cmdline import helpindex
from wfctl.cmdline.argv import param_spec
from wfctl.cmdline.coercion import unwrap_optional

if TYPE_CHECKING:
    from wfctl.cmdline.typercompat import Command, Context


def write_index() -> None:
    """Build the index from the Typer app and store it (atomically; a cache that cannot be written
    only means the next run takes the Typer path again)."""
    try:
        index = {**build_index(), "config": helpindex.config_section()}
        helpindex.store_index(index)
    except Exception:  # never fail the command the user ran because of a cache
        return


def build_index() -> dict[str, Any]:
    """The help text of every command (laid out for this terminal's width, `helpindex.help_width()`) and the
    completion tree, as the Typer app renders and completes them."""
    from wfctl.cmdline.app import root_command

    key, width = helpindex.index_key(), helpindex.help_width()
    if (key, width) not in _built:  # a process running wfctl many times (the tests) builds it once a width
        root = root_command()
        help_texts: dict[str, str] = {}
        tree = _node(root, _context(root, "wfctl", None, width), [], help_texts, width)
        if len(_built) > 8:
            _built.clear()
        _built[(key, width)] = {"key": key, "width": width, "help": help_texts, "tree": tree}
    return _built[(key, width)]


_built: dict[tuple[str, int], dict[str, Any]] = {}


def _context(command: Command, name: str, parent: Context | None, width: int) -> Context:
    from wfctl.cmdline.typercompat import Context

    # click lays help out 2 columns narrower than the terminal; a width given to it is used as is
    settings = {**getattr(command, "context_settings", {}), "terminal_width": width - 2,
                "max_content_width": helpindex.HELP_MAX_WIDTH}
    return Context(command, info_name=name, parent=parent, **settings)


def _node(command: Command, ctx: Context, path: list[str], help_texts: dict[str, str], width: int) -> dict[str, Any]:
    help_texts[" ".join(path)] = ctx.get_help()
    subcommands = getattr(command, "commands", None)
    help_option = command.get_help_option(ctx)
    return {
        "hidden": bool(command.hidden),
        "short_help": command.get_short_help_str(),
        "help_opts": list(help_option.opts) if help_option is not None else [],
        "params": [_param(param) for param in command.get_params(ctx)],
        "commands": None if subcommands is None else {
            name: _node(sub, _context(sub, name, ctx, width), [*path, name], help_texts, width)
            for name, sub in subcommands.items()},
    }


def _param(param: Any) -> dict[str, Any]:
    """A parameter as the walk of a command line reads it (wfctl.cmdline.argv.param_spec), and how its help and
    its values complete."""
    return {**param_spec(param), "hidden": bool(getattr(param, "hidden", False)), "help": getattr(param, "help", None),
            "plain": _plain_str(param), "completes": _completes(param)}


def _completes(param: Any) -> list[Any] | None:
    """How typer completes a value of `param`: ["choices", {...}], ["file", None], ["ids", <function of
    wfctl.cmdline.completion_cache>], None (nothing), or ["typer", None] (only typer knows: not indexed)."""
    custom = getattr(param, "_custom_shell_complete", None)
    if custom is not None:
        function = _autocompletion_function(custom)
        if getattr(function, "__module__", None) == "wfctl.cmdline.completion_cache":
            return ["ids", function.__name__]
        return ["typer", None]
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return ["typer", None]
    if descriptor.is_choice and descriptor.choices is not None:
        from wfctl.cmdline.typercompat import choice_as_str

        return ["choices", {"values": [choice_as_str(c) for c in descriptor.choices],
                            "case_sensitive": bool(descriptor.case_sensitive)}]
    if descriptor.is_file:
        return ["file", None]
    return None


def _plain_str(param: Any) -> bool:
    """Whether any value of `param` is accepted as it is (a str option: click cannot reject it)."""
    descriptor = getattr(param, "type_descriptor", None)
    return descriptor is not None and unwrap_optional(descriptor.annotation) is str and not param.callback


def _autocompletion_function(custom: Any) -> Any:
    """The function given as `autocompletion=`: typer wraps it twice (compat_autocompletion closes
    over get_param_completion's wrapper, which carries __wrapped__)."""
    for cell in getattr(custom, "__closure__", None) or ():
        wrapped = getattr(cell.cell_contents, "__wrapped__", None)
        if wrapped is not None:
            return wrapped
    return None
