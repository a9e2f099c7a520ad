"""How a command group's verbs reach its typer app without importing it back.

A verb module marks its function with `@verb("name")`; the group's `__init__` imports its verb modules and
calls `register(app, module, ...)`. Imports then point one way (group -> verbs), with no `noqa` side-effect
import and no cycle (tests/layers/test_import_cycles.py). Light: imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_MARK = "__wfctl_verb__"


def verb(name: str, **options: Any) -> Callable[[F], F]:
    """Mark a function as the verb `name` of its group (`options` go to typer's `app.command`)."""

    def mark(function: F) -> F:
        setattr(function, _MARK, (name, options))
        return function

    return mark


def register(app: Any, *modules: ModuleType) -> None:
    """Add the marked functions of `modules` to `app`, in the order given (module by module, then as defined):
    the order `--help` lists them in."""
    for module in modules:
        for function in list(vars(module).values()):
            mark = getattr(function, _MARK, None)
            if mark is not None and getattr(function, "__module__", None) == module.__name__:
                app.command(mark[0], **mark[1])(function)
