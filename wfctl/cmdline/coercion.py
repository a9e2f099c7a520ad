"""Lighter coercion on the Typer path: the pydantic bypass (see bench/startup.py and docs/newcomer.md).

This module and wfctl.cmdline.indexbuilder are the places that use typer's private API (`typer._coercion`,
parameters' `type_descriptor`), reached through wfctl.cmdline.typercompat; each use falls back to typer's own
behaviour when the attribute is missing.

Typer coerces every option value through a pydantic TypeAdapter (built even for an option left unset), so
any command imported pydantic (a start-up cost). `lighten()` gives options typed `str`, a str Enum, `int`
and `float` (with their min/max), `bool`, `Path`, `list[str]` and `list[int]` a plain coercion instead. A value the plain coercion is not sure
of (`--page x`, `--page 1_000`) goes to typer's own, so the accepted spellings do not change; a value
refused is one plain line in wfctl's words (`error: --page-size: 'abc' is not a whole number`, exit 2).
Options of other types keep typer's.
"""

from __future__ import annotations

import re
import sys
import types
import typing
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wfctl.cmdline.typercompat import Command, Context


def lighten(command: Command) -> None:
    """Give the str and Enum options of `command` a coercion that needs no pydantic."""
    from wfctl.cmdline.typercompat import RuntimeParam

    if RuntimeParam is None:  # another typer: nothing to lighten
        return
    for param in command.params:
        lighten_param(param, RuntimeParam)


def lighten_param(param: Any, runtime_param_class: type | None = None) -> None:
    """Plain coercion for one option: str, a str Enum, int, float, bool, Path or a list (see the module's doc)."""
    if runtime_param_class is None:
        from wfctl.cmdline.typercompat import RuntimeParam

        if RuntimeParam is None:
            return
        runtime_param_class = RuntimeParam
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", "absent") is not None:
        return
    annotation = unwrap_optional(descriptor.annotation)
    info = descriptor.parameter_info
    if getattr(info, "parser", None) is not None:
        return
    plain = (annotation in (str, bool, Path)
             or (annotation in (int, float) and not info.clamp)
             or annotation in (list[str], list[int])
             or (isinstance(annotation, type) and issubclass(annotation, Enum) and issubclass(annotation, str)))
    if plain:
        param._runtime_param = _plain_runtime_param(runtime_param_class)(
            parameter_info=descriptor.parameter_info, annotation=annotation)


def unwrap_optional(annotation: Any) -> Any:
    """`X | None` (or `Optional[X]`) as X; any other annotation as it is."""
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


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _plain_float(value: Any) -> float | None:
    """A float from a number or a plain decimal (`0.5`, `-3`, `1e3`, ASCII); None for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        return float(value)
    return None


def _loose_int(text: str) -> int | None:
    """An int from a signed run of ASCII digits (`-3`, ` +5 `), for the message of a value out of range."""
    text = text.strip().replace("_", "")
    digits = text[1:] if text[:1] in "+-" else text
    return int(text) if digits.isascii() and digits.isdigit() else None


def _value_error(param: Any, problem: str, ctx: Any) -> Exception:
    """A bad option value as one plain line, `error: --page-size: 'abc' is not a whole number` (exit 2),
    instead of click's usage block around pydantic's words."""
    from wfctl.cmdline.typercompat import BadParameter

    names = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    longs = [name for name in names if name.startswith("--")]
    name = (longs or names or [str(getattr(param, "name", "") or "value")])[0]

    class OptionValueError(BadParameter):
        one_line = True  # shown as this one line by wfctl.cmdline.main (no usage block)

        def format_message(self) -> str:
            return f"{name}: {problem}"

        def show(self, file: Any = None) -> None:
            (file or sys.stderr).write(f"error: {self.format_message()}\n")

    return OptionValueError(problem, ctx=ctx, param=param)


_plain_classes: dict[type, type] = {}


def _plain_runtime_param(base: type) -> type:
    """A typer RuntimeParam that coerces a str as itself and an Enum by value."""
    if base in _plain_classes:
        return _plain_classes[base]

    from dataclasses import dataclass

    from wfctl.cmdline.typercompat import BadParameter

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):
        def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
            annotation = self.annotation
            if annotation is str:
                return value
            if annotation is Path:  # a file's name, as pydantic gives it (click checks nothing more here)
                return value if isinstance(value, Path) else Path(value)
            if annotation is bool:
                if isinstance(value, bool):
                    return value
                try:
                    return self._typer_coercion(value, param, ctx)
                except BadParameter:
                    raise _value_error(param, f"{value!r} is not true or false", ctx) from None
            if annotation is int:
                return self._whole(value, param, ctx)
            if annotation is float:
                real = _plain_float(value)
                info = self.parameter_info
                if real is None:
                    try:  # typer's spellings (`1_000.5`, `inf`), its words replaced by ours
                        real = float(self._typer_coercion(value, param, ctx))
                    except BadParameter:
                        raise _value_error(param, f"{value!r} is not a number", ctx) from None
                if info.min is not None and real < info.min:
                    raise _value_error(param, f"{value} is too small (at least {info.min})", ctx)
                if info.max is not None and real > info.max:
                    raise _value_error(param, f"{value} is too large (at most {info.max})", ctx)
                return real
            if annotation == list[int]:  # a repeatable whole number (--accept-row 8 --accept-row 12)
                items = value if isinstance(value, list | tuple) else [value]
                return [self._whole(item, param, ctx) for item in items]
            if annotation == list[str]:
                if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                    return list(value)
                if getattr(param, "nargs", 1) > 1 and isinstance(value, list | tuple) and all(
                        isinstance(item, tuple) and all(isinstance(word, str) for word in item) for item in value):
                    return [tuple(item) for item in value]  # --arg NAME VALUE (output_options.pair_options)
                return self._typer_coercion(value, param, ctx)
            if isinstance(value, annotation):
                return value
            try:
                return annotation(value)
            except ValueError:
                choices = ", ".join(str(member.value) for member in annotation)
                raise _value_error(param, f"{value!r} is not one of {choices}", ctx) from None

        def _whole(self, value: Any, param: Any, ctx: Context) -> int:
            """A whole number within the option's min and max (typer's spellings taken, its words ours)."""
            number = _plain_int(value)
            info = self.parameter_info
            if number is None:
                try:  # typer's spellings (`1_000`, ` 5`), its words replaced by ours
                    number = self._typer_coercion(value, param, ctx, int)
                except BadParameter:
                    if not isinstance(value, str) or _loose_int(value) is None:
                        raise _value_error(param, f"{value!r} is not a whole number", ctx) from None
                    number = _loose_int(value) or 0
            if info.min is not None and number < info.min:
                raise _value_error(param, f"{number} is too small (at least {info.min})", ctx)
            if info.max is not None and number > info.max:
                raise _value_error(param, f"{number} is too large (at most {info.max})", ctx)
            return number

        def _typer_coercion(self, value: Any, param: Any, ctx: Context, annotation: Any = None) -> Any:
            """What typer would have done (pydantic): for values the plain path does not decide (`annotation`:
            one item's, for an item of a list)."""
            from wfctl.cmdline.typercompat import build_runtime_param, resolve_type_descriptor

            typer_param = build_runtime_param(resolve_type_descriptor(annotation or self.annotation,
                                                                      self.parameter_info))
            return typer_param._coerce_value(value, param=param, ctx=ctx)

    _plain_classes[base] = PlainRuntimeParam
    return PlainRuntimeParam
