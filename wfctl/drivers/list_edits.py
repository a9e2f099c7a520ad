"""A site's list edits: add or remove one banned worker, rate or department, keeping the others.

`wfctl sites update --add-banned-worker W-2` bans W-2 and leaves W-1 banned (as gh's `--add-label`);
the replacing options (`--banned-worker`, `--rate`, `--department`) set the whole list instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from wfctl.errors import CliError
from wfctl.render.streams import IO

#: option -> (field, operation)
EDITS = {
    "--add-banned-worker": ("bannedWorkers", "add"),
    "--remove-banned-worker": ("bannedWorkers", "remove"),
    "--set-rate": ("rates", "add"),
    "--add-rate": ("rates", "new"),
    "--remove-rate": ("rates", "remove"),
    "--add-department": ("departments", "add"),
    "--remove-department": ("departments", "remove"),
}

_REPLACING = {"bannedWorkers": "--banned-worker", "rates": "--rate", "departments": "--department"}


def apply(current: dict[str, Any], body: dict[str, Any], edits: dict[str, list[str]], *,
          again: bool = False, note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The new lists of the fields that `edits` ({option: values}) touch, from `current`'s lists.
    `again`: the edits are made once more, to a newer state of the record (an update checked after
    its write): an entry to remove that is not there is then no error (the removal holds).

    An edit that adds an entry rather than changing one is told to `note` (default: a `note:` line on stderr),
    with the entries the site has; not when made `again` (it was told the first time). A rate whose skill is
    near one the site has (`--set-rate forklift=14` beside `Forklift Driver`) is refused instead, exit 2: it
    would charge a second rate for one skill; `--add-rate` adds a skill on purpose (and refuses one the site
    has)."""
    from wfctl.files import csvformat

    tell = note or say

    result: dict[str, Any] = {}
    for option, values in edits.items():
        field, operation = EDITS[option]
        if field in body:
            raise CliError(f"{option} cannot be combined with {_REPLACING[field]} (which replaces the list)")
        items = list(result.get(field, current.get(field) or []))
        for value in values:
            try:
                if operation == "new":
                    new = _decode(field, value, csvformat)
                    held = _matching(option, field, items, _key(field, new))
                    if held is not None and not again:
                        raise CliError(f"{option} {value}: the site has {_entry_text(field, held)} already; "
                                       f"--set-rate changes it", title="invalid input",
                                       errors={field: [f"{_key(field, new)!r} is on the site"]})
                    items = _put(option, field, items, new)
                elif operation == "add":
                    new = _decode(field, value, csvformat)
                    if field != "bannedWorkers" and not again and items \
                            and _matching(option, field, items, _key(field, new)) is None:
                        near = _nearest(field, items, _key(field, new)) if field == "rates" else None
                        if near is not None:  # a second rate for one skill, by a slip: refused (issue 49)
                            raise CliError(_near_rate(option, value, items, near, _key(field, new)),
                                           title="invalid input",
                                           errors={field: [f"{_key(field, new)!r} is near {_key(field, near)!r}"]})
                        tell(_adds(option, value, field, items, _key(field, new)))
                    items = _put(option, field, items, new)
                else:
                    match = _matching(option, field, items, value.strip())
                    if match is None:
                        if again:
                            continue
                        raise CliError(_missing(option, value, field, items),
                                       title=f"no such {_noun(field)}",
                                       errors={field: [f"{value.strip()!r} is not on the site"]})
                    items = [i for i in items if i is not match]
            except csvformat.CellError as exc:
                raise CliError(f"{option}: {exc}", title="invalid input", errors={field: [str(exc)]}) from None
        result[field] = items
    return result


def validated(kind: str, record: dict[str, Any], lists: dict[str, Any], edits: dict[str, list[str]]) -> dict[str, Any]:
    """The edited `lists` of `record` as the service's rules (G11) check them; a problem of the edit's
    own entries names its option (exit 2). A list whose stored entries already break today's rules (a
    worker banned twice, a rate with three decimals) is sent as it is: the service judges what it holds
    (the CLI never refuses what it would accept), and its refusal names the stored value
    (`wfctl.api.records.updates.stored_refusal`), not an option the user never gave."""
    from pydantic import ValidationError

    from wfctl.api.records.models import WRITE_MODELS, field_errors

    model = WRITE_MODELS[(kind, "update")]
    out: dict[str, Any] = {}
    for field, items in lists.items():
        try:
            out.update(model.model_validate({field: items}).body())
            continue
        except ValidationError as exc:
            errors = field_errors(exc)
        try:
            model.model_validate({field: record.get(field) or []})
        except ValidationError:
            out[field] = items  # the stored list breaks the rules already: the service says whether it takes it
            continue
        options = "/".join(option for option in edits if EDITS[option][0] == field)
        raise CliError("; ".join(f"{options}: {location}: {'; '.join(messages)}" for location, messages in errors.items()),
                       title="invalid input", errors=errors)
    return out


