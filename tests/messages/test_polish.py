"""Issue 24 §5, in a real terminal (a pty at 80x24 and 120x40): tables keep a line a row and a rule
within the screen, the paging footer says how to get more and when a page is past the end, and a group's
help keeps its command list on a 24-line screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.messages.helpers import SIZES, finish, new_client, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")
LONG_FILE = "northwind-trafford-park-sites-2026-11-24-final-v2.csv"


def _shown(cli: Any, *args: str, size: tuple[int, int]) -> list[str]:
    code, text = finish(spawn(cli, "--no-color", *args, size=size))
    assert code == 0, text
    return screen_lines(text)


@pytest.mark.parametrize("size", SIZES)
def test_imports_list_keeps_a_file_name_on_one_line(logged_in: Any, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    path = Path(logged_in.tmp_path) / "exports" / LONG_FILE
    path.parent.mkdir()
    path.write_text("name,address\nDock A,1 Quay\nDock B,2 Quay\n", encoding="utf-8")
    r = logged_in("sites", "import", str(path), "--client", client_id)
    assert r.exit_code == 0, r
    lines = _shown(logged_in, "imports", "list", size=size)
    _rows, columns = size
    assert max(len(line) for line in lines) <= columns, lines
    run = next(line for line in lines if "created 2" in line)  # was: the name in 10-character pieces, 7 lines
    assert run.endswith("complete") and "-final-v2.csv" in run, lines
    if columns == 80:
        assert "…" in run and lines[-2].startswith("not shown: kind"), lines


@pytest.mark.parametrize("size", SIZES)
def test_a_wide_table_keeps_its_rule_within_the_screen(logged_in: Any, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    r = logged_in("sites", "create", "--client", client_id, "--name", "A site with a rather long name " * 3,
                  "--address", "1 Quay", "-o", "json")
    assert r.exit_code == 0, r
    lines = _shown(logged_in, "sites", "list", "--client", client_id, "-o", "wide", size=size)
    rules = [line for line in lines if line and set(line) == {"─"}]
    assert len(rules) == 1 and len(rules[0]) == size[1], lines  # was: a rule wider than the screen, wrapped


@pytest.mark.parametrize("size", SIZES)
def test_the_paging_footer_says_how_to_get_more(logged_in: Any, size: tuple[int, int]) -> None:
    total = len(json.loads(logged_in("branches", "list", "--all", "-o", "json").stdout))
    assert total >= 3
    lines = _shown(logged_in, "branches", "list", "--page-size", "1", size=size)
    assert lines[-2] == f"page 1 of {total}, {total} branches; more: --page 2, or --all", lines
    lines = _shown(logged_in, "branches", "list", "--page-size", "1", "--page", str(total), size=size)
    assert lines[-2] == f"page {total} of {total}, {total} branches", lines
    lines = _shown(logged_in, "branches", "list", "--page-size", "1", "--page", "99", size=size)
    assert [line for line in lines if line] == [  # was: an empty table and "page 99 of 3"
        f"page 99 is past the end: {total} branches on {total} pages; the last is --page {total}"]
    # issue 36: --limit 2 of 3 said "page 1 of 2" (the pages of its own size); --page-size 1000 became 100 unsaid
    lines = _shown(logged_in, "branches", "list", "--limit", "2", size=size)
    assert lines[-2] == f"{total} branches (showing the first 2; --all shows every one)", lines


def test_a_page_size_the_service_does_not_serve_is_said(cli: Any, sandbox_factory: Any) -> None:
    import httpx

    from tests.fixtures.sandbox import ADMIN, auth_headers

    own = sandbox_factory()  # a sandbox of its own: 100 clients more would change other tests' lists
    logged_in = cli
    assert cli.login_as(own.url, *ADMIN).exit_code == 0
    headers = auth_headers(own, *ADMIN)
    branch = json.loads(logged_in("branches", "list", "-o", "json").stdout)[0]["id"]
    with httpx.Client(base_url=own.url, headers=headers, timeout=10) as http:
        for i in range(101 - len(json.loads(logged_in("clients", "list", "--all", "-o", "json").stdout))):
            assert http.post("/api/clients", json={"branchId": branch, "name": f"Paged {i}"}).status_code == 201
    r = logged_in("clients", "list", "--page-size", "1000", tty=True)
    assert r.exit_code == 0, r
    assert "--page-size 1000: the service serves at most 100 records a page\n" in r.stderr, r.stderr
    assert r.stdout.splitlines()[-1].startswith("page 1 of 2, "), r.stdout[-200:]
    r = logged_in("clients", "list", "--page-size", "1000", "-o", "json")  # a pipe: no note
    assert (r.exit_code, r.stderr) == (0, ""), r


@pytest.mark.parametrize("group", ["sites", "clients", "branches", "imports", "config", "sandbox", "auth"])
def test_a_groups_commands_stay_on_a_24_line_screen(cli: Any, group: str) -> None:
    lines = _shown(cli, group, "--help", size=(24, 80))
    while lines and not lines[-1]:
        lines.pop()
    screen = lines[-23:]  # what stays in view above the shell's next prompt
    start = screen.index("Commands:") if "Commands:" in screen else -1
    assert start >= 0, "\n".join(lines)  # was: pushed off by the 15 lines of Global options
    assert "  -p, --profile; --base-url; --ca-bundle; -o, --output; -v, --verbose;" in screen


def test_a_refused_access_token_from_the_environment_is_named(cli: Any, sandbox: Any) -> None:
    r = cli("--base-url", sandbox.url, "branches", "list", env={"WFCTL_ACCESS_TOKEN": "not-a-token"})
    assert (r.exit_code, r.stdout) == (3, ""), r
    assert r.stderr == ("error: the service refused the token in WFCTL_ACCESS_TOKEN: Unauthorized: the access token "
                        "is not valid (HTTP 401); set a fresh one (`wfctl auth token` prints one where wfctl is "
                        "logged in), or unset WFCTL_ACCESS_TOKEN to use the profile's login\n")  # was: run `wfctl login`
    assert "not-a-token" not in r.stderr


@pytest.mark.parametrize("size", SIZES)
def test_import_from_stdin_on_a_terminal_says_it_waits(logged_in: Any, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    child = spawn(logged_in, "sites", "import", "-", "--client", client_id, size=size)
    child.expect_exact("Reading the CSV from standard input: paste or type it, then press Ctrl-D")  # was: silence
    child.sendline("name,address")
    child.sendline("Dock Z,1 Quay")
    child.sendeof()
    code, shown = finish(child)
    assert code == 0, shown
    assert "created 1" in shown
    r = logged_in("sites", "import", "-", "--client", client_id, input="name\nDock Y\n")  # a pipe: no note
    assert r.exit_code == 0 and "Reading" not in r.stderr, r


def test_a_directory_given_as_a_file_is_named_as_one(logged_in: Any) -> None:
    client_id, _, _ = new_client(logged_in)
    folder = Path(logged_in.tmp_path) / "exports"
    folder.mkdir()
    r = logged_in("sites", "import", str(folder), "--client", client_id)
    assert (r.exit_code, r.stderr) == (2, f"error: {folder}: a directory, not a file; give the CSV file's name\n")


def test_one_invalid_row_is_one_row(logged_in: Any) -> None:
    client_id, _, _ = new_client(logged_in)
    path = Path(logged_in.tmp_path) / "one-bad.csv"
    path.write_text("name,email\nDock A,not-an-address\nDock B,b@example.com\n", encoding="utf-8")
    r = logged_in("sites", "import", str(path), "--client", client_id)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == ("error: 1 of 2 rows is invalid; nothing was sent (fix it in the file and run "
                                         "again, or use --skip-invalid to import the others)")
    r = logged_in("sites", "import", str(path), "--client", client_id, "--skip-invalid")
    assert r.exit_code == 10
    assert f"1 invalid row was not sent: fix it in {path} and run again\n" in r.stderr  # was: 1 invalid rows


@pytest.mark.parametrize("size", SIZES)
def test_a_record_on_a_terminal_reads_in_words(logged_in: Any, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    r = logged_in("sites", "create", "--client", client_id, "--name", "Dock 7", "--rate", "Picker Packer=11.60",
                  "--department", "Goods In:Ann Lee", "--assessment-required", "-o", "json")
    site = json.loads(r.stdout)
    lines = _shown(logged_in, "sites", "get", site["id"], size=size)
    assert f"client               {client_id}" in lines and "assessment required  true" in lines, lines
    assert "banned workers (0)" in lines and any(line.split() == ["skill", "hourly", "rate"] for line in lines)
    for key in ("clientId", "assessmentRequired", "createdOn", "hourlyRate", "contactPerson", "bannedWorkers"):
        assert key not in "\n".join(lines)  # was: the JSON keys
    assert json.loads(logged_in("sites", "get", site["id"], "-o", "json").stdout)["assessmentRequired"] is True


@pytest.mark.parametrize("size", SIZES)
def test_the_undo_prompt_names_the_file_and_the_time(logged_in: Any, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    path = Path(logged_in.tmp_path) / "pennine-final.csv"
    path.write_text("name\nDock Q\n", encoding="utf-8")
    assert logged_in("sites", "import", str(path), "--client", client_id).exit_code == 0
    run = json.loads(logged_in("imports", "list", "-o", "json").stdout)[0]
    child = spawn(logged_in, "imports", "undo", run["run"], size=size)
    started = run["started"][:16].replace("T", " ")
    child.expect_exact(f"Undo run {run['run']} (pennine-final.csv, started {started} UTC): delete 1 site? [y/N] ")
    child.sendline("n")  # was: only the run id, which a person does not remember
    code, shown = finish(child)
    assert code == 2 and "Not undone." in shown
