"""Changes to a record, said for a person: what an update's `--dry-run`, the import plan and the
import report show.

    >>> lines("site", {"bannedWorkers": (["W-1"], ["W-2"]), "email": ("a@x.test", "")})
    ['- banned worker W-1', '+ banned worker W-2', 'email: a@x.test -> (empty)']

`changes` is {field: (old, new)} as `wfctl.api.records.recordrules.changed_fields` gives it. Lists are compared
item by item (a rate by its skill, a department by its name, a banned worker by its id), so a diff
names what is added, removed or changed, never the whole list again.
"""

from __future__ import annotations

import re
from typing import Any

EMPTY = "(empty)"


def lines(kind: str, changes: dict[str, tuple[Any, Any]]) -> list[str]:
    """One line per changed scalar, per added/removed/changed list item."""
    del kind  # the field name decides; kept so callers say what they describe
    out: list[str] = []
    for name, (old, new) in changes.items():
        if name == "rates":
            out.extend(_list_lines("rate", old, new, lambda r: str(r.get("skill", "")).strip(),
                                   _rate_text, lambda r: _number(r.get("hourlyRate"))))
        elif name == "departments":
            out.extend(_list_lines("department", old, new, lambda d: str(d.get("name", "")).strip(),
                                   _department_text, _department_rest))
        elif name == "bannedWorkers":
            out.extend(_list_lines("banned worker", old, new, str, str, None))
        else:
            before, after = texts(old, new)
            out.append(f"{name}: {before} -> {after}")
    return out


def texts(old: Any, new: Any) -> tuple[str, str]:
    """A change's two values as `text` shows them; where only line breaks or tabs differ (LF, CRLF), with
    them written out (`_breaks_shown`), so that one line never shows `X -> X`."""
    before, after = text(old), text(new)
    if before != after and _flat(before) == _flat(after):
        return _breaks_shown(before), _breaks_shown(after)
    return before, after


_LAYOUT = re.compile("\r\n|[\t\n\r\u2028\u2029]")
_BREAKS = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _flat(value: str) -> str:
    """`value` as one line shows it: each line break or tab a space."""
    return _LAYOUT.sub(" ", value)


def _breaks_shown(value: str) -> str:
    """`value` with its line breaks and tabs written as `\\r\\n`, `\\n`, `\\t`: a change of LF to CRLF in a
    cell, which one line would show as `X -> X`, shows as `Line one\\nLine two -> Line one\\r\\nLine two`."""
    return re.sub("[\r\n\t\u2028\u2029]", lambda m: _BREAKS[m.group()], value)


def compact(kind: str, changes: dict[str, tuple[Any, Any]]) -> str:
    """The lines on one line, for a CSV cell: `email: a@x.test -> (empty); + rate Picker=11.50`."""
    return "; ".join(lines(kind, changes))


def as_json(changes: dict[str, tuple[Any, Any]]) -> dict[str, dict[str, Any]]:
    """{"field": {"old": ..., "new": ...}}: the plan's and `imports show`'s JSON shape."""
    return {name: {"old": old, "new": new} for name, (old, new) in changes.items()}


def text(value: Any) -> str:
    """A value as a person reads it in a diff; nothing at all is `(empty)`."""
    if value is None or value == "" or value == []:
        return EMPTY
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "|".join(text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={text(v)}" for k, v in value.items())
    return str(value)


def field_text(name: str, value: Any) -> str:
    """A field's value as the file writes it: rates `Forklift Driver=12.99|Picker=11.60`, departments
    `Goods In:Ann Lee:ann@example.com`, anything else as `text` (a created row's plan: it showed
    `skill=Forklift Driver, hourlyRate=12.99` and `11.6`)."""
    if name == "rates" and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "|".join(_rate_text(rate) for rate in value)
    if name == "departments" and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "|".join(_department_text(department) for department in value)
    return text(value)


def _list_lines(label: str, old: Any, new: Any, key: Any, whole: Any, rest: Any) -> list[str]:
    before = {key(item): item for item in (old or [])}
    after = {key(item): item for item in (new or [])}
    out = [f"- {label} {whole(item)}" for k, item in before.items() if k not in after]
    for k, item in after.items():
        if k not in before:
            out.append(f"+ {label} {whole(item)}")
        elif rest is not None and rest(before[k]) != rest(item):
            name = item.get("skill") or item.get("name")
            out.append(f"{label} {name}: {rest(before[k])} -> {rest(item)}")
    return out


def _number(value: Any) -> str:
    from decimal import Decimal, InvalidOperation

    try:
        return f"{Decimal(str(value)):.2f}"
    except (InvalidOperation, ValueError):
        return str(value)


def _rate_text(rate: dict[str, Any]) -> str:
    return f"{rate.get('skill', '')}={_number(rate.get('hourlyRate'))}"


def _department_rest(department: dict[str, Any]) -> str:
    return ":".join(str(department.get(k) or "") for k in ("contactPerson", "email")).rstrip(":") or EMPTY


def _department_text(department: dict[str, Any]) -> str:
    rest = _department_rest(department)
    return str(department.get("name", "")) + ("" if rest == EMPTY else ":" + rest)
