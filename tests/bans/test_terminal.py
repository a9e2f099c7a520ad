"""`wfctl bans` in a real terminal of 80 and 120 columns: `where`, `list` and a plan fit; a run changing more
than 10 sites asks first (no sends nothing, exit 2; yes sends), its question on one line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.terminal.conftest import REPO_ROOT, run_in_terminal, wfctl_command
from wfctl.render.tables import cell_width as width

SIZES = [(24, 80), (40, 120)]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.fixtures.sandbox import own_sandbox

    yield from own_sandbox(tmp_path_factory, "bans-terminal")


def fits(screen: Any, columns: int) -> None:
    assert screen.exit_status == 0, screen.text
    for line in screen.lines:
        assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_where_list_and_a_plan_fit_the_terminal(cli: Any, seeded: Any, size: tuple[int, int]) -> None:
    rows, columns = size
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    listed = json.loads(cli("bans", "list", "--all-clients", "-o", "json").stdout)
    worker = listed[0]["worker"]
    where = run_in_terminal(cli, "bans", "where", worker, columns=columns, rows=rows)
    fits(where, columns)
    assert where.lines[0].split() == ["worker", "site", "client", "branch"]
    assert "ids of sites, clients and branches: -o wide, csv or json" in where.lines
    bans = run_in_terminal(cli, "bans", "list", "--client", "Pennine Foods Ltd", columns=columns, rows=rows)
    fits(bans, columns)
    assert any(line.split()[-4:] == ["1", "of", "5", "yes"] and worker in line for line in bans.lines), bans.text
    plan = run_in_terminal(cli, "bans", "add", worker, "--client", "Pennine Foods Ltd", "--dry-run",
                           columns=columns, rows=rows)
    fits(plan, columns)
    assert [line.split()[-1] for line in plan.lines if worker in line].count("add") == 4, plan.text
    assert "sites to change  4" in plan.lines


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_a_run_over_more_than_10_sites_asks_first(cli: Any, seeded: Any, size: tuple[int, int]) -> None:
    pexpect = pytest.importorskip("pexpect")
    rows, columns = size
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    worker = f"W-{columns}X"
    total = len(json.loads(cli("sites", "export", "--all-clients", "-o", "json").stdout))
    assert total > 10
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    command, prefix = wfctl_command()
    question = f"Ban {worker} at {total} sites? [y/N] "
    for answer, status in (("n", 2), ("y", 0)):
        child = pexpect.spawn(command, [*prefix, "bans", "add", worker, "--all-clients"], env=env, encoding="utf-8",
                              timeout=60, dimensions=(rows, columns), cwd=str(cli.tmp_path))
        child.expect_exact(question)
        before = child.before.replace("\r\n", "\n")
        assert before.endswith(f"bans add: {total} of {total} sites to change (0 unchanged)\n"), before
        assert width(question) <= columns
        banned = json.loads(cli("bans", "where", worker, "-o", "json").stdout)
        assert banned == []  # nothing sent while it asks
        child.sendline(answer)
        child.expect(pexpect.EOF)
        child.close()
        after = (child.before or "").replace("\r\n", "\n")
        assert child.exitstatus == status, after
        banned = json.loads(cli("bans", "where", worker, "-o", "json").stdout)
        if answer == "n":
            assert "Nothing was sent." in after.splitlines()
            assert banned == []
        else:
            assert "sites in " in after and f"updated {total}" in after, after
            assert len(banned) == total
    r = cli("bans", "add", f"W-PIPED-{columns}", "--all-clients")  # no terminal to ask on: sent, as rates set sends
    assert r.exit_code == 0 and r.stderr.endswith(f"updated {total}\n"), r
