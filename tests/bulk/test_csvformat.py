"""The cells of the CSV format: encode -> decode is the identity, formulas are neutralised."""

from __future__ import annotations

import pytest

from wfctl.bulk import csvformat as cf

SITE = {
    "clientId": "c-1", "name": "=HYPERLINK(\"x\")", "address": "1 Dock Rd\nHull", "phone": "+44 1482 000000",
    "email": "", "assessmentRequired": True,
    "rates": [{"skill": "fork|lift", "hourlyRate": 12.5}, {"skill": "a=b:c\\", "hourlyRate": 10}],
    "departments": [{"name": "Goods: in", "contactPerson": "Ann", "email": "ann@example.com"},
                    {"name": "Yard", "contactPerson": "", "email": ""}, {"name": "Gate"}],
    "bannedWorkers": ["w|1", "[w2", "-w3"],
}


def roundtrip(record: dict) -> dict:
    columns = cf.columns_for("site")
    cells = cf.encode_record("site", record, columns)
    return {c: cf.decode_cell(c, t) for c, t in zip(columns, cells, strict=True)}


def test_columns() -> None:
    assert cf.columns_for("site")[:2] == ["clientId", "name"]
    assert cf.columns_for("branch") == ["name", "address", "phone", "email"]
    assert "billingAddress" in cf.columns_for("client")
    with pytest.raises(ValueError):
        cf.columns_for("agency")


def test_encode_shapes() -> None:
    cells = dict(zip(cf.columns_for("site"), cf.encode_record("site", SITE, cf.columns_for("site")), strict=True))
    assert cells["name"] == "'=HYPERLINK(\"x\")"
    assert cells["phone"] == "'+44 1482 000000"
    assert cells["assessmentRequired"] == "true"
    assert cells["rates"] == "fork\\|lift=12.5|a\\=b\\:c\\\\=10"
    assert cells["departments"] == "Goods\\: in:Ann:ann@example.com|Yard::|Gate"
    assert cells["bannedWorkers"] == "w\\|1|[w2|-w3"


def test_roundtrip_is_exact() -> None:
    back = roundtrip(SITE)
    assert back == SITE


@pytest.mark.parametrize("value", ["=1+1", "+44", "-5", "@SUM", "\tx", "\rx", "'=x", "''+x", "'plain", "plain", ""])
def test_neutralise_roundtrip(value: str) -> None:
    assert cf.decode_cell("name", cf.neutralise(value)) == value
    assert not cf.neutralise(value).startswith(cf.FORMULA_STARTS)


def test_list_cells_that_would_read_as_json_are_written_as_json() -> None:
    assert cf.encode_cell("bannedWorkers", ["[x", "y"]) == '["[x","y"]'
    assert cf.decode_cell("bannedWorkers", '["[x","y"]') == ["[x", "y"]
    assert cf.encode_cell("bannedWorkers", [""]) == '[""]'


def test_decode_json_cells() -> None:
    assert cf.decode_cell("rates", '[{"skill": "a", "hourlyRate": 1.5}]') == [{"skill": "a", "hourlyRate": 1.5}]
    assert cf.decode_cell("departments", '[{"name": "Ops"}]') == [{"name": "Ops"}]


@pytest.mark.parametrize(("column", "text", "message"), [
    ("rates", "welder", "is not SKILL=RATE"),
    ("rates", "welder=abc", "is not a number"),
    ("rates", "[1,", "must be a JSON array"),
    ("departments", "a:b:c:d", "is not NAME:CONTACT:EMAIL"),
    ("assessmentRequired", "maybe", "is not a boolean"),
    ("bannedWorkers", "[1, 2]", "must be a string"),
])
def test_decode_errors(column: str, text: str, message: str) -> None:
    with pytest.raises(cf.CellError, match=message):
        cf.decode_cell(column, text)


@pytest.mark.parametrize(("text", "value"), [("true", True), ("Yes", True), ("1", True), ("false", False),
                                             ("NO", False), ("0", False), ("", None)])
def test_booleans(text: str, value: bool | None) -> None:
    assert cf.decode_cell("assessmentRequired", text) is value


def test_numbers() -> None:
    assert cf.decode_cell("rates", "a=12|b=12.50|c=0.5") == [
        {"skill": "a", "hourlyRate": 12}, {"skill": "b", "hourlyRate": 12.5}, {"skill": "c", "hourlyRate": 0.5}]
