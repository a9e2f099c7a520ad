"""The write history (issue 46): every single write, through the CLI or a Client from wfctl.factory, leaves
exactly one JSON line in `<state>/history.jsonl` (time, profile, kind, id, verb, fields sent), never a
secret; a journalled run leaves one line naming its run; a bare SDK Client writes no file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.edit.conftest import Editor
from tests.fixtures.cli import Cli

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _history(cli: Cli) -> list[dict[str, Any]]:
    path = cli.tmp_path / "state" / "wfctl" / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _new_lines(cli: Cli, before: int) -> list[dict[str, Any]]:
    lines = _history(cli)[before:]
    for line in lines:
        assert TIME.fullmatch(line.pop("time")), line
    return lines


def _ok(result: Any) -> Any:
    assert result.exit_code == 0, result
    return json.loads(result.stdout) if result.stdout.strip() else None


def _no_secret(cli: Cli) -> None:
    text = (cli.tmp_path / "state" / "wfctl" / "history.jsonl").read_text(encoding="utf-8")
    credentials = json.loads(next((cli.config_dir / "credentials").glob("*.json")).read_text())
    tokens = [value for value in credentials.values() if isinstance(value, str) and len(value) > 20]
    assert tokens, credentials
    assert not any(token in text for token in tokens)
    assert "sandbox-admin" not in text


def test_a_create_an_update_and_a_delete_each_leave_one_line(logged_in: Cli) -> None:
    branch = _ok(logged_in("branches", "create", "--name", "History Branch", "--phone", "0161", "-o", "json"))
    assert _new_lines(logged_in, 0) == [{"profile": "default", "kind": "branch", "id": branch["id"],
                                         "verb": "create", "fields": {"name": "History Branch", "phone": "0161"}}]
    _ok(logged_in("branches", "update", branch["id"], "--phone", "0161 555 0100", "-o", "json"))
    assert _new_lines(logged_in, 1) == [{"profile": "default", "kind": "branch", "id": branch["id"],
                                         "verb": "update", "fields": {"phone": "0161 555 0100"}}]
    _ok(logged_in("branches", "delete", branch["id"], "--yes", "-o", "json"))
    assert _new_lines(logged_in, 2) == [{"profile": "default", "kind": "branch", "id": branch["id"],
                                         "verb": "delete", "fields": {}}]
    _no_secret(logged_in)


def test_a_dry_run_and_an_update_that_changes_nothing_leave_none(logged_in: Cli) -> None:
    branch = _ok(logged_in("branches", "create", "--name", "History Quiet", "--phone", "0161", "-o", "json"))
    r = logged_in("branches", "update", branch["id"], "--phone", "0999", "--dry-run")
    assert r.exit_code == 0, r
    logged_in("branches", "update", branch["id"], "--phone", "0161", "-o", "json")
    assert [line["verb"] for line in _history(logged_in)] == ["create"]


def test_a_one_record_edit_leaves_one_line(logged_in: Cli, tmp_path: Path) -> None:
    branch = _ok(logged_in("branches", "create", "--name", "History Edit", "-o", "json"))
    client = _ok(logged_in("clients", "create", "--branch", branch["id"], "--name", "History Client", "-o", "json"))
    site = _ok(logged_in("sites", "create", "--client", client["id"], "--name", "History Site",
                         "--rate", "Forklift Driver=13.25", "-o", "json"))
    editor = Editor(tmp_path).steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 14.00"]]})
    _ok(logged_in("sites", "edit", site["id"], "--yes", "-o", "json", env=editor.env))
    assert _new_lines(logged_in, 3) == [{"profile": "default", "kind": "site", "id": site["id"], "verb": "update",
                                         "fields": {"rates": [{"skill": "Forklift Driver", "hourlyRate": 14.0}]}}]


def test_a_write_through_the_sdk_leaves_one_line(logged_in: Cli) -> None:
    from wfctl.factory import client_from_profile

    with client_from_profile() as api:
        branch = api.create_branch({"name": "History SDK"})
        assert _new_lines(logged_in, 0) == [{"profile": "default", "kind": "branch", "id": branch["id"],
                                             "verb": "create", "fields": {"name": "History SDK"}}]
        api.update_branch(branch["id"], {"address": "1 Dock Rd"})
    assert _new_lines(logged_in, 1) == [{"profile": "default", "kind": "branch", "id": branch["id"],
                                         "verb": "update", "fields": {"address": "1 Dock Rd"}}]
    _no_secret(logged_in)


def test_a_bare_sdk_client_writes_no_file_and_tells_its_observer(logged_in: Cli, sandbox: Any) -> None:
    from wfctl.api import Client
    from wfctl.api.records.writelog import Write
    from wfctl.api.session.auth import StaticTokenAuth

    token = logged_in("auth", "token").stdout.strip()
    told: list[Write] = []

    class Observer:
        def wrote(self, write: Write) -> None:
            told.append(write)

    with Client(sandbox.url, auth=StaticTokenAuth(token, sandbox.url)) as bare:
        bare.create_branch({"name": "History Bare"})
    with Client(sandbox.url, auth=StaticTokenAuth(token, sandbox.url), write_observer=Observer()) as api:
        branch = api.create_branch({"name": "History Observed"})
        api.delete_branch(branch["id"])
    assert _history(logged_in) == []
    assert [(w.kind, w.record_id, w.verb, w.fields, w.run) for w in told] == [
        ("branch", branch["id"], "create", {"name": "History Observed"}, ""),
        ("branch", branch["id"], "delete", {}, "")]


def test_a_journalled_run_leaves_one_line_naming_it(logged_in: Cli, tmp_path: Path) -> None:
    client = _ok(logged_in("clients", "list", "-o", "json", "--limit", "1"))[0]
    rows = "name,address\n" + "".join(f"History Row {n},{n} Dock Rd\n" for n in range(3))
    (tmp_path / "sites.csv").write_text(rows, encoding="utf-8")
    r = logged_in("sites", "import", str(tmp_path / "sites.csv"), "--client", client["id"])
    assert r.exit_code == 0, r
    run = re.search(r"run (\d{6}-[0-9a-f]{6})", r.stderr)
    assert run, r.stderr
    assert _new_lines(logged_in, 0) == [{"profile": "default", "kind": "site", "verb": "run", "run": run.group(1)}]


def test_the_file_is_rotated_past_its_bound_and_read_oldest_first(tmp_path: Path) -> None:
    from wfctl.api.records.writelog import Write
    from wfctl.history import HistoryWriter, read_history

    writer = HistoryWriter("default", tmp_path / "history.jsonl", max_bytes=400)
    for n in range(5):  # about 155 bytes a line: the third passes 400 bytes and the file is moved aside
        writer.wrote(Write("branch", f"b-{n}", "update", {"phone": "0" * 40}, "2026-12-07T00:00:00Z"))
    ids = [[json.loads(line)["id"] for line in (tmp_path / name).read_text().splitlines()]
           for name in ("history.jsonl.1", "history.jsonl")]
    assert ids == [["b-0", "b-1", "b-2"], ["b-3", "b-4"]]
    with open(tmp_path / "history.jsonl", "ab") as f:
        f.write(b'{"time": "2026-12-07T00:00:01Z", "id": "b-')  # a line a crash cut
    assert [line["id"] for line in read_history(tmp_path / "history.jsonl")] == [f"b-{n}" for n in range(5)]
    writer.wrote(Write("branch", "b-5", "delete", {}, "2026-12-07T00:00:02Z"))  # on a line of its own, and
    assert [line["id"] for line in read_history(tmp_path / "history.jsonl")] == ["b-3", "b-4", "b-5"]  # rotated


def test_a_history_that_cannot_be_written_is_said_and_the_write_stands(logged_in: Cli) -> None:
    history = logged_in.tmp_path / "state" / "wfctl" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    history.mkdir()  # a folder where the file should be
    r = logged_in("branches", "create", "--name", "History Blocked", "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["name"] == "History Blocked"
    assert r.stderr == (f"wfctl: the write history ({history}) could not be written: is a directory; "
                        "the write was made\n")


def test_an_agency_update_leaves_one_line(cli: Cli, sandbox_factory: Any) -> None:
    server = sandbox_factory()  # its own: the agency is every test's
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    assert _ok(cli("agency", "update", "--phone", "0161 496 0000", "-o", "json"))["phone"] == "0161 496 0000"
    assert _new_lines(cli, 0) == [{"profile": "default", "kind": "agency", "id": "", "verb": "update",  # the one
                                   "fields": {"phone": "0161 496 0000"}}]  # agency of the login: no id of its own
