"""Start-up: what keeps `wfctl --help` and light commands fast (see bench/startup.py).

Two things typer 0.29 would otherwise do on every run:

- it coerces every option value through a pydantic TypeAdapter (built even for an option left
  unset), so any command, even `wfctl completion bash` or `sites list`, imported pydantic
  (60-100 ms, and ~10 MB). `lighten()` gives options typed `str`, a str Enum, `int` (with its
  min/max), `bool` and `list[str]` a plain coercion instead. A value the plain coercion is not
  sure of (`--page x`, `--page 0`, `--page 1_000`) goes to typer's own, so messages and accepted
  spellings do not change; options of other types keep typer's.
- `wfctl <group> --help` ran the root callback first, coercing the global options. `fast_help()`
  prints the help of the command the arguments name without running any callback.
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from typing import Any

from typer._click import Command, Context


def lighten(command: Command) -> None:
    """Give the str and Enum options of `command` a coercion that needs no pydantic."""
    try:
        from typer._coercion import RuntimeParam
    except ImportError:  # another typer: nothing to lighten
        return
    for param in command.params:
        lighten_param(param, RuntimeParam)


def lighten_param(param: Any, runtime_param_class: type | None = None) -> None:
    """Plain coercion for one option: str, a str Enum, int, bool or list[str] (see the module's doc)."""
    if runtime_param_class is None:
        try:
            from typer._coercion import RuntimeParam
        except ImportError:
            return
        runtime_param_class = RuntimeParam
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", "absent") is not None:
        return
    annotation = _unwrap_optional(descriptor.annotation)
    info = descriptor.parameter_info
    if getattr(info, "parser", None) is not None:
        return
    plain = (annotation in (str, bool)
             or (annotation is int and not info.clamp)
             or annotation == list[str]
             or (isinstance(annotation, type) and issubclass(annotation, Enum) and issubclass(annotation, str)))
    if plain:
        param._runtime_param = _plain_runtime_param(runtime_param_class)(
            parameter_info=descriptor.parameter_info, annotation=annotation)


def fast_help(args: list[str]) -> str | None:
    """The help text for `wfctl [options] <command>... --help`, or None when the arguments ask for
    something else (or name no command: then the normal path reports the error)."""
    words = args[: args.index("--")] if "--" in args else args
    if "--help" not in words and "-h" not in words:
        return None
    import typer.main

    from wfctl.cli import app

    command: Command = typer.main.get_command(app)
    ctx = Context(command, info_name="wfctl")
    skip_value = False
    for word in words:
        if skip_value:
            skip_value = False
        elif word in ("--help", "-h"):
            return ctx.get_help()
        elif word.startswith("-") and word != "-":
            skip_value = "=" not in word and _takes_value(command, word)
        elif hasattr(command, "commands"):
            sub = command.commands.get(word)
            if sub is None:
                return None
            command = sub
            ctx = Context(command, info_name=word, parent=ctx)
    return None


def _takes_value(command: Command, option: str) -> bool:
    for param in command.params:
        if option in getattr(param, "opts", ()) or option in getattr(param, "secondary_opts", ()):
            return not (getattr(param, "is_flag", False) or getattr(param, "count", False))
    return False


def _unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def _plain_int(value: Any) -> int | None:
    """An int from an int or a plain run of ASCII digits; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


_plain_classes: dict[type, type] = {}


def _plain_runtime_param(base: type) -> type:
    """A typer RuntimeParam that coerces a str as itself and an Enum by value."""
    if base in _plain_classes:
        return _plain_classes[base]

    from dataclasses import dataclass

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):
        def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
            annotation = self.annotation
            if annotation is str:
                return value
            if annotation is bool:
                return value if isinstance(value, bool) else self._typer_coercion(value, param, ctx)
            if annotation is int:
                number = _plain_int(value)
                info = self.parameter_info
                if (number is None or (info.min is not None and number < info.min)
                        or (info.max is not None and number > info.max)):
                    return self._typer_coercion(value, param, ctx)
                return number
            if annotation == list[str]:
                if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                    return list(value)
                return self._typer_coercion(value, param, ctx)
            if isinstance(value, annotation):
                return value
            try:
                return annotation(value)
            except ValueError:
                from typer._click.exceptions import BadParameter

                choices = ", ".join(repr(member.value) for member in annotation)
                raise BadParameter(f"{value!r} is not one of {choices}.", ctx=ctx, param=param) from None

        def _typer_coercion(self, value: Any, param: Any, ctx: Context) -> Any:
            """What typer would have done (pydantic): for values the plain path does not decide."""
            from typer._coercion import build_runtime_param, resolve_type_descriptor

            typer_param = build_runtime_param(resolve_type_descriptor(self.annotation, self.parameter_info))
            return typer_param._coerce_value(value, param=param, ctx=ctx)

    _plain_classes[base] = PlainRuntimeParam
    return PlainRuntimeParam
