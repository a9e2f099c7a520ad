"""A fast path for the common row: the body the write model would give, without pydantic.

Validating a CSV row with the pydantic write models costs some 60 us; an import checks every row
before it sends anything, so a 20,000-row file waited over a second for that alone. `create_body`
accepts only rows it can judge with certainty to be valid under exactly the models' rules
(wfctl.api.models: the same trimming, lengths, e-mail pattern and uniqueness; rates that are plainly
within the rate rule) and returns
the same body `model_validate(data).body()` returns, keys in the same order; anything else
(an invalid value, an unusual type, an unknown field) returns None, and the caller asks the models,
which also word the problems. tests/bulk/test_fastcheck.py holds the two paths to the same answers.
"""

from __future__ import annotations

from typing import Any

from wfctl.api.records import EMAIL as _EMAIL

_TEXT = 200
_ADDRESS = 500
# Fields of each kind's create body in the models' order, with their check.
_NAME, _SHORT, _LONG, _MAIL, _BOOL, _RATES, _DEPARTMENTS, _WORKERS, _ID = range(9)
_FIELDS: dict[str, tuple[tuple[str, int], ...]] = {
    "branch": (("name", _NAME), ("address", _LONG), ("phone", _SHORT), ("email", _MAIL)),
    "client": (("name", _NAME), ("email", _MAIL), ("phone", _SHORT), ("billingAddress", _LONG),
               ("branchId", _ID)),
    "site": (("name", _NAME), ("address", _LONG), ("phone", _SHORT), ("email", _MAIL),
             ("assessmentRequired", _BOOL), ("departments", _DEPARTMENTS), ("rates", _RATES),
             ("bannedWorkers", _WORKERS)),
}
_REQUIRED = {"branch": ("name",), "client": ("name", "branchId"), "site": ("name",)}


# Characters str.strip() removes and pydantic's trimming (Unicode White_Space) keeps.
_PYTHON_ONLY_SPACE = frozenset("\x1c\x1d\x1e\x1f")


class _Unsure(Exception):
    pass


def create_body(kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """The create body of `data` (the service's camelCase names) when it is certainly valid, else None."""
    fields = _FIELDS[kind]
    if len(data) > len(fields) or any(name not in data for name in _REQUIRED[kind]):
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
