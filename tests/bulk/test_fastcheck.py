"""The importer's fast row check gives exactly the write model's body, or defers to the model."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from wfctl.api.models import WRITE_MODELS
from wfctl.bulk.fastcheck import create_body

GOOD_TEXT = st.sampled_from(["Dock 4", " x ", "Ann", "Straße", "=1+2"])
TEXT = st.one_of(GOOD_TEXT, GOOD_TEXT, GOOD_TEXT, GOOD_TEXT, st.text(max_size=8),
                 st.sampled_from(["", " ", "a@b.co", "not-mail", "x" * 201, "y" * 501]))
EMAIL = st.sampled_from(["", "a@b.co", " d@example.com ", "not-mail", "x@y", "a b@c.de"])
GOOD_RATE = st.sampled_from([13.25, 0, 12, 14.5, 99.99])
RATE = st.one_of(GOOD_RATE, GOOD_RATE, st.integers(-2, 10**16), st.floats(allow_nan=True, allow_infinity=True),
                 st.sampled_from([13.255, 1e-3, True, "12"]))
RATES = st.lists(st.fixed_dictionaries({"skill": TEXT, "hourlyRate": RATE}), max_size=3)
DEPARTMENTS = st.lists(st.fixed_dictionaries({"name": TEXT}, optional={"contactPerson": TEXT, "email": EMAIL}),
                       max_size=3)
WORKERS = st.lists(TEXT, max_size=3)
WRONG = st.one_of(st.none(), st.integers(), st.booleans(), TEXT, RATES, DEPARTMENTS)
# Mostly values of the field's own type (so the fast path is taken often), sometimes anything.
FIELD = {"assessmentRequired": st.booleans(), "rates": RATES, "departments": DEPARTMENTS, "bannedWorkers": WORKERS,
         "email": EMAIL, "branchId": st.sampled_from(["b-1", " b-2 ", "b-3", ""])}
FIELDS = {"branch": ["name", "address", "phone", "email"],
          "client": ["name", "email", "phone", "billingAddress", "branchId"],
          "site": ["name", "address", "phone", "email", "assessmentRequired", "departments", "rates",
                   "bannedWorkers"]}


def value_of(name: str) -> Any:
    own = FIELD.get(name, TEXT)
    return st.one_of(own, own, own, own, own, WRONG)


def model_body(kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return WRITE_MODELS[(kind, "create")].model_validate(data).body()
    except ValidationError:
        return None


@pytest.mark.parametrize("kind", ["branch", "client", "site"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None,
          derandomize=True)
@given(data=st.data())
def test_fast_check_is_the_model_or_defers(kind: str, data: Any) -> None:
    names = data.draw(st.lists(st.sampled_from([*FIELDS[kind], "unknown"]), unique=True))
    if data.draw(st.integers(0, 9)) != 9:  # mostly with a name (draws lean to 0)
        names = ["name", *(n for n in names if n != "name")]
    if kind == "client" and data.draw(st.integers(0, 9)) != 9:
        names = [*(n for n in names if n != "branchId"), "branchId"]
    row = {name: data.draw(value_of(name)) for name in names}
    fast = create_body(kind, row)
    if fast is not None:
        expected = model_body(kind, row)
        assert fast == expected and list(fast) == list(expected or {}), row
        TAKEN[kind] += 1


TAKEN = dict.fromkeys(FIELDS, 0)


@pytest.mark.parametrize("kind", ["branch", "client", "site"])
def test_the_property_took_the_fast_path(kind: str) -> None:
    """The property above is not vacuous: the fast path answered for many of its rows."""
    assert TAKEN[kind] >= 10, TAKEN


def test_the_common_row_takes_the_fast_path() -> None:
    row = {"name": " Dock 4 ", "address": "1 Quay St", "phone": "+44 1", "email": "d@example.com",
           "assessmentRequired": True, "rates": [{"skill": "Forklift", "hourlyRate": 13.25}],
           "departments": [{"name": "Goods In", "contactPerson": "Ann", "email": ""}], "bannedWorkers": ["W-1"]}
    assert create_body("site", row) == model_body("site", row)
    assert create_body("site", {**row, "rates": [{"skill": "a", "hourlyRate": 1.005}]}) is None


@pytest.mark.parametrize("text", ["a\x1c ", " \x1fa", "a\x1d\u00a0", "\t\x1e a \x1f\n"])
def test_separators_behind_a_space_are_the_model_s(text: str) -> None:
    """The model trims only Unicode White_Space; str.strip also removes \\x1c-\\x1f, also when a space
    stands outside them: the fast path defers, or gives the model's body."""
    for row in ({"name": text}, {"name": "n", "address": text}, {"name": "n", "bannedWorkers": [text]}):
        fast = create_body("site", row)
        assert fast is None or fast == model_body("site", row), row
