"""`wfctl sites edit` in a real terminal (80x24 and 120x40) with a real editor: vi, the default when neither
$VISUAL nor $EDITOR is set, driven by pexpect as a person types; the change asked for, then sent."""

from __future__ import annotations

import re
import shutil
from typing import Any

import pytest

from tests.edit.conftest import as_json, make_site
from tests.messages.helpers import SIZES, finish, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")

IDS = ["80x24", "120x40"]
#: What vi leaves of its screen handling as it ends (keypad and modifier modes too: `ESC >`, `ESC [>4;m`).
_CODES = re.compile(r"\x1b\[[0-9;?>]*[A-Za-z]|\x1b[>=]|\x1b\][^\x07]*\x07")
NO_EDITOR = {"EDITOR": "", "VISUAL": ""}


@pytest.fixture(autouse=True)
def _vi() -> None:
    if not shutil.which("vi"):
        pytest.skip("no vi on this machine")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_vi_changes_a_rate_and_the_change_is_asked_for(wf: Any, tag: str, size: tuple[int, int]) -> None:
    ids = make_site(wf, tag)
    child = spawn(wf, "sites", "edit", ids["site"], size=size, env=NO_EDITOR)
    child.expect_exact("opening vi (set $EDITOR or $VISUAL to use another editor)")
    child.expect_exact("13.25")  # vi shows the buffer (coloured: the words apart)
    child.send(":%s/13\\.25/14.00/\r")
    child.send(":wq\r")
    child.expect_exact("Apply? [y/N]: ")
    shown = screen_lines(_CODES.sub("", child.before))
    child.sendline("y")
    status, text = finish(child)
    assert status == 0, text
    assert shown[-3:] == [f'site "{tag} site" ({ids["site"]}): 1 field would change',
                          "  rate Forklift Driver: 13.25 -> 14.00", ""], shown
    lines = screen_lines(text)  # then the site as `sites update` prints it
    assert lines[lines.index("rates (1)"):lines.index("rates (1)") + 4] == [
        "rates (1)", "skill             hourly rate", "─" * 29, "Forklift Driver   14.00"], text
    site = as_json(wf("sites", "get", ids["site"], "-o", "json"))
    assert site["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 14}]


def _answered(child: Any, answer: str) -> tuple[int, str]:
    """`answer` at the edit's `Apply? [y/N]` prompt; the command's exit status and all it showed."""
    child.expect_exact("Apply? [y/N]: ")
    child.sendline(answer)
    return finish(child)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_no_at_the_prompt_keeps_the_text_and_recover_reopens_it(wf: Any, tag: str, size: tuple[int, int]) -> None:
    ids = make_site(wf, tag)
    child = spawn(wf, "sites", "edit", ids["site"], size=size, env=NO_EDITOR)
    child.expect_exact("W-1")
    child.send(":%s/- W-1/- W-1\\r- W-42/\r")
    child.send(":wq\r")
    status, text = _answered(child, "n")
    assert status == 2, text
    assert screen_lines(text)[-2:] == [f"Not changed; your text is kept: `wfctl sites edit {ids['site']} --recover` "
                                       "reopens it.", ""], text
    assert as_json(wf("sites", "get", ids["site"], "-o", "json"))["bannedWorkers"] == ["W-1"]
    child = spawn(wf, "sites", "edit", ids["site"], "--recover", size=size, env=NO_EDITOR)
    child.expect_exact("W-42")  # what was typed, reopened
    child.send(":wq\r")
    child.expect_exact("  + banned worker W-42")
    status, text = _answered(child, "y")
    assert status == 0, text
    assert as_json(wf("sites", "get", ids["site"], "-o", "json"))["bannedWorkers"] == ["W-1", "W-42"]
