"""bulk raises its own errors (`wfctl.files.errors`), not the CLI's CliError (issue 22 §2: bulk holds no CLI
code); the error boundary shows them as it showed the CliError they were: the same line, exit code and
JSON error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wfctl import errors
from wfctl.exit_codes import ExitCode
from wfctl.files.errors import BulkError, FileError, RunNotFound


def test_an_input_file_that_is_not_there(logged_in: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.csv"
    r = logged_in("branches", "import", str(missing))
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {missing}: no such file\n")


@pytest.mark.parametrize("where", ["global", "command"])
def test_an_input_file_that_is_not_there_as_a_json_error(logged_in: Any, tmp_path: Path, where: str) -> None:
    """-o json before the group or after the command: the error is the one JSON envelope either way (the
    command's own -o had not reached the context when its file failed to open)."""
    missing = tmp_path / "nosuch.csv"
    words = ["branches", "import", str(missing)]
    r = logged_in("-o", "json", *words) if where == "global" else logged_in(*words, "-o", "json")
    assert r.exit_code == 2, r
    assert json.loads(r.stderr) == {"error": {"status": None, "code": "usage", "title": f"{missing}: no such file",
                                              "detail": None, "errors": {}}}


def test_a_bad_delimiter(logged_in: Any, tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("name\nA\n")
    r = logged_in("branches", "import", str(path), "--delimiter", "ab")
    assert (r.exit_code, r.stderr) == (2, "error: --delimiter takes one character, e.g. ';' or ','\n")


def test_a_file_that_cannot_be_made_keeps_its_title(logged_in: Any) -> None:
    """/proc takes no new file, not even root's: the export stops before its first request, exit 2, and
    its JSON error's title is the kind of problem ("cannot write file"), the detail the line."""
    r = logged_in("-o", "json", "branches", "export", "--file", "/proc/wfctl-nosuch.csv")
    assert r.exit_code == 2, r
    assert json.loads(r.stderr) == {"error": {
        "status": None, "code": "usage", "title": "cannot write file",
        "detail": "cannot write /proc/wfctl-nosuch.csv: No such file or directory", "errors": {}}}


def test_a_run_not_found_exits_4_and_names_the_profile(logged_in: Any) -> None:
    """The `wfctl ...` command a message suggests keeps the profile in use, for bulk's errors too."""
    r = logged_in("-p", "default", "imports", "show", "999999-000000")
    assert (r.exit_code, r.stderr) == (4, "error: no run '999999-000000' in this profile "
                                          "(`wfctl -p default imports list` shows the runs)\n")


def test_the_boundary_maps_every_bulk_error_as_the_cli_error_it_was() -> None:
    for exc in (BulkError("bad"), FileError("f: no such file"), RunNotFound("no run", ExitCode.NOT_FOUND),
                FileError("cannot write f: Disk full", ExitCode.FAILURE, title="cannot write file")):
        cli = errors.CliError(exc.message, exc.exit_code, title=exc.title)
        assert (errors.exit_code_for(exc), errors.message_for(exc), errors.envelope_for(exc)) == \
            (errors.exit_code_for(cli), errors.message_for(cli), errors.envelope_for(cli))
