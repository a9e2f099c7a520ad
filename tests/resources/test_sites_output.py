"""`wfctl sites ...` end to end on the sandbox: exact output on a terminal and in a pipe, every format."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.resources.conftest import as_json

RATES = ["--rate", "Forklift Driver=13.25", "--rate", "Picker=11"]
DEPT = ["--department", "Goods in:Ann Lee:ann@example.com", "--department", "Office"]


@pytest.fixture
def site(wf: Any) -> Iterator[dict[str, Any]]:
    tag = uuid.uuid4().hex[:8]
    branch = as_json(wf("branches", "create", "--name", f"Output branch {tag}", "-o", "json"))["id"]
    client = as_json(wf("clients", "create", "--branch", branch, "--name", "Output client", "-o", "json"))["id"]
    created = as_json(wf("sites", "create", "--client", client, "--name", "Hull depot", "--address", "1 Quay St",
                         "--phone", "+44 1482 000000", "--email", "hull@example.com", "--assessment-required",
                         *RATES, *DEPT, "--banned-worker", "w-17", "-o", "json"))
    yield created
    wf("sites", "delete", created["id"], "--yes")
    wf("clients", "delete", client, "--yes")
    wf("branches", "delete", branch, "--yes")


def test_get_in_a_pipe_is_plain_with_sections(wf: Any, site: dict[str, Any]) -> None:
    r = wf("sites", "get", site["id"])
    assert r.exit_code == 0, r
    assert r.stdout == f"""\
id:                 {site["id"]}
clientId:           {site["clientId"]}
name:               Hull depot
address:            1 Quay St
phone:              +44 1482 000000
email:              hull@example.com
assessmentRequired: true
createdOn:          {site["createdOn"]}

departments (2):
  name      contactPerson  email
  Goods in  Ann Lee        ann@example.com
  Office

rates (2):
  skill            hourlyRate
  Forklift Driver  13.25
  Picker           11.00

bannedWorkers (1):
  w-17

documents (0):
"""
    assert r.stderr == ""


def test_get_on_a_terminal_draws_sections(wf: Any, site: dict[str, Any]) -> None:
    r = wf("--no-color", "sites", "get", site["id"], tty=True)
    assert r.exit_code == 0, r
    assert r.stdout == f"""\
id                   {site["id"]}
client               {site["clientId"]}
client name          Output client
name                 Hull depot
address              1 Quay St
phone                +44 1482 000000
email                hull@example.com
assessment required  true
created              {site["createdOn"]}

departments (2)
name       contact   email
────────────────────────────────────
Goods in   Ann Lee   ann@example.com
Office

rates (2)
skill             hourly rate
─────────────────────────────
Forklift Driver   13.25
Picker            11.00

banned workers (1)
  w-17

