"""--sort-by and --columns: the order and the columns of a list, with no query language.

A column is a field (`name`, `address`), a dotted path (`departments.0.name`) or one of the staffing
pseudo-columns, read from a site's full record:

- `rate:<skill>`: the site's hourly rate for the skill (skills compared as the service compares them:
  trimmed, any case), empty where it has none;
- `banned:count`: how many workers the site bans;
- `dept:<name>.<field>`: a field of the named department (`dept:Goods In.contactPerson`).

Sorting compares text in natural order as the service compares names (`Site 2` before `Site 10`; the
name key of `wfctl.api.records.recordrules.natural_key`: case, width and zero-width characters aside), numbers
as numbers; a missing value sorts last either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wfctl.clierror import CliError

#: Fields a pseudo-column reads, which list items lack (a site's list item carries no rates).
PSEUDO_FIELDS = {"rate": "rates", "banned": "bannedWorkers", "dept": "departments"}
#: A department's fields, as `dept:<name>.<field>` reads them (wfctl.api.records.models.Department, camelCase).
DEPT_FIELDS = ("name", "contactPerson", "email")
#: Fields that hold money (`rates list`'s hourlyRate; `rates summary`'s minimum, median and maximum).
MONEY_FIELDS = frozenset({"hourlyRate", "minimum", "median", "maximum"})
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class Column:
    header: str
    source: str

    @property
    def needs(self) -> str:
        """The record field this column reads."""
        kind, sep, _ = self.source.partition(":")
        if sep and kind in PSEUDO_FIELDS:
            return PSEUDO_FIELDS[kind]
        return self.source.split(".")[0]

    def value(self, record: Any) -> Any:
        return column_value(record, self.source)

    @property
    def money(self) -> bool:
        """Whether the column holds an hourly rate (shown with two decimals in a table and csv)."""
        return self.source.startswith("rate:") or self.source.split(".")[-1] in MONEY_FIELDS


def parse_columns(spec: str | None, option: str = "--columns") -> list[Column] | None:
    """`Site=name,Client=client,Forklift=rate:Forklift Driver` -> columns; a bare source is its own header."""
    if not spec:
        return None
    columns = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        header, sep, source = part.partition("=")
        if not sep:
            header, source = part, part
        header, source = header.strip(), source.strip()
        if not header or not source:
            raise CliError(f"{option} {part}: give HEADER=SOURCE or a field name, e.g. Site=name")
        columns.append(Column(header, _checked_source(source, option, part)))
    if not columns:
        raise CliError(f"{option}: no columns given")
    headers = [column.header for column in columns]
    repeated = sorted({h for h in headers if headers.count(h) > 1})
    if repeated:
        raise CliError(f"{option}: the header {repeated[0]} is given twice")
    return columns


def _checked_source(source: str, option: str, said: str) -> str:
    """`source` checked, a department's field spelled as the service spells it (`dept:Goods In.contactperson`:
    `contactPerson`; `contactPersn` is an error naming the nearest, exit 2; `said`: the option's words)."""
    from wfctl.files.csvformat import header_key, nearest_name

    kind, sep, rest = source.partition(":")
    if not sep:
        return source
    if kind == "rate" and rest.strip():
        return source
    if kind == "banned" and rest == "count":
        return source
    if kind == "dept" and "." in rest and rest.rsplit(".", 1)[0].strip() and rest.rsplit(".", 1)[1]:
        name, field = rest.rsplit(".", 1)
        spelled = next((known for known in DEPT_FIELDS if header_key(known) == header_key(field)), None)
        if spelled is None:
            near = nearest_name(field, DEPT_FIELDS)
            hint = f"did you mean {near}? " if near else ""
            raise CliError(f"{option} {said}: a department has no field {field}; {hint}its fields are "
                           f"{', '.join(DEPT_FIELDS)}")
        return f"dept:{name}.{spelled}"
    raise CliError(f"{option} {source}: unknown column; the pseudo-columns are rate:<skill>, banned:count and "
                   "dept:<name>.<field> (e.g. dept:Goods In.contactPerson)")


