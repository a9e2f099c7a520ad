"""--columns and --jq in a real terminal (issue 34 §2), at 80x24 and 120x40: the headers asked for, one
line a record, nothing wider than the terminal; a query's plain values one a line as `jq -r` prints them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.terminal.conftest import LONG_SITE, run_in_terminal
from tests.terminal.test_tables import SIZES, width


@pytest.mark.parametrize("size", SIZES)
def test_columns_and_a_query_on_a_terminal(wf: Any, long_records: dict[str, str], size: tuple[int, int]) -> None:
    rows, columns = size
    screen = run_in_terminal(wf, "sites", "list", "--client", long_records["client"], "--columns",
                             "Site=name,Forklift=rate:Forklift Driver,Banned=banned:count,Phone=phone",
                             columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    assert all(width(line) <= columns for line in screen.lines), screen.text
    header = next(line for line in screen.lines if line.startswith("Site"))
    assert header.split() == ["Site", "Forklift", "Banned", "Phone"], screen.text
    row = next(line for line in screen.lines if line.startswith(LONG_SITE))
    assert row.split() == [*LONG_SITE.split(), "0", "+44", "161", "496", "9001"], screen.text  # no forklift rate
    screen = run_in_terminal(wf, "sites", "list", "--client", long_records["client"], "--jq", ".[] | .name",
                             columns=columns, rows=rows)
    assert (screen.exit_status, screen.lines[:1]) == (0, [LONG_SITE]), screen.text