def dropped(current: dict[str, Any], body: dict[str, Any]) -> list[str]:
    """What a replacing option (`--rate`, `--department`, `--banned-worker`) drops from the site's list, one
    line a field: `--rate sets the whole list: Forklift Driver 13.25 and Picker Packer 11.00 are dropped
    (--set-rate changes one rate and keeps the others)`. Nothing for a field no entry of which goes."""
    from wfctl.api.records.recordrules import list_diff

    twins = {"rates": "--set-rate changes one rate", "departments": "--add-department changes one department",
             "bannedWorkers": "--add-banned-worker and --remove-banned-worker change one ban"}
    out = []
    for field, option in _REPLACING.items():
        if field not in body:
            continue
        _, removed, _ = list_diff(field, current.get(field), body[field])
        if removed:
            items = list(removed.values())
            shown = _listed(field, items) if field == "bannedWorkers" else ", ".join(
                _entry_text(field, item) for item in items[:10]) + (f" and {len(items) - 10} more" if len(items) > 10
                                                                      else "")
            verb = "is" if len(items) == 1 else "are"
            out.append(f"{option} sets the whole list: {shown} {verb} dropped ({twins[field]} and keeps the others)")
    return out


def say(text: str, io: IO | None = None) -> None:
    """`note: TEXT` on stderr (`io`'s, else the process's): what a list edit or a replacing option does that
    the user may not expect."""
    from wfctl.text.safetext import plain

    stderr = io.stderr if io is not None else sys.stderr
    stderr.write(f"note: {plain(text)}\n")
    stderr.flush()


def _adds(option: str, value: str, field: str, items: list[Any], wanted: str) -> str:
    """`--set-rate forklift=14 adds the skill 'forklift'; the nearest the site has: Forklift Driver 13.25 ...`"""
    what = {"rates": "skill", "departments": "department"}[field]
    near = _nearest(field, items, wanted)
    text = f"{option} {value} adds the {what} {wanted!r} to the site"
    if near is None:
        return f"{text} (its {_noun(field, plural=True)}: {_listed(field, items)})"
    key = _key(field, near)
    way = f'{option} "{key}={value.partition("=")[2]}"' if field == "rates" else f"{_REPLACING[field]} (the whole list)"
    return f"{text}; it has {_entry_text(field, near)}: to change that one, give {way}"


def _near_rate(option: str, value: str, items: list[Any], near: Any, wanted: str) -> str:
    """`--set-rate forklift=14: the site has no skill 'forklift'; did you mean Forklift Driver=13.25? ...`"""
    amount = value.partition("=")[2]
    return (f"{option} {value}: the site has no skill {wanted!r}; did you mean {_entry_text('rates', near)}? "
            f'to change it, give {option} "{_key("rates", near)}={amount}"; to add {wanted!r} as a skill of its '
            f'own, --add-rate "{wanted}={amount}"')


def _missing(option: str, value: str, field: str, items: list[Any]) -> str:
    """`--remove-rate picker: the site has no rate for skill 'picker'; did you mean Picker Packer? ...`"""
    wanted = value.strip()
    what = {"rates": "rate for the skill", "departments": "department", "bannedWorkers": "banned worker"}[field]
    if not items:
        return f"{option} {value}: the site has no {what} {wanted!r}: it has no {_noun(field, plural=True)}"
    near = _nearest(field, items, wanted) if field != "bannedWorkers" else None  # W-1 is not what W-9 meant
    hint = f"did you mean {_key(field, near)}? " if near is not None else ""
    return (f"{option} {value}: the site has no {what} {wanted!r}; {hint}"
            f"its {_noun(field, plural=True)}: {_listed(field, items)}")


def _nearest(field: str, items: list[Any], wanted: str) -> Any:
    """The entry of `items` most like `wanted`: one it begins or contains (as a word), else the closest
    spelling; None when none is near."""
    import difflib

    folded = wanted.casefold()
    keys = [_key(field, item).casefold() for item in items]
    for index, key in enumerate(keys):
        if key.startswith(folded) or f" {folded}" in f" {key}" or folded.startswith(key):
            return items[index]
    close = difflib.get_close_matches(folded, keys, n=1, cutoff=0.6)
    return items[keys.index(close[0])] if close else None


def _listed(field: str, items: list[Any], limit: int = 10) -> str:
    names = [_key(field, item) for item in items]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


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
    from wfctl.text.changes import text

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
    from wfctl.text.changes import _department_text, _rate_text

    if field == "rates" and isinstance(item, dict):
        return _rate_text(item)
    if field == "departments" and isinstance(item, dict):
        return _department_text(item)
    return str(item)


def _key(field: str, item: Any) -> str:
    """What names a list item, trimmed: a worker's id, a rate's skill, a department's name."""
    from wfctl.api.records.recordrules import entry_key

    return entry_key(field, item)


def _noun(field: str, *, plural: bool = False) -> str:
    if plural:
        return {"bannedWorkers": "banned workers", "rates": "rates", "departments": "departments"}[field]
    return {"bannedWorkers": "banned worker", "rates": "rate for that skill", "departments": "department"}[field]
