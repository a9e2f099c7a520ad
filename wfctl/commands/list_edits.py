"""A site's list edits: add or remove one banned worker, rate or department, keeping the others.

`wfctl sites update --add-banned-worker W-2` bans W-2 and leaves W-1 banned (as gh's `--add-label`);
the replacing options (`--banned-worker`, `--rate`, `--department`) set the whole list instead.
"""

from __future__ import annotations

from typing import Any

from wfctl.errors import CliError

#: option -> (field, operation)
EDITS = {
    "--add-banned-worker": ("bannedWorkers", "add"),
    "--remove-banned-worker": ("bannedWorkers", "remove"),
    "--set-rate": ("rates", "add"),
    "--remove-rate": ("rates", "remove"),
    "--add-department": ("departments", "add"),
    "--remove-department": ("departments", "remove"),
}

_REPLACING = {"bannedWorkers": "--banned-worker", "rates": "--rate", "departments": "--department"}


def apply(current: dict[str, Any], body: dict[str, Any], edits: dict[str, list[str]], *,
          again: bool = False) -> dict[str, Any]:
    """The new lists of the fields that `edits` ({option: values}) touch, from `current`'s lists.
    `again`: the edits are made once more, to a newer state of the record (an update checked after
    its write): an entry to remove that is not there is then no error (the removal holds)."""
    from wfctl.bulk import csvformat

    result: dict[str, Any] = {}
    for option, values in edits.items():
        field, operation = EDITS[option]
        if field in body:
            raise CliError(f"{option} cannot be combined with {_REPLACING[field]} (which replaces the list)")
        items = list(result.get(field, current.get(field) or []))
        for value in values:
            try:
                if operation == "add":
                    items = _put(option, field, items, _decode(field, value, csvformat))
                else:
                    match = _matching(option, field, items, value.strip())
                    if match is None:
                        if again:
                            continue
                        raise CliError(f"{option} {value}: the site has no such {_noun(field)}")
                    items = [i for i in items if i is not match]
            except csvformat.CellError as exc:
                raise CliError(f"{option}: {exc}", title="invalid input", errors={field: [str(exc)]}) from None
        result[field] = items
    return result


def _decode(field: str, value: str, csvformat: Any) -> Any:
    if field == "bannedWorkers":
        worker = value.strip()
        if not worker:
            raise csvformat.CellError("a worker id must not be empty")
        return worker
    decode = csvformat.decode_rates if field == "rates" else csvformat.decode_departments
    items = decode(value)
    if len(items) != 1:
        raise csvformat.CellError(f"{value!r}: give one entry per option")
    return items[0]


def _put(option: str, field: str, items: list[Any], new: Any) -> list[Any]:
    """`items` with `new` in the place of the item it names (a rate keeps its skill's spelling), or
    added at the end."""
    match = _matching(option, field, items, _key(field, new))
    if match is None:
        return [*items, new]
    replacement = {**match, "hourlyRate": new["hourlyRate"]} if field == "rates" else new
    return [replacement if item is match else item for item in items]


def _matching(option: str, field: str, items: list[Any], wanted: str) -> Any:
    """The one entry of `items` that `wanted` names (skills and departments case-insensitively, as the
    service compares them), or None. Two entries that differ only in case are refused, never both
    changed: the user names which by replacing the list."""
    from wfctl.changes import text

    folded = wanted.casefold() if field != "bannedWorkers" else wanted
    matches = [i for i in items if (_key(field, i).casefold() if field != "bannedWorkers" else _key(field, i))
               == folded]
    if len(matches) > 1:
        shown = ", ".join(_entry_text(field, m) or text(m) for m in matches)
        raise CliError(f"{option} {wanted}: {len(matches)} {_noun(field, plural=True)} of the site match ({shown}); "
                       f"change them with {_REPLACING[field]}, which replaces the whole list",
                       title="ambiguous", errors={field: [f"{wanted!r} matches {len(matches)} entries"]})
    return matches[0] if matches else None


def _entry_text(field: str, item: Any) -> str:
    from wfctl.changes import _department_text, _rate_text

    if field == "rates" and isinstance(item, dict):
        return _rate_text(item)
    if field == "departments" and isinstance(item, dict):
        return _department_text(item)
    return str(item)


def _key(field: str, item: Any) -> str:
    """What names a list item, trimmed: a worker's id, a rate's skill, a department's name."""
    from wfctl.api.records import entry_key

    return entry_key(field, item)


def _noun(field: str, *, plural: bool = False) -> str:
    if plural:
        return {"bannedWorkers": "banned workers", "rates": "rates", "departments": "departments"}[field]
    return {"bannedWorkers": "banned worker", "rates": "rate for that skill", "departments": "department"}[field]