def check_named(named: list[tuple[str, str]], rows: list[Any]) -> None:
    """The skills of `rate:<skill>` and the departments of `dept:<name>.<field>` (`named`: each option's words as
    given, and its source) that no row has but one near it (`Forklift Drivr` beside `Forklift Driver`): an
    error naming the nearest, exit 2, as `--skill` is refused (a blank column, or a list left unsorted, said
    nothing). A name with nothing near it is a skill these sites do not have yet: its column is blank. Judged
    only on rows that carry the field (full site records) and when there are any."""
    from wfctl.api.records.recordrules import natural_key
    from wfctl.api.records.refs import nearest_name

    for said, source in named:
        kind, sep, rest = source.partition(":")
        if not sep or kind not in ("rate", "dept"):
            continue
        field = PSEUDO_FIELDS[kind]
        lists = [row[field] for row in rows if isinstance(row, dict) and isinstance(row.get(field), list)]
        if not lists:
            continue
        key = "skill" if kind == "rate" else "name"
        known = _spellings([str(item.get(key)) for items in lists for item in items
                            if isinstance(item, dict) and item.get(key)])
        wanted = rest if kind == "rate" else rest.rsplit(".", 1)[0]
        if natural_key(wanted) in {natural_key(name) for name in known}:
            continue
        what = "skill" if kind == "rate" else "department"
        near = nearest_name(wanted, known)
        if near is None:  # a skill these sites do not have yet, not a slip of one they have: a blank column
            continue
        listed = ", ".join(known[:20]) + (f", ... ({len(known)} in all)" if len(known) > 20 else "")
        raise CliError(f"{said}: no site shown has the {what} {wanted.strip()!r}; did you mean {near!r}? "
                       f"({what}s shown: {listed})")


def _spellings(names: list[str]) -> list[str]:
    """One name per name the service holds as the same (`Forklift Driver`, `forklift driver`): its most
    common spelling (of two as common, the first in code-point order: `Forklift Driver`), in the order they
    first appear."""
    from collections import Counter

    from wfctl.api.records.recordrules import natural_key

    counts = Counter(names)
    best: dict[str, str] = {}
    for name in names:
        key = natural_key(name)
        if key not in best or (counts[name], best[key]) > (counts[best[key]], name):
            best[key] = name
    return list(best.values())


def column_value(record: Any, source: str) -> Any:
    from wfctl.api.records.recordrules import natural_key

    if not isinstance(record, dict):
        return None
    kind, sep, rest = source.partition(":")
    if sep and kind == "rate":
        skill = natural_key(rest)
        for rate in record.get("rates") or []:
            if isinstance(rate, dict) and natural_key(rate.get("skill")) == skill:
                return rate.get("hourlyRate")
        return None
    if sep and kind == "banned":
        banned = record.get("bannedWorkers")
        return len(banned) if isinstance(banned, list) else None
    if sep and kind == "dept":
        name, field = rest.rsplit(".", 1)
        for dept in record.get("departments") or []:
            if isinstance(dept, dict) and natural_key(dept.get("name")) == natural_key(name):
                return dept.get(field)
        return None
    value: Any = record
    for part in source.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def shape_rows(rows: list[Any], columns: list[Column]) -> list[dict[str, Any]]:
    return [{column.header: column.value(row) for column in columns} for row in rows]


# -- sorting ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SortKey:
    source: str
    descending: bool


def parse_sort(spec: str | None, option: str = "--sort-by") -> list[SortKey] | None:
    """`name,-createdOn` -> keys; `-` before a field sorts it descending."""
    if not spec:
        return None
    keys = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        descending = part.startswith("-")
        source = part[1:].strip() if descending else part
        if not source:
            raise CliError(f"{option} {part}: give a field, e.g. name or -createdOn")
        keys.append(SortKey(_checked_source(source, option, part), descending))
    if not keys:
        raise CliError(f"{option}: no field given")
    return keys


def natural(text: str) -> tuple[Any, ...]:
    """A name's natural order key: its service key (wfctl.api.records.recordrules.natural_key), runs of digits
    compared as numbers (`site 2` < `site 10`)."""
    from wfctl.api.records.recordrules import natural_key

    parts = _DIGITS.split(natural_key(text))
    return tuple((0, int(part), part) if index % 2 else (1, 0, part) for index, part in enumerate(parts))


def _rank(value: Any) -> tuple[Any, ...]:
    """Numbers before text, text before true/false, then lists and objects; None is handled by the caller."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, natural(value))
    import json

    return (3, json.dumps(value, sort_keys=True))


def sort_rows(rows: list[Any], keys: list[SortKey]) -> list[Any]:
    """`rows` sorted by every key (the first decides first); stable, missing values last."""
    ordered = list(rows)
    for key in reversed(keys):
        present = [(row, column_value(row, key.source)) for row in ordered]
        have = [pair for pair in present if pair[1] is not None]
        missing = [row for row, value in present if value is None]
        have.sort(key=lambda pair: _rank(pair[1]), reverse=key.descending)
        ordered = [row for row, _ in have] + missing
    return ordered
