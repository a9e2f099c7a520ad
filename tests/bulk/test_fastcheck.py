"""The importer's fast row check gives exactly the write model's body, or defers to the model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from wfctl.api.records.models import WRITE_MODELS
from wfctl.files.csvformat import READ_ONLY_COLUMNS, CellError, decode_cell
from wfctl.plans.fastcheck import RowCheck, create_body
from wfctl.runs.journal import Entry
from wfctl.views import planview as plan

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


# -- RowCheck: whole CSV rows, by column position -------------------------------------------------------

TEXT_CELLS = ["", "Dock 4", " Dock 4 ", "'+44 1", "''=1", "'=SUM(A1)", "Straße", "x" * 201, "y" * 501, "a\x1c",
              "a\x1c ", " \x1fa", "=1", "\u00a0a", "a\tb"]
OWN_CELLS = {
    "email": ["", "a@b.co", " c@d.com ", "not-mail", "'a@b.co", "a b@c.de"],
    "assessmentRequired": ["", "TRUE", "false", " yes ", "0", "On", "maybe", "'TRUE", "\x1ctrue"],
    "rates": ["", "Forklift=13.25|Picker=11.60", "A=12.5", "A=13.255", "A=1|A=2", "A=-1", "A=13,5", "A\\|B=3",
              "A=1e2", "A=", "=1", "A=1|", '[{"skill": "A", "hourlyRate": 12.5}]', "[]", "[1,", " A = 2 ",
              "A=0.1|a=2", "'=A=1", "A=13.", "A=013", "A=0.00", "A= 12 ", "A=1_000", "A=\uff11\uff12", "A=.5",
              "A=999999999999999", "A=1000000000000000", "A=0.001", "A=12.345", "A=1=2", " =1", "A=1|B=2|a=3",
              "A=00000000000000012", "A=+1", "A=1 |B=2.5 ", "Ü=1.10", "A=1||B=2",
              # read by one regular expression a cell: entries at both ends, line ends, white space str.strip
              # takes, a number again in another cell (its text remembered)
              "|A=1", "A=1\n", "A=1\n|B=2", "A\n=\u20282\u3000", "\u0085A=1.5", "A=12.50", "A=12.5|B=12.50",
              "A=1|B=2|C=3|D=4|E=5", "A=1=|B=2", "A==1", "A=1|=2", "A=1 2", "A=1.|B=.1", "A\x85=1\x1c"],
    "departments": ["", "Goods In:Ann Lee:ann@example.com|Yard", "Yard:Ann", "a:b:c:d", "A||B", "A\\:x:B",
                    '[{"name": "J"}]', "Yard|yard", "Y::bad-mail", " Y :  : ", "|", ":x", "Y:", "Y:a:", "Y:a:b@c.de|",
                    "Y|Y", "Y:" + "x" * 201, "x" * 201, "Y:a:b@c.de:", "é:\u2028:",
                    "|Y", "Y\n", "Y:a\n", "Y:a:b@c.de\n", "Y:a:b@c.de|Z:b:c:d", "Y:a:b@c.de|Z::", "Y::",
                    "Y:a:b c@d.ef", " \u3000Y\u2029: a :  e@f.gh ", "Y:" + "x" * 200 + ":" + "e@f.gh", "Y:a:\x1c"],
    "bannedWorkers": ["", "W-1|W-2", " W-1 | W-2 ", "W-1|W-1", "W-1| |W-2", "W\\|1", "a|b\x1c", "'W-1|W-2",
                      "|", "[W-1]", '["X", "Y"]', '["X", 1]', "W-1|w-1", "x" * 201, "a\x1c |b"],
}
ANY_CELL = st.one_of(st.sampled_from(TEXT_CELLS + [c for cells in OWN_CELLS.values() for c in cells]),
                     st.text(alphabet=st.sampled_from([*"aZ09 =:|\\[]\"',.-+@\t\x1c\u00a0"]), max_size=12))


def cell_of(column: str) -> Any:
    """Mostly a cell of the column's own kind (so that whole rows often pass), sometimes anything."""
    own = st.sampled_from(OWN_CELLS.get(column, TEXT_CELLS))
    return st.one_of(own, own, own, own, own, own, ANY_CELL)


COLUMNS = {"branch": ["name", "address", "phone", "email", "id"],
           "client": ["name", "email", "phone", "billingAddress", "branchId", "branch"],
           "site": ["name", "address", "phone", "email", "assessmentRequired", "rates", "departments",
                    "bannedWorkers", "clientId", "createdOn"]}
PARENT_COLUMN = {"branch": None, "client": "branchId", "site": None}
SKIP = READ_ONLY_COLUMNS | {"branchId", "branch", "clientId", "client"}
CHECKS: dict[tuple[str, tuple[str, ...]], RowCheck] = {}  # one per kind and header: memos see repeated cells
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode


