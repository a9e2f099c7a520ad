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


def apply(current: dict[str, Any], body: dict[str, Any], edits: dict[str, list[str]]) -> dict[str, Any]:
    """The new lists of the fields that `edits` ({option: values}) touch, from `current`'s lists."""
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
                    items = _put(field, items, _decode(field, value, csvformat))
                else:
                    kept = [i for i in items if _key(field, i) != _key(field, value.strip())]
                    if len(kept) == len(items):
                        raise CliError(f"{option} {value}: the site has no such {_noun(field)}")
                    items = kept
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


def _put(field: str, items: list[Any], new: Any) -> list[Any]:
    """`items` with `new` in the place of the item it names (a rate keeps its skill's spelling), or
    added at the end."""
    out, found = [], False
    for item in items:
        if _key(field, item) == _key(field, new):
            out.append({**item, "hourlyRate": new["hourlyRate"]} if field == "rates" else new)
            found = True
        else:
            out.append(item)
    return out if found else [*out, new]


def _key(field: str, item: Any) -> str:
    """What identifies a list item: a worker's id as it is, a skill's or department's name case-folded."""
    if field == "bannedWorkers":
        return str(item).strip()
    if isinstance(item, dict):
        return str(item.get("skill" if field == "rates" else "name", "")).strip().casefold()
    return str(item).strip().casefold()


def _noun(field: str) -> str:
    return {"bannedWorkers": "banned worker", "rates": "rate for that skill", "departments": "department"}[field]
