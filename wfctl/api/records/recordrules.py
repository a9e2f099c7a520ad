"""What the service's records are made of, and the rules every entry point shares for writing them.

An update changes only the fields it names, on every deployment (G13): where a PUT clears what it
leaves out, its body is the current record's writable fields merged with the change (`update_body`;
wfctl.api.records.updates decides). A create whose answer was lost is recognised by its natural key (G12/G20) and
`same_record`. The CLI verbs, the bulk import, undo and SDK users all go through these.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from wfctl.api.records.resources import READ_ONLY, RESOURCES, Resource, list_fields

#: What the service takes for an e-mail address (G11): a non-empty one must match.
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

_T = TypeVar("_T")


class _ByKind(Mapping[str, _T]):
    """One fact of each kind's definition (wfctl.api.records.resources), read when asked: kind -> fact."""

    def __init__(self, fact: str) -> None:
        self._fact = fact

    def __getitem__(self, kind: str) -> _T:
        resource: Resource = RESOURCES[kind]
        return getattr(resource, self._fact)

    def __iter__(self) -> Iterator[str]:
        return iter(RESOURCES)

    def __len__(self) -> int:
        return len(RESOURCES)


# Aliases of the definitions' facts, for the modules and tests that import these names.
#: The fields an update body may carry, per kind (the service's PUT bodies).
WRITABLE: Mapping[str, tuple[str, ...]] = _ByKind("writable")
#: The field naming each kind's parent: part of a client's create body, never of an update body.
PARENT_FIELD: Mapping[str, str | None] = _ByKind("parent_field")
#: Fields holding a list, of any kind.
LIST_FIELDS = list_fields()


def writable_changes(kind: str, changes: dict[str, Any]) -> dict[str, Any]:
    """`changes` without the read-only fields and the parent (which an update cannot move)."""
    parent = PARENT_FIELD[kind]
    return {k: v for k, v in changes.items() if k not in READ_ONLY and k != parent}


def update_body(kind: str, current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The whole-record PUT body that changes exactly `changes`: every writable field of `current`, then
    the changes (what a deployment that clears what a PUT leaves out needs; `updates.put_body`)."""
    body = {name: current[name] for name in WRITABLE[kind] if current.get(name) is not None}
    body.update(writable_changes(kind, changes))
    return body


def natural_key(name: Any) -> str:
    """The service's uniqueness key of a name (G12): NFKC-normalised, format characters (zero-width
    spaces and joiners, BOM, soft hyphen: Unicode category Cf) removed, trimmed, lower-cased (simple
    lower-casing, not case folding: `Straße 1` and `STRASSE 1` are two names), NFKC again."""
    text = str(name or "")
    if text.isascii():  # the common case, and what most names are: no normalisation can change it
        return text.strip().lower()
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip().lower()
    return unicodedata.normalize("NFKC", text)


def entry_key(field: str, item: Any) -> str:
    """What identifies an entry of a list field: a rate by its skill, a department by its name (each
    trimmed, as the service stores them), a banned worker by its id."""
    if isinstance(item, dict):
        return str(item.get("skill" if field == "rates" else "name", "")).strip()
    return str(item).strip()


def list_diff(field: str, old: Any, new: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, tuple[Any, Any]]]:
    """(added, removed, changed) entries of a list field between `old` and `new`, keyed by `entry_key`:
    the entries an update of that list touched."""
    before = {entry_key(field, item): item for item in (old or [])}
    after = {entry_key(field, item): item for item in (new or [])}
    added = {k: v for k, v in after.items() if k not in before}
    removed = {k: v for k, v in before.items() if k not in after}
    changed = {k: (before[k], v) for k, v in after.items()
               if k in before and comparable(field, [before[k]]) != comparable(field, [v])}
    return added, removed, changed


def left_as_run_left(field: str, old: Any, new: Any, current: Any) -> bool:
    """Whether `current` still holds what an update of `field` from `old` to `new` left: for a list,
    only the entries the update touched (everyone else's later entries do not count); for any other
    field, the value."""
    if field not in LIST_FIELDS:
        return comparable(field, new) == comparable(field, current)
    added, removed, changed = list_diff(field, old, new)
    now = {entry_key(field, item): item for item in (current or [])}
    for key, item in [*added.items(), *((k, pair[1]) for k, pair in changed.items())]:
        if key not in now or comparable(field, [now[key]]) != comparable(field, [item]):
            return False
    return not any(key in now for key in removed)


def restore_list(field: str, old: Any, new: Any, current: Any) -> list[Any]:
    """`current`'s list with an update from `old` to `new` taken back: the entries it added removed,
    the ones it removed put back, the ones it changed given their old values; entries the update did
    not touch (someone else's since) are kept as they are."""
    added, removed, changed = list_diff(field, old, new)
    out = []
    for item in current or []:
        key = entry_key(field, item)
        if key in added:
            continue
        out.append(changed[key][0] if key in changed else item)
    present = {entry_key(field, item) for item in out}
    out.extend(item for key, item in removed.items() if key not in present)
    return out


def changed_since(left: dict[str, Any], current: dict[str, Any], kind: str) -> list[str]:
    """The fields of `current` that differ from the whole record a run `left` (a create's answer):
    every field the run saw, and every writable field (absent = empty)."""
    keys = [k for k in left if k != "id"]
    keys += [k for k in WRITABLE[kind] if k not in left]
    return [k for k in keys if comparable(k, left.get(k)) != comparable(k, current.get(k))]


def same_record(body: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether `record` (from the service) already holds every field of `body`."""
    return all(comparable(key, value) == comparable(key, record.get(key)) for key, value in body.items())


def changed_fields(current: dict[str, Any], body: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """{field: (old, new)} for each field of `body` whose value differs from `current`'s."""
    return {key: (current.get(key), value) for key, value in body.items()
            if comparable(key, value) != comparable(key, current.get(key))}


def restorable(key: str, value: Any) -> Any:
    """A value as an update body can carry it, and as a comparison sees it: nothing at all is the field's
    empty value, an empty list, `false` or an empty string (the service refuses null)."""
    if value is not None:
        return value
    if key in LIST_FIELDS:
        return []
    return False if key == "assessmentRequired" else ""


def comparable(key: str, value: Any) -> Any:
    """A value in a form where equal means equal to the service: missing == empty, 13.5 == 13.50."""
    from decimal import Decimal

    if value is None:
        return restorable(key, value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, list):
        return [comparable(key, v) for v in value]
    if isinstance(value, dict):
        return {k: comparable(k, v) for k, v in value.items() if v not in (None, "")}
    return value
