"""A fast path for the common row: the body the write model would give, without pydantic.

Validating a CSV row with the pydantic write models is costly per row; an import checks every row
before it sends anything, so a large file waited long for that alone (bench/import.py validation).
`create_body` accepts only rows it can judge with certainty to be valid under exactly the models' rules
(wfctl.api.records.models: the same trimming, lengths, e-mail pattern and uniqueness; rates that are plainly
within the rate rule) and returns
the same body `model_validate(data).body()` returns, keys in the same order; anything else
(an invalid value, an unusual type, an unknown field) returns None, and the caller asks the models,
which also word the problems. tests/bulk/test_fastcheck.py holds the two paths to the same answers.

`RowCheck` does the same for a CSV row's cells, by column position, giving what `decode_cell` and then
`create_body` give (and, for a plan, each field's value as JSON text). A file repeats its list cells (the
same rates and departments on every site of a client): each distinct one is decoded and checked once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from json.encoder import encode_basestring as _json_string
from typing import Any

from wfctl.api.records.recordrules import EMAIL as _EMAIL
from wfctl.api.records.resources import RESOURCES, Resource
from wfctl.files import csvformat

_TEXT = 200
_ADDRESS = 500
_NAME, _SHORT, _LONG, _MAIL, _BOOL, _RATES, _DEPARTMENTS, _WORKERS, _ID = range(9)
# The check of each field the fast path knows, by name (the same rule in every kind's model). A field of a
# definition (wfctl.api.records.resources) not named here is left to the models: a row that sets it defers.
_CHECK_OF = {"name": _NAME, "address": _LONG, "billingAddress": _LONG, "phone": _SHORT, "email": _MAIL,
             "assessmentRequired": _BOOL, "departments": _DEPARTMENTS, "rates": _RATES,
             "bannedWorkers": _WORKERS, "branchId": _ID, "clientId": _ID}
_BY_RESOURCE: dict[str, tuple[Resource, tuple[tuple[str, int], ...], tuple[str, ...]]] = {}


def _fields_of(kind: str) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    """(fields of `kind`'s create body in the models' order with their check, the required ones), from
    its definition (read again when the definition changes)."""
    resource = RESOURCES[kind]
    known = _BY_RESOURCE.get(kind)
    if known is None or known[0] is not resource:
        fields = tuple((name, _CHECK_OF[name]) for name in resource.body_fields if name in _CHECK_OF)
        required = ("name", resource.parent_field) if resource.parent_in_body and resource.parent_field else ("name",)
        known = _BY_RESOURCE[kind] = (resource, fields, required)
    return known[1], known[2]


# Characters str.strip() removes and pydantic's trimming (Unicode White_Space) keeps.
_PYTHON_ONLY_SPACE = frozenset("\x1c\x1d\x1e\x1f")


class _Unsure(Exception):
    pass


def create_body(kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """The create body of `data` (the service's camelCase names) when it is certainly valid, else None."""
    fields, required = _fields_of(kind)
    if len(data) > len(fields) or any(name not in data for name in required):
        return None
    body: dict[str, Any] = {}
    try:
        for name, check in fields:
            if name in data:
                body[name] = _CHECKS[check](data[name])
    except _Unsure:
        return None
    return body if len(body) == len(data) else None  # a key no field has: unknown


def _text(value: Any, low: int, high: int) -> str:
    if type(value) is not str:
        raise _Unsure
    stripped = value.strip()
    # str.strip also removes \x1c-\x1f, which the model keeps, also behind a space ("a\x1c "): defer
    if len(stripped) != len(value) and not _PYTHON_ONLY_SPACE.isdisjoint(value):
        raise _Unsure
    value = stripped
    if not low <= len(value) <= high:
        raise _Unsure
    return value


def _name(value: Any) -> str:
    return _text(value, 1, _TEXT)


def _short(value: Any) -> str:
    return _text(value, 0, _TEXT)


def _long(value: Any) -> str:
    return _text(value, 0, _ADDRESS)


def _mail(value: Any) -> str:
    value = _text(value, 0, _TEXT)
    if value and not _EMAIL.match(value):
        raise _Unsure
    return value


def _id(value: Any) -> str:
    return _text(value, 1, 1 << 30)


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise _Unsure
    return value


def _rates(value: Any) -> list[dict[str, Any]]:
    if type(value) is not list:
        raise _Unsure
    out, skills = [], set()
    for item in value:
        if type(item) is not dict or len(item) != 2 or "skill" not in item or "hourlyRate" not in item:
            raise _Unsure
        skill = _name(item["skill"])
        rate = item["hourlyRate"]
        if skill in skills or not _plain_rate(rate):
            raise _Unsure
        skills.add(skill)
        out.append({"skill": skill, "hourlyRate": rate})
    return out


def _plain_rate(rate: Any) -> bool:
    """Whether `_hourly_rate` would accept `rate` and return it unchanged, judged without Decimal: a
    whole number, or a float whose shortest form has at most 2 decimals, from 0 to below 10^15."""
    if type(rate) is int:
        return 0 <= rate < 10**15
    if type(rate) is not float or not 0 <= rate < 1e15:
        return False
    text = repr(rate)
    return "e" not in text and len(text) - text.index(".") <= 3


def _departments(value: Any) -> list[dict[str, Any]]:
    if type(value) is not list:
        raise _Unsure
    out = []
    for item in value:
        if type(item) is not dict or "name" not in item or len(item) > 3:
            raise _Unsure
        department = {"name": _name(item["name"])}
        if "contactPerson" in item:
            department["contactPerson"] = _short(item["contactPerson"])
        if "email" in item:
            department["email"] = _mail(item["email"])
        if len(department) != len(item):
            raise _Unsure
        out.append(department)
    return out


def _workers(value: Any) -> list[str]:
    if type(value) is not list:
        raise _Unsure
    out = [_name(item) for item in value]
    if len(set(out)) != len(out):
        raise _Unsure
    return out


_CHECKS = (_name, _short, _long, _mail, _bool, _rates, _departments, _workers, _id)


#: The distinct list and boolean cells each column remembers (their checked value and its JSON text).
MEMO_CELLS = 1024
_json = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode  # as the plan writes values
_BOOL_TEXT = {True: "true", False: "false"}
_OMITTED = object()  # an empty boolean cell: the field is left out
# How RowCheck takes a cell: text (with its length bounds), text that is an e-mail address, a cell it
# remembers (booleans, rates, departments), banned workers, the parent id (not a cell).
_TEXT_CELL, _MAIL_CELL, _MEMO_CELL, _WORKERS_CELL, _PARENT = range(5)
_BOUNDS = {_NAME: (1, _TEXT), _SHORT: (0, _TEXT), _LONG: (0, _ADDRESS), _MAIL: (0, _TEXT)}


class RowCheck:
    """The fast check of one file's rows: `check(cells, parent_id)` is the body `create_body` gives for the
    row's decoded cells (with `parent_id` in it where the kind's body holds its parent), or None when it
    defers; `values_json` (when asked for) is then each body value's JSON text, in the body's order, but
    the parent's."""

    def __init__(self, kind: str, header: list[str], skip: Collection[str | None], parent_column: str | None, *,
                 with_json: bool = False) -> None:
        self.with_json = with_json
        self.values_json: list[str] = []
        position = {column: i for i, column in enumerate(header) if column not in skip}
        body_fields, required = _fields_of(kind)
        fields = dict(body_fields)
        # Every column read must be a field of the body (the importer refuses unknown columns first);
        # otherwise create_body would defer every row, and so does this.
        self._usable = set(position) <= set(fields) and all(
            name in position or name == parent_column for name in required)
        # (field, cell position, how, check, low, high) in the body's order
        self._plan: list[tuple[str, int, int, int, int, int]] = []
        for name, check in body_fields:
            low, high = _BOUNDS.get(check, (0, 0))
            if name == parent_column:
                self._plan.append((name, -1, _PARENT, check, low, high))
            elif name in position:
                how = (_TEXT_CELL if check in _BOUNDS and check != _MAIL else _MAIL_CELL if check == _MAIL
                       else _WORKERS_CELL if check == _WORKERS else _MEMO_CELL)
                self._plan.append((name, position[name], how, check, low, high))
        self._memo: dict[int, dict[str, tuple[Any, str]]] = {i: {} for _, i, how, *_ in self._plan
                                                             if how == _MEMO_CELL}

    def check(self, cells: list[str], parent_id: str | None) -> dict[str, Any] | None:
        if not self._usable:
            return None
        body: dict[str, Any] = {}
        texts: list[str] = []
        with_json = self.with_json
        value: Any
        for name, position, how, check, low, high in self._plan:
            if how <= _MAIL_CELL:  # as _text, inline: most cells are text
                text = cells[position]
                if text[:1] == "'":
                    text = csvformat.strip_neutraliser(text)
                elif text[:1] == "#":  # maybe a spreadsheet's error value: decode_cell says
                    return None
                value = text.strip()
                if len(value) != len(text) and not _PYTHON_ONLY_SPACE.isdisjoint(text):
                    return None
                if not low <= len(value) <= high or (how == _MAIL_CELL and value and not _EMAIL.match(value)):
                    return None
                if with_json:
                    texts.append(_json_string(value))
            elif how == _MEMO_CELL:
                text = cells[position]
                memo = self._memo[position]
                known = memo.get(text)
                if known is None:
                    try:  # a plain rates or departments cell read here (as _decode would), else _decode
                        if (check != _BOOL and text[:1] not in ("'", "#") and "\\" not in text and "[" not in text
                                and text.isprintable()):  # C loops; \x1c-\x1f are unprintable
                            known = (_plain_rates if check == _RATES else _plain_departments)(text, with_json)
                        else:
                            known = self._decode(name, check, text)
                    except _Unsure:
                        return None
                    if len(memo) < MEMO_CELLS:
                        memo[text] = known
                value = known[0]
                if value is _OMITTED:
                    continue
                if with_json:
                    texts.append(known[1])
            elif how == _WORKERS_CELL:
                text = cells[position]
                if text[:1] in ("'", "#") or "\\" in text or "[" in text or not text.isprintable():  # as above
                    try:
                        value, json_text = self._decode(name, check, text)
                    except _Unsure:
                        return None
                else:  # as decode_banned_workers and _workers take such a cell, inline: one a row
                    value = [part.strip() for part in text.split("|")] if text else []
                    if value and ("" in value or (len(text) > _TEXT and max(map(len, value)) > _TEXT)
                                  or len(set(value)) != len(value)):
                        return None
                    json_text = "[" + ",".join(map(_json_string, value)) + "]" if with_json else ""
                if with_json:
                    texts.append(json_text)
            else:  # the parent: not one of the plan's changes, no JSON text
                try:
                    value = _id(parent_id)
                except _Unsure:
                    return None
            body[name] = value
        self.values_json = texts
        return body

    def _decode(self, name: str, check: int, text: str) -> tuple[Any, str]:
        """A list or boolean cell as decode_cell and the field's check take it, with its JSON text;
        raises _Unsure."""
        if check in (_RATES, _DEPARTMENTS) and _plain_list(text):
            return (_plain_rates if check == _RATES else _plain_departments)(text, self.with_json)
        try:
            decoded = csvformat.decode_cell(name, text)
        except csvformat.CellError:
            raise _Unsure from None
        if decoded is None:
            return _OMITTED, ""
        value: Any = _CHECKS[check](decoded)
        if not self.with_json:
            return value, ""
        if check == _WORKERS:
            return value, "[" + ",".join(map(_json_string, value)) + "]"
        if check == _BOOL:
            return value, _BOOL_TEXT[value]
        return value, _json(value)


# Rates and departments cells as most files hold them (no escape, no JSON, no formula protection, no
# separator the model keeps): read here, without decode_cell, the field's check and the JSON encoder,
# to the same value and JSON text (a file's list cells differ from row to row: each is read once).
# Both are read with str's methods (a regular expression scanning each cell costs more), a rate's number
# text remembered once found plain (the regular expression only for a number not seen yet).
_NOT_PLAIN = re.compile(r"[\\\[\x1c-\x1f]")
# A rate's number, white space (str.strip()'s: `\s`, Py_UNICODE_ISSPACE) around it.
_PLAIN_RATE = re.compile(r"\s*([0-9]{1,15}(?:\.[0-9]{0,2})?)\s*")
#: A rate's text -> its number and JSON text (rates repeat far more than the cells that hold them).
_NUMBERS: dict[str, tuple[int | float, str]] = {}
MEMO_NUMBERS = 4096


def _plain_list(text: str) -> bool:
    return text[:1] not in ("'", "#") and _NOT_PLAIN.search(text) is None


def _plain_rates(text: str, with_json: bool) -> tuple[list[dict[str, Any]], str]:
    """decode_rates, _rates and the JSON text of a plain cell; raises _Unsure."""
    if not text:
        return [], "[]" if with_json else ""
    out: list[dict[str, Any]] = []
    texts: list[str] = []
    skills = set()
    numbers = _NUMBERS
    for part in text.split("|"):
        skill, equals, number = part.partition("=")
        skill = skill.strip()
        if not equals or not 1 <= len(skill) <= _TEXT or skill in skills:
            raise _Unsure
        known = numbers.get(number)  # a number's text as the cell holds it, only once it was found plain
        if known is None:
            plain = _PLAIN_RATE.fullmatch(number)
            if plain is None:
                raise _Unsure
            # as parse_number: an int without a point, else the float of its decimal (rounded once either way)
            digits = plain[1]
            rate: int | float = float(digits) if "." in digits else int(digits)
            if not _plain_rate(rate):
                raise _Unsure
            known = (rate, repr(rate))
            if len(numbers) < MEMO_NUMBERS:
                numbers[number] = known
        skills.add(skill)
        out.append({"skill": skill, "hourlyRate": known[0]})
        if with_json:
            texts.append(f'{{"skill":{_json_string(skill)},"hourlyRate":{known[1]}}}')
    return out, "[" + ",".join(texts) + "]" if with_json else ""


def _plain_departments(text: str, with_json: bool) -> tuple[list[dict[str, Any]], str]:
    """decode_departments, _departments and the JSON text of a plain cell; raises _Unsure."""
    if not text:
        return [], "[]" if with_json else ""
    out: list[dict[str, Any]] = []
    texts: list[str] = []
    for part in text.split("|"):
        fields = part.split(":")
        name = fields[0].strip()
        if not 1 <= len(name) <= _TEXT:
            raise _Unsure
        if len(fields) == 1:
            out.append({"name": name})
            if with_json:
                texts.append(f'{{"name":{_json_string(name)}}}')
            continue
        contact = fields[1].strip()
        if len(contact) > _TEXT:
            raise _Unsure
        if len(fields) == 2:
            out.append({"name": name, "contactPerson": contact})
            if with_json:
                texts.append(f'{{"name":{_json_string(name)},"contactPerson":{_json_string(contact)}}}')
            continue
        email = fields[2].strip()
        if len(fields) > 3 or len(email) > _TEXT or (email and not _EMAIL.match(email)):
            raise _Unsure
        out.append({"name": name, "contactPerson": contact, "email": email})
        if with_json:
            texts.append(f'{{"name":{_json_string(name)},"contactPerson":{_json_string(contact)},'
                         f'"email":{_json_string(email)}}}')
    return out, "[" + ",".join(texts) + "]" if with_json else ""
