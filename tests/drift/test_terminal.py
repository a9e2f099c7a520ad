"""`diff` and `copy --from-profile` on a real terminal (a pty, 80 and 120 columns): the diff's values cut
to the width (a pipe gets them whole), and the copy's plan, question and answer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.drift.conftest import CLIENT, staged_sites
from tests.fixtures.cli import REPO_ROOT
from tests.terminal.conftest import run_in_terminal, wfctl_command

LONG = ("Unit 17b, The Old Mill Business Park, Canal Side Industrial Estate, Huddersfield Road, Mossley, "
        "Greater Manchester OL5 9BQ")


@pytest.mark.parametrize("columns", [80, 120])
def test_a_diff_on_a_terminal_cuts_long_values_to_the_width(logged_in: Any, tmp_path: Path, columns: int) -> None:
    from tests.drift.test_diff import client_with_sites

    cli = logged_in
    client = client_with_sites(cli, tmp_path)
    path = tmp_path / "long.csv"
    path.write_text(f"name,address\nNorth Yard,{LONG.replace(',', ' ')}\nSouth Yard,2 High St\n"
                    "East Yard,3 High St\n", encoding="utf-8")
    screen = run_in_terminal(cli, "sites", "diff", str(path), "--client", client, columns=columns, rows=40)
    assert screen.exit_status == 1, screen.text
    line = next(line for line in screen.lines if line.startswith("  address: "))
    assert len(line) <= columns and line.endswith("…"), line
    assert line.startswith("  address: 1 High St -> Unit 17b ")
    assert screen.lines[-5:-1] == ["only in the file     0", "changed              1", "only in the service  0",
                                   "the same             2"], screen.text
    piped = cli("sites", "diff", str(path), "--client", client)
    assert f"  address: 1 High St -> {LONG.replace(',', ' ')}\n" in piped.stdout  # a pipe: whole


def _spawn_copy(cli: Any, columns: int, *args: str) -> Any:
    pexpect = pytest.importorskip("pexpect")
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    command, prefix = wfctl_command()
    return pexpect.spawn(command, [*prefix, "sites", "copy", "--from-profile", "staging", "--client", CLIENT, *args],
                         env=env, encoding="utf-8", timeout=60, dimensions=(40, columns), cwd=str(cli.tmp_path))


@pytest.mark.parametrize("columns", [80, 120])
def test_copy_on_a_terminal_shows_the_plan_and_asks(two: Any, columns: int) -> None:
    pexpect = pytest.importorskip("pexpect")
    cli = two
    changed, _ = cli.names
    before = staged_sites(cli, "default")
    child = _spawn_copy(cli, columns)
    child.expect_exact("Make these changes in profile default? [y/N]: ")
    shown = child.before.replace("\r\n", "\n")
    assert f"update  {changed}" in shown and "create  Staging Only Depot" in shown, shown
    assert "address: " in shown and "-> 1 Staging Way" in shown
    child.sendline("n")
    child.expect_exact("Nothing was sent.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert staged_sites(cli, "default") == before

    child = _spawn_copy(cli, columns)
    child.expect_exact("[y/N]: ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    tail = child.before.replace("\r\n", "\n")
    assert "created 1, updated 1" in tail, tail
    after = staged_sites(cli, "default")
    assert after[changed]["address"] == "1 Staging Way" and "Staging Only Depot" in after
    assert os.path.basename(json.loads(cli("imports", "list", "-o", "json").stdout)[0]["file"]) == (
        "staging-sites-Pennine-Foods-Ltd.csv")


@pytest.mark.parametrize("columns", [80, 120])
def test_copy_and_diff_show_the_read_of_the_other_profile(two: Any, columns: int) -> None:
    """Issue 49: a copy read the other profile's sites with a blank screen; it shows export's progress line."""
    import re

    from tests.messages.helpers import screen_lines

    cli = two
    count = len(staged_sites(cli, "staging"))
    for args in (("sites", "copy", "--from-profile", "staging", "--client", CLIENT, "--dry-run"),
                 ("sites", "diff", "--from-profile", "staging", "--client", CLIENT)):
        screen = run_in_terminal(cli, *args, columns=columns, rows=40)
        assert screen.exit_status in (0, 1), screen.text
        read = [line for line in screen_lines(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.text))
                if line.startswith("reading sites of profile staging  ") and f"{count}/{count}" in line]
        assert read and all(len(line) < columns for line in read), screen.text


@pytest.mark.parametrize("columns", [80, 120])
def test_a_copys_summary_leaves_out_the_time_at_its_question(two: Any, columns: int) -> None:
    """Issue 49: a summary never counts the seconds a person took to answer (as `rates set`)."""
    import re
    import time

    pexpect = pytest.importorskip("pexpect")
    child = _spawn_copy(two, columns)
    child.expect_exact("[y/N]: ")
    time.sleep(4)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    text = " ".join(child.before.replace("\r\n", "\n").split())
    seconds = re.search(r"run \S+: \d+ rows in ([0-9.]+)s ", text)
    assert seconds and float(seconds.group(1)) < 4, text
