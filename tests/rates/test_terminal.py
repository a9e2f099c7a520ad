"""`rates list`, `summary` and a plan in a real terminal of 80 and 120 columns: every line fits, every
rate is on the screen once, on its site's line; the reading progress leaves no line wider than the terminal."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.terminal.conftest import run_in_terminal
from wfctl.render.tables import cell_width as width

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
    # names whole, on their row (issue 49: at 80 columns they wrapped); the change gives way first, said so
    row = next(line for line in plan.lines if "Salford Quays" in line)
    assert row.startswith("Pennine Foods Ltd") and "Salford Quays Kitchen" in row, plan.text
    assert any(line.startswith("Kirkgate Retail Group   Briggate Flagship") for line in plan.lines), plan.text
    if columns == 80:
        assert row.split()[-2:] == ["11.85", "12.21"] and "not shown: change; -o wide shows all" in plan.lines
    else:
        assert row.split()[-3:] == ["11.85", "12.21", "+0.36"], plan.text
    assert any(line.startswith("sites to change") and line.endswith("4") for line in plan.lines), plan.text
    assert any(line.split()[:3] == ["Picker", "Packer", "6"] for line in summary.lines), summary.text


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_a_change_over_more_than_10_sites_shows_its_counts_and_asks(cli: Any, seeded: Any,
                                                                    size: tuple[int, int]) -> None:
    """Issue 49: `rates set --all-clients` on a terminal changed 1,070 sites with no plan and no question, where
    `bans add` asks; and `--yes` was refused."""
    import pexpect

    from tests.terminal.conftest import REPO_ROOT, wfctl_command

    rows, columns = size
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    rates = json.loads(cli("rates", "list", "--all-clients", "--skill", "Picker Packer", "-o", "json").stdout)
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    command, prefix = wfctl_command()
    args = ["rates", "set", "--all-clients", "--skill", "Picker Packer", "--to", f"{columns // 40 + 18}.50", "--add-missing",
            "--max-change", "900%"]
    child = pexpect.spawn(command, [*prefix, *args], env=env, encoding="utf-8", timeout=60,
                          dimensions=(rows, columns), cwd=str(cli.tmp_path))
    child.expect(r"Change --skill 'Picker Packer' --to \d+\.50 --add-missing at (\d+) sites\? \[y/N\] ")
    changing = int(child.match.group(1))
    assert changing > 10
    shown = child.before.replace("\r\n", "\n")
    assert f"sites to change                  {changing}\n" in shown, shown
    assert re.search(r"\nPicker Packer +\d+ changed(, \d+ added)?, sum \+", shown), shown  # 80x24 added them
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "Nothing was sent." in child.before.replace("\r\n", "\n").splitlines()
    after = json.loads(cli("rates", "list", "--all-clients", "--skill", "Picker Packer", "-o", "json").stdout)
    assert after == rates  # nothing sent
    yes = run_in_terminal(cli, *args, "--yes", columns=columns, rows=rows)
    assert yes.exit_status == 0, yes.text
    assert not any("[y/N]" in line for line in yes.lines)
    changed = json.loads(cli("rates", "list", "--all-clients", "--skill", "Picker Packer", "-o", "json").stdout)
    assert {rate["hourlyRate"] for rate in changed} == {columns // 40 + 18.5} and len(changed) == changing
