"""A three-way merge of one record: what a person changed (`mine`) from the record they started from
(`base`), merged into the record as it is now (`theirs`), field by field and entry by entry.

    >>> m = three_way(("email", "rates"), {"email": "a@x.test", "rates": []},
    ...               {"email": "a@x.test", "rates": [{"skill": "Picker", "hourlyRate": 11}]},
    ...               {"email": "b@x.test", "rates": []})
    >>> m.merged, m.conflicts
    ({'email': 'b@x.test', 'rates': [{'skill': 'Picker', 'hourlyRate': 11}]}, [])

A list's entries are matched by what identifies them (`recordrules.entry_key`, compared as the service
compares names: a rate by its skill, a department by its name, a banned worker by its id), so a colleague's
new banned worker and my new rate both stay. A field (or an entry) that both changed, to different values,
is a `Conflict`; the merged record holds mine there, so a caller that overrides (`--force`) can send it.
Values are compared as the service sees them (`recordrules.comparable`: 13.5 == 13.50, missing == empty).
`wfctl sites edit` uses it; so can a script that read a record, let someone change it, and writes it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wfctl.api.records.recordrules import LIST_FIELDS, comparable, entry_key, natural_key

#: An entry a side does not hold.
ABSENT: Any = None


@dataclass(frozen=True)
class Conflict:
    """`field` (and, in a list, the entry `key`) changed on both sides, to different values. A value is
    ABSENT (None) for an entry a side removed or never had."""

    field: str
    key: str | None
    base: Any
    mine: Any
    theirs: Any


@dataclass
class Merge:
    """The merged record's `fields` (those given), their changes taken (`taken`: field -> (base, theirs),
    what the other writer changed and the merge kept) and the `conflicts` (the merged value is mine)."""

    merged: dict[str, Any]
    conflicts: list[Conflict] = field(default_factory=list)
    taken: dict[str, tuple[Any, Any]] = field(default_factory=dict)


def three_way(fields: tuple[str, ...] | list[str], base: dict[str, Any], mine: dict[str, Any],
              theirs: dict[str, Any]) -> Merge:
    """Merge `mine` (changed from `base`) into `theirs`, for each of `fields`."""
    result = Merge({})
    for name in fields:
        if name in LIST_FIELDS:
            value, conflicts, took = _merge_list(name, base.get(name), mine.get(name), theirs.get(name))
        else:
            value, conflict = _merge_value(name, base.get(name), mine.get(name), theirs.get(name))
            conflicts = [Conflict(name, None, base.get(name), mine.get(name), theirs.get(name))] if conflict else []
            took = _same(name, mine.get(name), base.get(name)) and not _same(name, base.get(name), theirs.get(name))
        if value is not None or name in mine or name in theirs:
            result.merged[name] = value
        result.conflicts.extend(conflicts)
        if took:
            result.taken[name] = (base.get(name), theirs.get(name))
    return result


def changed(fields: tuple[str, ...] | list[str], before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The fields of `fields` whose value differs between `before` and `after`, as the service sees them."""
    return [name for name in fields if not _same(name, before.get(name), after.get(name))]


def _merge_value(name: str, base: Any, mine: Any, theirs: Any) -> tuple[Any, bool]:
    """(the merged value, whether both changed it to different values: then it is mine)."""
    if _same(name, mine, base):
        return theirs, False
    if _same(name, theirs, base) or _same(name, mine, theirs):
        return mine, False
    return mine, True


def _merge_list(name: str, base: Any, mine: Any, theirs: Any) -> tuple[list[Any], list[Conflict], bool]:
    """The list merged entry by entry: mine's order, then the entries only the other writer added; the
    conflicts; whether any of their changes was taken."""
    before, own, other = _keyed(name, base), _keyed(name, mine), _keyed(name, theirs)
    out: list[Any] = []
    conflicts: list[Conflict] = []
    took = False
    keys = list(own) + [k for k in other if k not in own] + [k for k in before if k not in own and k not in other]
    for key in keys:
        b, m, t = before.get(key, ABSENT), own.get(key, ABSENT), other.get(key, ABSENT)
        value, conflict = _merge_value(name, [b] if b is not ABSENT else [], [m] if m is not ABSENT else [],
                                       [t] if t is not ABSENT else [])
        if conflict:
            conflicts.append(Conflict(name, entry_key(name, m if m is not ABSENT else (t if t is not ABSENT else b)),
                                      b, m, t))
        elif _same(name, [b] if b is not ABSENT else [], [m] if m is not ABSENT else []) and \
                not _same(name, [b] if b is not ABSENT else [], [t] if t is not ABSENT else []):
            took = True
        out.extend(value)
    return out, conflicts, took


def _keyed(name: str, items: Any) -> dict[str, Any]:
    """The entries of a list by the key the service matches them on (the first of two with one key)."""
    out: dict[str, Any] = {}
    for item in items or []:
        out.setdefault(natural_key(entry_key(name, item)), item)
    return out


def _same(name: str, a: Any, b: Any) -> bool:
    return bool(comparable(name, a) == comparable(name, b))
