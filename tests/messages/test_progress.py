"""Issue 15 §2: the import's progress keeps done/total, failed and the ETA at 80 columns (the bar gives
way first); export shows its progress on a terminal, and nothing in a pipe. Seen in a real pty."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.messages.helpers import SIZES, finish, new_client, screen_lines, spawn
from wfctl.render.progress import layout

pexpect = pytest.importorskip("pexpect")

LINE = dict(label="importing sites-3025.csv", done=1192, total=3025, ok=1190, failed=2, rate=131.4, elapsed=9.1)


def _shown(width: int, **values: Any) -> str:
    parts = layout(width, **{**LINE, **values})
    return "  ".join("━" * int(text) if kind == "bar" else text for kind, text in parts)


def test_at_80_columns_the_bar_goes_first_and_total_failed_eta_stay_whole() -> None:
    assert _shown(79) == "importing sites-3025.csv  1192/3025  131 rows/s  ok 1190  failed 2  ETA 0:00:14"


def test_at_120_columns_everything_shows_with_a_bar() -> None:
    line = _shown(119)
    assert line.startswith("importing sites-3025.csv  ━━━━━━━━━━")
    assert line.endswith("  1192/3025  131 rows/s  ok 1190  failed 2  0:00:09  ETA 0:00:14")
    assert len(line) <= 119


def test_skipped_rows_are_counted_apart_from_ok() -> None:
    """Issue 36: 3,000 rows all skipped (their records exist) showed `ok 3000  failed 0`, as if all were sent."""
    from wfctl.render.progress import Progress

    assert _shown(79, ok=0, skipped=1192, failed=0) == ("importing sites-3025.csv  1192/3025  ok 0  skipped 1192  "
                                                         "failed 0  ETA 0:00:14")  # the rate gives way first
    progress = Progress("importing x.csv", terminal=False)
    progress.start(3)
    for status in ("skipped", "skipped", "created"):
        progress.advance(status)
    assert (progress.ok, progress.skipped, progress.failed) == (1, 2, 0)
    assert ", ok 1, skipped 2, failed 0, " in progress.line()


def test_a_narrow_terminal_shortens_the_label_last() -> None:
    assert _shown(50) == "importing sites…  1192/3025  failed 2  ETA 0:00:14"
    assert _shown(35) == "1192/3025  failed 2  ETA 0:00:14"


def _sites_csv(path: Path, count: int) -> Path:
    path.write_text("name\n" + "".join(f"Progress site {i:04d}\n" for i in range(count)), encoding="utf-8")
    return path


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_import_progress_in_a_real_terminal(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    csv = _sites_csv(tmp_path / "sites-for-the-progress-test.csv", 300)
    status, text = finish(spawn(logged_in, "sites", "import", str(csv), "--client", client_id, size=size))
    assert status == 0, text
    final = [line for line in screen_lines(text) if "300/300" in line]
    assert final, text
    line = final[-1]
    assert len(line) < size[1], line
    assert line.startswith("importing sites-for-the-progress-test.csv  ")
    assert "  300/300  " in line and "  failed 0  " in line and line.endswith("  ETA 0:00:00"), line
    if size[1] == 120:
        assert "━━━━━━━━━━" in line and " rows/s  ok 300  " in line, line


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_export_progress_in_a_real_terminal(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    assert logged_in("sites", "import", str(_sites_csv(tmp_path / "s.csv", 40)), "--client", client_id,
                     "-o", "json").exit_code == 0
    out = tmp_path / "out.csv"
    status, text = finish(spawn(logged_in, "sites", "export", "--client", client_id, "-f", str(out), size=size))
    assert status == 0, text
    shown = [line for line in screen_lines(text) if line.startswith("exporting sites  ")]
    assert shown, text
    assert "  40/40  " in shown[-1] and shown[-1].endswith("  ETA 0:00:00"), shown[-1]  # the total: 1st page
    assert len(shown[-1]) < size[1]
    assert "exported 40 sites" in screen_lines(text)
    assert out.read_text(encoding="utf-8-sig").count("Progress site") == 40


def test_export_in_a_pipe_shows_no_progress(logged_in: Any, tmp_path: Path) -> None:
    client_id, _, _ = new_client(logged_in)
    assert logged_in("sites", "import", str(_sites_csv(tmp_path / "s.csv", 3)), "--client", client_id,
                     "-o", "json").exit_code == 0
    r = logged_in("sites", "export", "--client", client_id)
    assert r.exit_code == 0, r
    assert r.stderr == ""
    assert r.stdout.count("Progress site") == 3


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_a_real_import_over_existing_records_shows_its_planning(logged_in: Any, tmp_path: Path,
                                                                size: tuple[int, int]) -> None:
    """Issue 36: an import over existing sites plans first (for spreadsheet damage) and showed nothing while it
    did (12-16 s for 3,000 sites: it looked like a hang); now a `planning` line, then the import's own."""
    client_id, _, _ = new_client(logged_in)
    csv = _sites_csv(tmp_path / "existing.csv", 120)
    assert logged_in("sites", "import", str(csv), "--client", client_id, "-o", "json").exit_code == 0
    edited = tmp_path / "edited.csv"
    edited.write_text("name,address\n" + "".join(f"Progress site {i:04d},{i} Dock Road\n" for i in range(120)),
                      encoding="utf-8")
    status, text = finish(spawn(logged_in, "sites", "import", str(edited), "--client", client_id,
                                "--on-existing", "update", size=size))
    assert status == 0, text
    lines = screen_lines(text)
    planning = [i for i, line in enumerate(lines) if line.startswith("planning edited.csv  ") and "120/120" in line]
    importing = [i for i, line in enumerate(lines) if line.startswith("importing edited.csv  ") and "120/120" in line]
    assert planning and importing and planning[-1] < importing[0], text


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_ctrl_c_leaves_no_stale_progress_line(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """Issue 36: after Ctrl-C a stale `ETA 0:00:18` line stayed above the final one; the error says how far."""
    import time

    client_id, _, _ = new_client(logged_in)
    csv = _sites_csv(tmp_path / "stopped.csv", 3000)
    child = spawn(logged_in, "sites", "import", str(csv), "--client", client_id, "-j", "1", size=size)
    child.expect("importing stopped.csv")
    time.sleep(1.0)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    screen: list[str] = []  # the lines a terminal keeps: a line the cursor went up to and erased is gone
    for line in child.before.replace("\r\n", "\n").split("\n"):
        if "\x1b[1A" in line and screen:
            screen.pop()
        screen.append(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).split("\r")[-1])
    lines = [line for line in screen if line.strip()]
    assert lines[-1].startswith("error: interrupted: ") and " of 3000 rows done; " in lines[-1], lines
    assert not any("ETA" in line for line in lines), lines
