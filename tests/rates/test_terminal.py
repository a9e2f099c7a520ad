"""`rates list`, `summary` and a plan in a real terminal of 80 and 120 columns: every line fits, every
rate is on the screen once, on its site's line; the reading progress leaves no line wider than the terminal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.terminal.conftest import run_in_terminal
from wfctl.tables import cell_width as width

SIZES = [(24, 80), (40, 120)]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.fixtures.sandbox import own_sandbox

    yield from own_sandbox(tmp_path_factory, "rates-terminal")


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_rates_list_fits_the_terminal(cli: Any, seeded: Any, size: tuple[int, int]) -> None:
    rows, columns = size
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    expected = json.loads(cli("rates", "list", "--client", "Pennine Foods Ltd", "-o", "json").stdout)
    screen = run_in_terminal(cli, "rates", "list", "--client", "Pennine Foods Ltd", columns=columns, rows=rows)
    assert screen.exit_status == 0, screen.text
    for line in screen.lines:
        assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"
    assert screen.lines[0].split() == ["client", "site", "skill", "hourlyRate"]
    for rate in expected:
        on_screen = [line for line in screen.lines if rate["site"] in line and rate["skill"] in line]
        assert len(on_screen) == 1, (rate, screen.text)
        assert on_screen[0].endswith(f"{rate['hourlyRate']:.2f}"), on_screen[0]
    assert "ids of clients and sites: -o wide, csv or json" in screen.lines


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_a_plan_and_a_summary_fit_the_terminal(cli: Any, seeded: Any, size: tuple[int, int]) -> None:
    rows, columns = size
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    plan = run_in_terminal(cli, "rates", "set", "--all-clients", "--skill", "Picker Packer", "--floor", "12.21",
                           "--dry-run", columns=columns, rows=rows)
    summary = run_in_terminal(cli, "rates", "summary", "--all-clients", columns=columns, rows=rows)
    for screen in (plan, summary):
        assert screen.exit_status == 0, screen.text
        for line in screen.lines:
            assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"
    row = next(line for line in plan.lines if "Salford Quays" in line)  # a long name may fold in its cell
    assert row.split()[-3:] == ["11.85", "12.21", "+0.36"], plan.text
    assert any(line.startswith("sites to change") and line.endswith("4") for line in plan.lines), plan.text
    assert any(line.split()[:3] == ["Picker", "Packer", "6"] for line in summary.lines), summary.text
