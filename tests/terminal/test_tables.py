"""Tables a person can read and copy from (issue 15, section 1; style anchor 12), in a real terminal
at 80x24 and 120x40: every id whole and on one line, names present, long free text on one line and
shortened with '…', and one line naming the columns left out. Pipes keep the full plain table."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.terminal.conftest import LONG_ADDRESS, LONG_NAME, LONG_SITE, Screen, run_in_terminal
from wfctl.sandbox.seed import LOGINS

SIZES = [pytest.param((24, 80), id="80x24"), pytest.param((40, 120), id="120x40")]

#: Every column of each list, as `-o wide` and a pipe show them.
COLUMNS = {
    "branches": ["id", "name", "address", "phone", "email", "createdOn"],
    "clients": ["id", "name", "branchId", "email", "phone", "createdOn"],
    "sites": ["id", "name", "address", "phone", "email", "assessmentRequired", "createdOn"],
}


def records(wf: Any, *args: str) -> list[dict[str, Any]]:
    r = wf(*args, "-o", "json")
    assert r.exit_code == 0, r
    return list(json.loads(r.stdout))


def list_args(what: str, long_records: dict[str, str]) -> list[str]:
    return ["sites", "list", "--client", long_records["client"]] if what == "sites" else [what, "list"]


def width(line: str) -> int:
    from rich.cells import cell_len

    return int(cell_len(line))


def header_of(screen: Screen) -> list[str]:
    return next(line.split() for line in screen.lines if line.startswith("id "))


def left_out(screen: Screen) -> list[str]:
    notes = [line for line in screen.lines if line.startswith("not shown: ")]
    assert len(notes) <= 1, screen.text
    if not notes:
        return []
    assert notes[0].endswith("; -o wide shows all"), notes[0]
    names = notes[0][len("not shown: "):-len("; -o wide shows all")]
    more = re.fullmatch(r"(.*) and (\d+) more", names)
    if more:  # too many to name on one line: the last ones are counted
        return [*more[1].split(", "), *["?"] * int(more[2])]
    return names.split(", ")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("what", ["branches", "clients", "sites"])
def test_a_list_keeps_ids_and_names_whole_and_says_what_it_left_out(
        wf: Any, long_records: dict[str, str], what: str, size: tuple[int, int]) -> None:
    rows, columns = size
    args = list_args(what, long_records)
    expected = records(wf, *args)
    screen = run_in_terminal(wf, *args, columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    lines = screen.lines
    for line in lines:
        assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"
    for record in expected:
        on_screen = [line for line in lines if record["id"] in line]
        assert len(on_screen) == 1, (record["id"], screen.text)  # whole, once, on one line
        assert f"{record['id']}   {record['name']}" in on_screen[0], screen.text  # the name whole beside it
    # one line a record: nothing wrapped into stacks under a row
    body = [line for line in lines if line and not line.startswith(("id ", "─", "not shown", "page "))]
    assert len(body) == len(expected), screen.text
    shown, hidden = header_of(screen), left_out(screen)
    assert shown[:2] == ["id", "name"]
    assert len(shown) + len(hidden) == len(COLUMNS[what]), screen.text
    named = [name for name in hidden if name != "?"]
    assert sorted(shown + named) == sorted(name for name in COLUMNS[what] if name in shown + named)
    assert [name for name in COLUMNS[what] if name in named] == named  # in the table's own order
    if "address" in shown:
        row = next(line for line in lines if long_records["branch" if what == "branches" else "site"] in line)
        assert LONG_ADDRESS not in row
        start = row.index(LONG_ADDRESS[:10])
        shortened = re.split(r"\s{3}", row[start:])[0]
        assert shortened.endswith("…") and LONG_ADDRESS.startswith(shortened[:-1]), row


@pytest.mark.parametrize("size", SIZES)
def test_what_each_width_shows(wf: Any, long_records: dict[str, str], size: tuple[int, int]) -> None:
    """The give-way order in practice: createdOn first, ids and names never."""
    rows, columns = size
    branches = run_in_terminal(wf, "branches", "list", columns=columns, rows=rows)
    clients = run_in_terminal(wf, "clients", "list", columns=columns, rows=rows)
    if columns == 120:
        assert header_of(branches) == ["id", "name", "address", "phone"]
        assert left_out(branches) == ["email", "createdOn"]
        assert header_of(clients) == ["id", "name", "email"]
    else:  # a 37-character name leaves no room for the address
        assert header_of(branches) == ["id", "name"]
        assert left_out(branches) == ["address", "phone", "email", "createdOn"]
        assert header_of(clients) == ["id", "name"]
        assert left_out(clients) == ["branchId", "email", "phone", "createdOn"]


def test_the_left_out_line_is_dim_and_follows_the_table(wf: Any) -> None:
    screen = run_in_terminal(wf, "branches", "list", columns=80, rows=24)
    raw_lines = screen.raw.split("\r\n")
    note = next(i for i, line in enumerate(raw_lines) if "not shown" in line)
    assert raw_lines[note].startswith("\x1b[2m"), raw_lines[note]  # dim
    assert any(line.startswith("id ") for line in screen.lines[:note])
    plain = run_in_terminal(wf, "--no-color", "branches", "list", columns=80, rows=24)
    assert "\x1b[" not in plain.raw, repr(plain.raw)
    assert "not shown: address, phone, email, createdOn; -o wide shows all" in plain.lines


@pytest.mark.parametrize("what", ["branches", "clients", "sites"])
def test_wide_shows_every_column_whole(wf: Any, long_records: dict[str, str], what: str) -> None:
    args = list_args(what, long_records)
    expected = records(wf, *args)
    screen = run_in_terminal(wf, *args, "-o", "wide", columns=80, rows=24)
    assert screen.exit_status == 0, screen.text
    assert header_of(screen) == COLUMNS[what] + (["clientId"] if what == "sites" else [])  # every field
    assert left_out(screen) == []
    for record in expected:
        row = next(line for line in screen.lines if record["id"] in line)
        for name in COLUMNS[what]:
            value = record.get(name)
            if value is not None:
                text = value if isinstance(value, str) else json.dumps(value)
                assert text in row, (name, row)  # nothing cut (a long line: the terminal wraps it)


def test_fields_shows_exactly_the_columns_asked_for(wf: Any) -> None:
    screen = run_in_terminal(wf, "clients", "list", "--fields", "id,name,branchId,email", columns=80, rows=24)
    assert header_of(screen) == ["id", "name", "branchId", "email"]
    assert left_out(screen) == []
    for record in records(wf, "clients", "list"):
        assert f"{record['id']}   {record['name']}" in screen.text
        assert record["branchId"] in screen.text and record["email"] in screen.text


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", ["branch", "client", "site"])
def test_get_shows_ids_and_the_name_whole_and_free_text_on_one_line(
        wf: Any, long_records: dict[str, str], kind: str, size: tuple[int, int]) -> None:
    rows, columns = size
    record_id = long_records[kind]
    group = {"branch": "branches", "client": "clients", "site": "sites"}[kind]
    record = json.loads(wf(group, "get", record_id, "-o", "json").stdout)
    screen = run_in_terminal(wf, group, "get", record_id, columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    lines = screen.lines
    for line in lines:
        assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"
    labels = {"branch": "branchId", "client": "clientId"}  # a person reads words (issue 24 §5)
    fields = {labels.get(line.split()[0], line.split()[0]): line.split(None, 1)[1] for line in lines
              if line and not line.startswith((" ", "branch name ", "client name ")) and len(line.split(None, 1)) == 2
              and labels.get(line.split()[0], line.split()[0]) in record}
    assert fields["id"] == record_id
    assert fields["name"] == {"branch": LONG_NAME, "client": record["name"], "site": LONG_SITE}[kind]
    for name in ("branchId", "clientId"):
        if name in record:
            assert fields[name] == record[name]
    parent = {"client": "branch", "site": "client"}.get(kind)  # issue 36: the parent by name too
    if parent:
        assert any(line.startswith(f"{parent} name ") for line in lines), lines
    address = fields.get("address") or fields.get("billingAddress")
    if kind != "client":
        assert address is not None
        assert address == LONG_ADDRESS or (address.endswith("…") and LONG_ADDRESS.startswith(address[:-1]))
        if columns == 80:
            assert address != LONG_ADDRESS  # shortened, not wrapped onto a second line
        assert not any(LONG_ADDRESS[-12:] in line for line in lines if not line.startswith("address"))


def test_a_pipe_keeps_the_full_plain_table(wf: Any) -> None:
    expected = records(wf, "branches", "list")
    names = COLUMNS["branches"]
    table = [names] + [[str(record.get(name) or "") for name in names] for record in expected]
    widths = [max(len(row[i]) for row in table) for i in range(len(names))]
    plain = "".join("  ".join(value.ljust(widths[i]) for i, value in enumerate(row)).rstrip() + "\n"
                    for row in table)
    assert wf("branches", "list").stdout == plain  # every column, nothing cut, no note, no footer
    assert wf("branches", "list", "-o", "wide").stdout == plain
    assert LONG_ADDRESS in plain


def test_head_in_a_terminal_gets_the_plain_lines(wf: Any) -> None:
    """`wfctl branches list | head -3` typed at a terminal: wfctl's stdout is a pipe, so the plain table,
    no note and no footer (they are written only when stdout is the terminal)."""
    piped = wf("branches", "list").stdout.splitlines()
    screen = run_in_terminal(wf, columns=80, rows=24, shell="wfctl branches list | head -3")
    assert screen.exit_status == 0, screen.text
    assert [line for line in screen.lines if line] == [line.rstrip() for line in piped[:3]]
    assert "not shown" not in screen.text


@pytest.mark.parametrize("size", SIZES)
def test_a_name_wider_than_the_terminal_is_whole_within_its_column(wf: Any, service: Any,
                                                                  size: tuple[int, int]) -> None:
    """id and name alone wider than the terminal: the id whole on one line, the name whole, wrapped within its
    column (issue 49: the terminal wrapped the row past its edge, the name's end under the ids); every line
    within the terminal, every other column left out and named, and a short name's row one line."""
    import httpx

    from tests.fixtures.sandbox import ADMIN, auth_headers

    rows, columns = size
    headers = auth_headers(service, *ADMIN)
    branch = records(wf, "branches", "list")[0]["id"]
    answer = httpx.post(f"{service.url}/api/clients", headers=headers, timeout=10,
                        json={"branchId": branch, "name": f"Long Names Ltd {columns}"})
    client = answer.json()["id"]
    name = ("A very long site name that goes on and on, well past any sensible width, "
            "Trafford Park Distribution Centre Unit 4")
    sites = [httpx.post(f"{service.url}/api/clients/{client}/sites", headers=headers, timeout=10,
                        json={"name": site_name, "address": "1 Short St"}).json()["id"]
             for site_name in (name, "Yard")]
    screen = run_in_terminal(wf, "sites", "list", "--client", client, columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    assert all(width(line) <= columns for line in screen.lines), screen.text
    assert header_of(screen) == ["id", "name"]
    assert left_out(screen)[:3] == ["address", "phone", "email"]
    first = next(i for i, line in enumerate(screen.lines) if line.startswith(sites[0] + "   "))
    column = len(sites[0]) + 3
    pieces = [screen.lines[first][column:]]
    for line in screen.lines[first + 1:]:
        if not line.startswith(" " * column):
            break
        pieces.append(line[column:])
    assert len(pieces) > 1 and " ".join(pieces) == name, screen.text
    assert f"{sites[1]}   Yard" in screen.lines, screen.text
    # issue 36: the bold heading was padded to the name's width, and the terminal wrapped it into a blank line
    heading = next(line for line in screen.text.split("\n") if line.startswith("id "))
    assert width(heading.rstrip("\r")) <= columns, repr(heading)


def test_help_offers_wide(wf: Any) -> None:
    r = wf("branches", "list", "--help")
    assert r.exit_code == 0, r
    assert "wide (a table of every column)" in " ".join(r.stdout.split())
    assert wf("branches", "list", "-o", "nosuch").exit_code == 2


@pytest.mark.parametrize("size", [(24, 80), (40, 120)], ids=["80x24", "120x40"])
def test_sandbox_users_and_agencies_lists_at_each_width(cli: Any, service: Any, size: tuple[int, int]) -> None:
    """`wfctl sandbox users list` / `agencies list` on the sandbox's own database: every user name, role
    and agency whole at 80 and 120 columns, no password hash anywhere."""
    rows, columns = size
    users = run_in_terminal(cli, "sandbox", "users", "list", "--db", service.db_path, columns=columns, rows=rows)
    assert users.exit_status == 0, users.text
    assert all(len(line) <= columns for line in users.lines)
    assert re.match(r"username\s+role\s+agency\s+branch$", users.lines[0]), users.lines
    for username, _, role, agency in LOGINS:
        line = next(line for line in users.lines if line.startswith(username + " "))
        assert re.search(rf"\s{role}\s+{agency}(\s|$)", line), line
    assert "scrypt" not in users.raw
    agencies = run_in_terminal(cli, "sandbox", "agencies", "list", "--db", service.db_path, columns=columns,
                               rows=rows)
    assert agencies.exit_status == 0, agencies.text
    assert all(len(line) <= columns for line in agencies.lines)
    for name in ("Northwind Staffing", "Southgate Recruitment"):
        assert any(name in line for line in agencies.lines), agencies.lines


@pytest.mark.parametrize("size", SIZES)
def test_agency_show_reads_in_words_as_get_does(wf: Any, size: tuple[int, int]) -> None:
    """Issue 36: `agency show` showed the JSON keys (`workWeekStart`) where `sites get` shows words; a pipe keeps
    the keys, as for every record."""
    rows, columns = size
    screen = run_in_terminal(wf, "agency", "show", columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    labels = [line.split("  ")[0] for line in screen.lines if line.strip()]
    assert labels == ["name", "email", "phone", "work week start", "calendar year start", "holiday year start",
                      "holiday cap (hours)"], screen.text
    piped = wf("agency", "show").stdout.splitlines()
    assert [line.split(":")[0] for line in piped] == ["name", "email", "phone", "workWeekStart", "calendarYearStart",
                                                        "holidayYearStart", "holidayCapHours"]
