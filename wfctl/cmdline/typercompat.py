"""Every name wfctl takes from typer's (and its vendored click's) private modules, in one place.

Typer vendors click as `typer._click` and keeps its parameter coercion and completion scripts in private
modules; wfctl's fast help, fast completion, error boundary and `completion` command use a few of those
names. They are all reached through this module, so a typer release that moves one breaks one module,
and `tests/layers/test_typer_compat.py` names which (a feature check of every name below on the installed
typer), instead of a traceback in a user's shell. The dependency pins an upper bound the test suite has
proved (pyproject.toml).

Names resolve on first use (module `__getattr__`), so importing this module costs nothing: `wfctl
--version` must not load click. Each name has a fallback where one exists: the public `click` package
(for a typer that depends on click instead of vendoring it), or `None` where the caller has a plain way
without it (see `RuntimeParam`, `build_runtime_param`).

    from wfctl.cmdline.typercompat import Context, UsageError      # inside the function that needs them
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for the type checker; at run time `__getattr__` finds them
    from typer._click import Command, Context, HelpFormatter
    from typer._click import exceptions as click_exceptions
    from typer._click.exceptions import BadParameter, UsageError
    from typer._click.utils import PacifyFlushWrapper
    from typer._coercion import RuntimeParam, build_runtime_param, resolve_type_descriptor
    from typer._completion_shared import get_completion_script
    from typer._param_types import choice_as_str

__all__ = ["NAMES", "BadParameter", "Command", "Context", "HelpFormatter", "PacifyFlushWrapper", "RuntimeParam",
           "UsageError", "build_runtime_param", "choice_as_str", "click_exceptions", "current_click_context",
           "get_completion_script", "init_completion", "resolve", "resolve_type_descriptor"]

#: name -> (typer's private module, attribute, the public click module to fall back on, or None)
NAMES: dict[str, tuple[str, str, str | None]] = {
    "Command": ("typer._click", "Command", "click"),
    "Context": ("typer._click", "Context", "click"),
    "HelpFormatter": ("typer._click", "HelpFormatter", "click"),
    "click_exceptions": ("typer._click.exceptions", "", "click.exceptions"),  # "": the module itself
    "BadParameter": ("typer._click.exceptions", "BadParameter", "click.exceptions"),
    "UsageError": ("typer._click.exceptions", "UsageError", "click.exceptions"),
    "PacifyFlushWrapper": ("typer._click.utils", "PacifyFlushWrapper", "click.utils"),
    "choice_as_str": ("typer._param_types", "choice_as_str", None),
    "RuntimeParam": ("typer._coercion", "RuntimeParam", None),
    "build_runtime_param": ("typer._coercion", "build_runtime_param", None),
    "resolve_type_descriptor": ("typer._coercion", "resolve_type_descriptor", None),
    "get_completion_script": ("typer._completion_shared", "get_completion_script", None),
    "completion_classes": ("typer._completion_classes", "", None),
    "shell_completion": ("typer._click.shell_completion", "", "click.shell_completion"),
}

#: The module holding click's current-context stack, vendored or not.
CLICK_GLOBALS_MODULES = ("typer._click.globals", "click.globals")


def __getattr__(name: str) -> Any:
    if name not in NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = resolve(name)
    globals()[name] = value  # resolved once
    return value


def resolve(name: str) -> Any:
    """The object `name` stands for on the installed typer, or its fallback (None when it has none)."""
    module, attribute, fallback = NAMES[name]
    for candidate in (module, fallback):
        if not candidate:
            continue
        try:
            found = importlib.import_module(candidate)
        except ImportError:
            continue
        if not attribute:
            return found
        if hasattr(found, attribute):
            return getattr(found, attribute)
    return None


def current_click_context() -> Any:
    """The running click context, or None (outside a command, or click not loaded yet: nothing to ask)."""
    for module_name in CLICK_GLOBALS_MODULES:
        module = sys.modules.get(module_name)
        if module is not None:
            return module.get_current_context(silent=True)
    return None


def init_completion() -> None:
    """Make typer's completion protocol answer, keeping help texts as they are.

    typer strips rich markup from help texts in zsh/fish candidates by importing rich (a delay on every TAB,
    twice per TAB in fish; bench/startup.py times a Tab press); wfctl's help has no markup
    (rich_markup_mode=None), so the stripping is replaced by the identity."""
    classes = resolve("completion_classes")
    classes.completion_init()
    classes._sanitize_help_text = lambda text: text
    shell = resolve("shell_completion")
    if not getattr(shell._resolve_incomplete, "value_first", False):  # once a process
        shell._resolve_incomplete = _value_first(shell)


def _value_first(shell: Any) -> Any:
    """click's `_resolve_incomplete`, reading a word after an option that waits for its value as that value
    even when it begins with `-` (`--sort-by -na<TAB>`: descending), as click's parser reads it; click's
    completion offered option names there, which the parse would then take as the value. The same rule as
    wfctl.cmdline.completeanswer's, so both answers agree (tests/newcomer/test_fast_path.py)."""
    resolve_incomplete = shell._resolve_incomplete

    def resolve_value_first(ctx: Any, args: list[str], incomplete: str) -> Any:
        if incomplete.startswith("-") and "=" not in incomplete and "--" not in args:
            for param in ctx.command.get_params(ctx):
                if shell._is_incomplete_option(ctx, args, param):
                    return param, incomplete
        return resolve_incomplete(ctx, args, incomplete)

    resolve_value_first.value_first = True  # type: ignore[attr-defined]
    return resolve_value_first