def reference(kind: str, header: list[str], cells: list[str], parent_id: str) -> dict[str, Any] | None:
    """What the importer's full check gives for the row: decode_cell on each cell, then the model."""
    data: dict[str, Any] = {}
    for column, text in zip(header, cells, strict=True):
        if column in SKIP:
            continue
        try:
            value = decode_cell(column, text)
        except CellError:
            return None
        if value is not None:
            data[column] = value
    if PARENT_COLUMN[kind]:
        data[PARENT_COLUMN[kind]] = parent_id
    return model_body(kind, data)


@pytest.mark.parametrize("kind", ["branch", "client", "site"])
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None,
          derandomize=True)
@given(data=st.data())
def test_row_check_is_decode_and_the_model_or_defers(kind: str, data: Any) -> None:
    header = data.draw(st.lists(st.sampled_from(COLUMNS[kind]), min_size=1, unique=True))
    if data.draw(st.integers(0, 9)) != 9:
        header = ["name", *(c for c in header if c != "name")]
    cells = [data.draw(cell_of(column)) for column in header]
    parent_id = data.draw(st.sampled_from(["b-1", " b-2 ", "\x1cb"]))
    check = CHECKS.setdefault((kind, tuple(header)), RowCheck(kind, header, SKIP, PARENT_COLUMN[kind],
                                                              with_json=True))
    fast = check.check(cells, parent_id)
    if fast is not None:
        expected = reference(kind, header, cells, parent_id)
        assert fast == expected and list(fast) == list(expected or {}), (header, cells)
        assert check.values_json == [_encode(v) for k, v in fast.items() if k != PARENT_COLUMN[kind]]
        ROW_TAKEN[kind] += 1


ROW_TAKEN = dict.fromkeys(FIELDS, 0)


@pytest.mark.parametrize("kind", ["branch", "client", "site"])
def test_the_row_property_took_the_fast_path(kind: str) -> None:
    assert ROW_TAKEN[kind] >= 20, ROW_TAKEN


@pytest.mark.parametrize("column", sorted(OWN_CELLS))
def test_each_cell_of_a_list_or_boolean_column(column: str) -> None:
    for text in OWN_CELLS[column] + TEXT_CELLS:
        for check in (RowCheck("site", ["name", column], SKIP, None, with_json=True),) * 2:  # memo cold, warm
            fast = check.check(["n", text], None)
            assert fast is None or fast == reference("site", ["name", column], ["n", text], ""), text


def test_a_repeated_cell_is_decoded_once_and_gives_the_same_body() -> None:
    header = ["name", "rates", "departments", "assessmentRequired", "bannedWorkers"]
    check = RowCheck("site", header, SKIP, None, with_json=True)
    rows = [[f"S{i}", "A=1.5|B=2", "Yard:Ann", "TRUE" if i % 2 else "", f"W-{i}"] for i in range(3)]
    bodies = [check.check(cells, None) for cells in rows]
    assert bodies == [reference("site", header, cells, "") for cells in rows]
    assert "assessmentRequired" not in bodies[0] and bodies[1]["assessmentRequired"] is True
    assert check.check(["S9", "A=1.5|B=2", "Yard:Ann", "maybe", "W-9"], None) is None  # the model words it


def test_a_plan_s_create_line_is_the_encoder_s() -> None:
    """A plan's create written from the JSON text made when the row was checked: the encoder's characters."""
    header = ["name", "address", "assessmentRequired", "rates", "departments", "bannedWorkers"]
    check = RowCheck("site", header, SKIP, None, with_json=True)
    cells = ['Quo"te \\ é', "a\tb\u2028", "no", "A=1|B=12.5|C=0", "Yard:Ann:a@b.co|Dock", "W-1|ü"]
    body = check.check(cells, None)
    assert body is not None
    fields_json = plan.fields_template(body) % tuple(check.values_json)
    changes = {k: [None, v] for k, v in body.items()}
    created = plan.Created(7, body["name"], fields_json, lambda: changes)
    entry = Entry(7, "created", name=body["name"], changes=changes)
    assert plan.row_json(created) == plan.row_json(entry) == _encode(plan.row_object(entry))


def test_distinct_plain_list_cells_are_read_without_decode_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rates and departments cells that differ on every row (as real sites' do) are read by the row check
    itself, to decode_cell's and the model's body and the encoder's JSON text."""
    header = ["name", "rates", "departments"]
    rows = [[f"S{i}", f"Forklift={10 + i}.{i:02d}|Picker {i}={i}", f"Goods In {i}:Ann:a{i}@b.co|Yard {i}|Dock:"]
            for i in range(50)]
    expected = [reference("site", header, cells, "") for cells in rows]
    from wfctl.files import csvformat

    def unused(*args: Any) -> Any:
        raise AssertionError("decode_cell read a plain list cell")

    monkeypatch.setattr(csvformat, "decode_cell", unused)
    check = RowCheck("site", header, SKIP, None, with_json=True)
    for cells, body in zip(rows, expected, strict=True):
        assert check.check(cells, None) == body
        assert check.values_json == [_encode(v) for v in (body or {}).values()]
