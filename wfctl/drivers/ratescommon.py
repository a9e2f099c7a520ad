"""What `rates list`, `summary` and `set` share: the amounts as shown; the scope is every site command's
(wfctl.drivers.sitescope)."""

from __future__ import annotations

from typing import Any

from wfctl.drivers.sitescope import SCOPE_HINT, check_scope, read_scope
from wfctl.errors import CliError
from wfctl.render.output import is_machine

__all__ = ["SCOPE_HINT", "check_scope", "rate_error", "read_scope", "shown_amounts"]


def rate_error(exc: Exception) -> CliError:
    """A RateError as the CLI's one line, exit 2."""
    return CliError(str(exc))


def shown_amounts(rows: list[dict[str, Any]], fmt: str, names: tuple[str, ...], signed: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Rows for `fmt`: JSON keeps the numbers; a table and CSV show money with two decimals (13.50),
    a change with its sign (+0.36)."""
    if is_machine(fmt) or fmt == "yaml":  # the document's numbers
        return rows
    out = []
    for row in rows:
        row = dict(row)
        for name in names:
            value = row.get(name)
            if isinstance(value, int | float):
                row[name] = f"{value:+.2f}" if name in signed else f"{value:.2f}"
        out.append(row)
    return out