documents (0)
"""


def test_get_on_a_colour_terminal_uses_bold_headings(wf: Any, site: dict[str, Any]) -> None:
    r = wf("sites", "get", site["id"], tty=True)
    assert "\x1b[1m" in r.stdout
    assert "\x1b" not in wf("sites", "get", site["id"]).stdout


def test_get_json_jsonl_csv_and_fields(wf: Any, site: dict[str, Any]) -> None:
    record = as_json(wf("sites", "get", site["id"], "-o", "json"))
    assert record["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11}]
    assert record["departments"] == [{"name": "Goods in", "contactPerson": "Ann Lee", "email": "ann@example.com"},
                                     {"name": "Office", "contactPerson": "", "email": ""}]
    assert wf("sites", "get", site["id"], "-o", "jsonl").stdout == json.dumps(record, separators=(",", ":")) + "\n"
    r = wf("sites", "get", site["id"], "-o", "csv")
    assert r.stdout == (
        "id,clientId,name,address,phone,email,assessmentRequired,rates,departments,bannedWorkers\n"
        f"{site['id']},{site['clientId']},Hull depot,1 Quay St,'+44 1482 000000,hull@example.com,true,"
        "Forklift Driver=13.25|Picker=11,Goods in:Ann Lee:ann@example.com|Office::,w-17\n")
    # issue 36: a program reading a real pipe gets the values; a file (above: the captured stdout stands for one)
    # keeps the `'` a spreadsheet needs; fed back to import through the pipe, nothing changes
    piped = wf.subprocess("sites", "get", site["id"], "-o", "csv")
    assert piped.stdout == r.stdout.replace("'+44", "+44"), piped
    assert wf.subprocess("agency", "show", "-o", "csv").stdout.splitlines()[1].split(",")[2] == "+44 161 496 0000"
    back = wf.subprocess("sites", "import", "-", "--client", site["clientId"], "--on-existing", "update",
                         input=piped.stdout)
    assert back.exit_code == 0 and "unchanged 1" in back.stderr + back.stdout, back
    r = wf("sites", "get", site["id"], "-o", "json", "--fields", "name,phone")
    assert r.stdout == '{"name":"Hull depot","phone":"+44 1482 000000"}\n'
    r = wf("sites", "get", site["id"], "--fields", "name,rates")
    assert r.stdout == "name: Hull depot\n\nrates (2):\n  skill            hourlyRate\n  Forklift Driver  13.25\n" \
                       "  Picker           11.00\n"


def test_list_pages_in_a_pipe_and_on_a_terminal(wf: Any, site: dict[str, Any]) -> None:
    client = site["clientId"]
    for i in range(2, 6):
        as_json(wf("sites", "create", "--client", client, "--name", f"Extra {i}", "-o", "json"))
    listed = as_json(wf("sites", "list", "--client", client, "--all", "-o", "json"))
    ids, names = [s["id"] for s in listed], [s["name"] for s in listed]
    assert sorted(names) == ["Extra 2", "Extra 3", "Extra 4", "Extra 5", "Hull depot"]
    r = wf("sites", "list", "--client", client, "--page", "2", "--page-size", "2", "--fields", "id,name")
    assert r.stdout == f"id{' ' * 36}name\n{ids[2]}  {names[2]}\n{ids[3]}  {names[3]}\n"
    r = wf("--no-color", "sites", "list", "--client", client, "--page", "2", "--page-size", "2",
           "--fields", "id,name", tty=True)
    width = 39 + max(len(names[2]), len(names[3]))
    assert r.stdout == (f"id{' ' * 37}name\n{'─' * width}\n{ids[2]}   {names[2]}\n{ids[3]}   {names[3]}\n"
                        "page 2 of 3, 5 sites; more: --page 3, or --all\n")
    r = wf("sites", "list", "--client", client, "--all", "--page-size", "2", "--fields", "name", "-o", "jsonl")
    assert r.stdout == "".join(f'{{"name":"{name}"}}\n' for name in names)
    r = wf("sites", "list", "--client", client, "--limit", "3", "--page-size", "2", "-o", "json", "--fields", "name")
    assert json.loads(r.stdout) == [{"name": name} for name in names[:3]]
    r = wf("sites", "list", "--client", client, "--limit", "2", "--fields", "name,email", "-o", "csv")
    assert r.stdout == f"name,email\n{names[0]},{listed[0]['email']}\n{names[1]},{listed[1]['email']}\n"
    r = wf("sites", "list", "--client", client, "--page", "9")
    assert (r.exit_code, r.stdout) == (0, "id  name  address  phone  email  assessmentRequired  createdOn\n")
    r = wf("sites", "list", "--client", client, "--page", "9", "-o", "json")
    assert r.stdout == "[]\n"
    for extra in ids:
        if extra != site["id"]:
            assert wf("sites", "delete", extra, "--yes").exit_code == 0


def test_list_json_on_a_terminal_is_indented(wf: Any, site: dict[str, Any]) -> None:
    r = wf("sites", "list", "--client", site["clientId"], "-o", "json", "--fields", "name,email", tty=True)
    assert r.stdout == '[\n  {\n    "name": "Hull depot",\n    "email": "hull@example.com"\n  }\n]\n'
