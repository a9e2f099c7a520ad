"""Issue 24 §2: `python3 dev.py tour` on a terminal shows what wfctl shows on that terminal: tables fitted to
its width with the paging footer, not the pipe format whose long lines the terminal wraps (at 80x24 and
120x40, in a pty)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.messages.helpers import SIZES, finish, screen_lines

REPO = Path(__file__).resolve().parents[2]
pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", SIZES)
def test_the_tour_shows_terminal_tables(tmp_path: Path, size: tuple[int, int]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_") and k != "COLUMNS"}
    env.update(TMPDIR=str(tmp_path), PYTHONPATH=str(REPO), TERM="xterm-256color", NO_COLOR="1",
               WFCTL_SANDBOX_TEST_SCRYPT_N=os.environ.get("WFCTL_SANDBOX_TEST_SCRYPT_N", "1024"))
    child = pexpect.spawn(sys.executable, [str(REPO / "examples" / "tour.py")], env=env, encoding="utf-8",
                          timeout=300, cwd=str(tmp_path), dimensions=size)
    code, shown = finish(child)
    assert code == 0, shown[-3000:]
    lines = screen_lines(shown)
    columns = size[1]
    too_long = [line for line in lines  # the command lines and the test's long temporary paths aside
                if len(line) > columns and not line.startswith("$ wfctl ") and str(tmp_path) not in line]
    assert not too_long, "\n".join(too_long)  # was: the pipe format, its long lines wrapped by the terminal
    assert any(line.startswith("page 1 of ") and "; more: --page 2, or --all" in line for line in lines), shown
    assert any(line and set(line) == {"─"} for line in lines)  # a terminal table's rule, not the pipe format
