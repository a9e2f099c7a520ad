"""The cells of the CSV format: encode -> decode is the identity, formulas are neutralised, hostile
numbers fail at once, headers are read in any case."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names
from wfctl.files import csvformat as cf

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


# -- numbers no rate can be: refused at once, before any arithmetic --------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("w=1e999999999", "rate of 'w': 1e999999999 is too large; a rate must be less than 10^15"),
    ("w=1e1000000", "is too large"),
    ("w=1000000000000000", "is too large"),
    ("w=-1e999999999", "rate of 'w': -1e999999999 is negative; a rate must be 0 or more"),
    ("w=-5", "is negative"),
    ("w=1e-999999999", "rate of 'w': 1e-999999999 has more than 2 decimals"),
    ("w=0.001", "has more than 2 decimals"),
    ("w=" + "1" * 40, "is not a number (too long)"),
    ("w=NaN", "is not a number"),
    ("w=Infinity", "is not a number"),
])
def test_rates_no_rule_accepts_fail_at_once(text: str, message: str) -> None:
    started = time.perf_counter()
    with pytest.raises(cf.CellError, match=re.escape(message)):
        cf.decode_cell("rates", text)
    assert time.perf_counter() - started < 0.05


@pytest.mark.parametrize(("text", "rate"), [
    ("w=999999999999999.99", 999999999999999.99), ("w=0e-999999999", 0), ("w=1e2", 100), ("w=0.01", 0.01),
    ("w=12.50", 12.5), ("w=0", 0),
])
def test_rates_the_rules_accept(text: str, rate: float) -> None:
    assert cf.decode_cell("rates", text) == [{"skill": "w", "hourlyRate": rate}]


@pytest.mark.parametrize(("text", "message"), [
    ('[{"skill": "w", "hourlyRate": ' + "9" * 5000 + "}]", "a number in it is too long"),
    ("[" * 100_000, "nested too deeply"),
])
def test_json_cells_that_python_cannot_read(text: str, message: str) -> None:
    with pytest.raises(cf.CellError, match=message):
        cf.decode_cell("rates", text)


@pytest.mark.parametrize("rate", ["1e999999999", "1e-999999999", pytest.param(10**5000, id="5000-digit-int"),
                                  1e300, "-1e999999999"])
def test_write_model_refuses_absurd_rates_at_once(rate: object) -> None:
    from pydantic import ValidationError

    from wfctl.api.records.models import WRITE_MODELS

    started = time.perf_counter()
    with pytest.raises(ValidationError):
        WRITE_MODELS[("site", "create")].model_validate({"name": "x", "rates": [{"skill": "w", "hourlyRate": rate}]})
    assert time.perf_counter() - started < 0.05


def test_hostile_rate_in_a_file_and_on_the_command_line(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    path = tmp_path / "rates.csv"
    path.write_text("name,rates\nA,w=12\nB,w=1e999999999\n", encoding="utf-8")
    started = time.perf_counter()
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 2, r
    assert ("invalid: row 2 (line 3), column rates: rate of 'w': 1e999999999 is too large; "
            "a rate must be less than 10^15\n") in r.stderr
    r = cli("sites", "create", "--client", cid, "--name", "C", "--rate", "w=1e999999999", "--dry-run")
    assert r.exit_code == 2, r
    assert "1e999999999 is too large" in r.stderr and len(r.stderr.splitlines()) == 1, r
    assert time.perf_counter() - started < 5
    assert site_names(cli, cid) == []


# -- headers as people write them -------------------------------------------------------------------

@pytest.mark.parametrize(("written", "canonical"), [
    ("Name", "name"), ("CLIENT", "client"), ("ClientId", "clientId"), ("BANNEDWORKERS", "bannedWorkers"),
    ("billingaddress", "billingAddress"), ("ID", "id"), ("colour", "colour"),
])
def test_canonical_column(written: str, canonical: str) -> None:
    assert cf.canonical_column(written) == canonical


def test_unknown_column_message_suggests_and_lists_the_parent_by_name() -> None:
    message = cf.unknown_column_message("site", "clinet")
    assert message.startswith("unknown column; did you mean client? the columns are clientId (or client, "
                              "the client's name), name, address,")
    assert cf.unknown_column_message("site", "Adress").startswith("unknown column; did you mean address?")
    assert cf.unknown_column_message("site", "colour").startswith("unknown column; the columns are ")
    assert "branchId (or branch, the branch's name), name" in cf.unknown_column_message("client", "x")
    assert cf.unknown_column_message("branch", "x") == (
        "unknown column; the columns are name, address, phone, email; "
        "changes, createdOn, documents, error, id, modifiedOn, status, updatedOn are accepted and ignored")
