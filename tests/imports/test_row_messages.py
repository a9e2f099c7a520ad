"""Issue 49: an import's invalid rows say each cause once with the rows it holds for, not 50 copies of one
300-character message; a cell with two problems reports both; a client a row names is echoed as written,
with the nearest name the service holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fixtures.sandbox import ADMIN


def test_one_message_per_cause_with_its_rows_and_the_client_as_written(cli: Any, sandbox: Any,
                                                                     tmp_path: Path) -> None:
    assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
    path = tmp_path / "sites.csv"
    rows = [f"Dock {i},Pennine Food Ltd,1 Road,01234,a@b.test\n" for i in range(60)]
    path.write_text("name,client,address,phone,email\n" + "".join(rows)
                    + "Dock X,Pennine Foods Ltd,1 Road,0123,not an email\n", encoding="utf-8")
    for verb in ("import", "diff"):
        r = cli("sites", verb, str(path), *(["--all-clients"] if verb == "diff" else []))
        assert (r.exit_code, r.stdout) == (2, ""), r
        lines = r.stderr.splitlines()
        # the first 50 problems are listed, and past them the first row of a cause not listed yet
        assert lines[:2] == [
            "invalid: rows 1-50 (lines 2-51), column client: no client is named 'Pennine Food Ltd'; did you mean "
            "'Pennine Foods Ltd'?",
            "invalid: row 61 (line 62), column email: 'not an email' is not an e-mail address",
        ], r.stderr
        if verb == "import":
            assert lines[2:] == [
                "... and 10 more invalid rows (--report FILE lists every one)",
                "error: 61 of 61 rows are invalid; nothing was sent (fix them in the file and run again, or use "
                "--skip-invalid to import the others)"], r.stderr
    r = cli("sites", "import", str(path), "-o", "json")  # a script still gets every problem listed, one a row
    assert r.exit_code == 2


def test_a_client_name_no_row_is_near_is_echoed_as_written(cli: Any, sandbox: Any, tmp_path: Path) -> None:
    assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
    path = tmp_path / "sites.csv"
    path.write_text("name,client,address\nDock 1,Zebra HOLDINGS Plc,1 Road\n", encoding="utf-8")
    r = cli("sites", "import", str(path))
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == "invalid: row 1 (line 2), column client: no client is named 'Zebra HOLDINGS Plc'"


def test_a_cell_with_two_problems_reports_both(cli: Any, sandbox: Any, tmp_path: Path) -> None:
    """An e-mail cell both too long and not an address said only the first (the length)."""
    assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
    path = tmp_path / "sites.csv"
    path.write_text(f"name,client,address,email\nDock 1,Pennine Foods Ltd,1 Road,{'x' * 201}\n", encoding="utf-8")
    r = cli("sites", "import", str(path))
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[0] == (f"invalid: row 1 (line 2), column email: is longer than 200 characters; "
                                        f"'{'x' * 59}…' is not an e-mail address")
    r = cli("sites", "create", "--client", "Pennine Foods Ltd", "--name", "Dock 1", "--email", "y" * 201)
    assert (r.exit_code, r.stderr) == (2, f"error: --email: is longer than 200 characters; '{'y' * 59}…' is not an "
                                          "e-mail address\n"), r
