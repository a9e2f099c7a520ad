"""An option group declared once and attached to a command with one decorator.

Typer declares a command's options as its function's parameters. A group of options that several commands
share (the output options, an import's run options, a prune's limits) is declared here once, as a mapping of
parameter name -> (its `Annotated` typer option, its default), and put where the command's own parameter
of that group stands, so that `--help` lists the options in that place:

    @verb("import")
    @takes_import_run()     # option_group("run", {"dry_run": (DryRun, False), ...}, make an ImportRun)
    def import_sites(ctx: typer.Context, file: File, run: ImportRun = IMPORT_RUN) -> int: ...

The command then receives one value for the whole group (what `make` builds from the options' values and
the click context), not a parameter per option. The groups: `takes_output` (wfctl.commands.output_options),
`takes_import_run`, `takes_prune_limits` and `takes_diff_options` (wfctl.commands.bulkoptions).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def option_group(param: str, options: Mapping[str, tuple[Any, Any]],
                 make: Callable[[dict[str, Any], Any], Any]) -> Callable[[F], F]:
    """Put `options` (parameter name -> (annotation, default)) in place of the command's parameter `param`,
    which then receives `make(values, ctx)`: `values` by parameter name, `ctx` the click context (None when
    the command is called without one)."""

    def attach(function: F) -> F:
        signature = inspect.signature(function, eval_str=True)
        if param not in signature.parameters:
            raise TypeError(f"{function.__qualname__} has no `{param}` parameter for its option group")
        params: list[inspect.Parameter] = []
        for each in signature.parameters.values():
            if each.name != param:
                params.append(each)
                continue
            params += [inspect.Parameter(name, each.kind, annotation=annotation, default=default)
                       for name, (annotation, default) in options.items()]

        @functools.wraps(function)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name, default) for name, (_, default) in options.items()}
            ctx = kwargs.get("ctx", args[0] if args else None)
            if ctx is not None and not hasattr(ctx, "find_root"):  # not the click context typer hands over
                ctx = None
            return function(*args, **{param: make(values, ctx)}, **kwargs)

        command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {each.name: each.annotation for each in params}
        return command  # type: ignore[return-value]

    return attach
