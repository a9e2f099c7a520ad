"""What the service's records are made of, and the rules every entry point shares for writing them.

An update changes only the fields it names, on every deployment (G13: some clear what a PUT leaves
out), so every update body is the current record's writable fields merged with the change
(`update_body`). A create whose answer was lost is recognised by its natural key (G12/G20) and
`same_record`. The CLI verbs, the bulk import, undo and SDK users all go through these.
"""

from __future__ import annotations

import re
from typing import Any

#: What the service takes for an e-mail address (G11): a non-empty one must match.
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

#: The fields an update body may carry, per kind (the service's PUT bodies).
WRITABLE: dict[str, tuple[str, ...]] = {
    "branch": ("name", "address", "phone", "email"),
    "client": ("name", "email", "phone", "billingAddress"),
    "site": ("name", "address", "phone", "email", "assessmentRequired", "departments", "rates",
             "bannedWorkers"),
}

#: Fields the service returns but never accepts in a body: a record from `get_*` can be passed back.
READ_ONLY = frozenset({"id", "createdOn", "updatedOn", "modifiedOn", "documents"})

#: The field naming each kind's parent: part of a client's create body, never of an update body.
PARENT_FIELD: dict[str, str | None] = {"branch": None, "client": "branchId", "site": "clientId"}

LIST_FIELDS = frozenset({"rates", "departments", "bannedWorkers"})


def writable_changes(kind: str, changes: dict[str, Any]) -> dict[str, Any]:
    """`changes` without the read-only fields and the parent (which an update cannot move)."""
    parent = PARENT_FIELD[kind]
    return {k: v for k, v in changes.items() if k not in READ_ONLY and k != parent}


def update_body(kind: str, current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The PUT body that changes exactly `changes`: every writable field of `current`, then the changes."""
    body = {name: current[name] for name in WRITABLE[kind] if current.get(name) is not None}
    body.update(writable_changes(kind, changes))
    return body


def natural_key(name: Any) -> str:
    """The service's uniqueness key of a name (G12): trimmed and case-folded, inner spaces kept."""
    return str(name or "").strip().casefold()


def same_record(body: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether `record` (from the service) already holds every field of `body`."""
    return all(comparable(key, value) == comparable(key, record.get(key)) for key, value in body.items())


def changed_fields(current: dict[str, Any], body: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """{field: (old, new)} for each field of `body` whose value differs from `current`'s."""
    return {key: (current.get(key), value) for key, value in body.items()
            if comparable(key, value) != comparable(key, current.get(key))}


def comparable(key: str, value: Any) -> Any:
    """A value in a form where equal means equal to the service: missing == empty, 13.5 == 13.50."""
    from decimal import Decimal

    if value is None:
        if key in LIST_FIELDS:
            return []
        return False if key == "assessmentRequired" else ""
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
