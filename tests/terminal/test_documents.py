"""A document for a program, shown on a terminal: a plan's or a run's `-o json` (written a row at a time,
so that memory stays flat) is laid out exactly as every other JSON document on a terminal (indent 2), and
a pipe gets the same document compact."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.terminal.conftest import run_in_terminal


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("rows", [2, 0], ids=["two rows", "no row"])
def test_a_plan_on_a_terminal_is_indented_as_every_document(wf: Any, long_records: dict[str, str],
                                                            tmp_path: Path, rows: int, columns: int) -> None:
    sheet = tmp_path / "sites.csv"
    sheet.write_text("name,address,phone,email\n" + "".join(
        f"Plan Layout {n},{n} Mill Lane,+44 161 496 70{n:02d},plan{n}@example.test\n" for n in range(rows)))
    argv = ["sites", "import", str(sheet), "--client", long_records["client"], "--dry-run", "-o", "json"]
    piped = wf(*argv)
    assert piped.exit_code == 0, piped
    document = json.loads(piped.stdout)
    assert len(document["rows"]) == rows
    assert piped.stdout == json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n"

    screen = run_in_terminal(wf, columns=columns, rows=24 if columns == 80 else 40, shell=f"wfctl {shlex.join(argv)} 2>/dev/null")
    assert screen.exit_status == 0, screen.text
    shown = json.loads(screen.text)  # the same plan (its summary's timings are this run's)
    assert shown["rows"] == document["rows"] and shown["summary"].keys() == document["summary"].keys()
    assert screen.text == json.dumps(shown, indent=2, ensure_ascii=False) + "\n"
