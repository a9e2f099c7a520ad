"""Issue 24 §3: long runs a person can watch, in a real terminal (80x24 and 120x40): the undo's progress
(done/total, ETA), an export's total and ETA and no progress line left behind when `| head` closes the
pipe."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.messages.helpers import SIZES, finish, new_client, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")


def _sites_csv(path: Path, count: int, prefix: str = "Watched site") -> Path:
    path.write_text("name,address\n" + "".join(f"{prefix} {i:04d},{i} Mill Lane\n" for i in range(count)),
                    encoding="utf-8")
    return path


def _import(cli: Any, csv: Path, client_id: str, *extra: str) -> str:
    r = cli("sites", "import", str(csv), "--client", client_id, "-o", "json", *extra)
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["run"])


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_undo_shows_the_imports_progress(logged_in: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "watched-sites.csv", 120), client_id)
    status, text = finish(spawn(logged_in, "imports", "undo", run, "--yes", size=size))
    assert status == 0, text
    lines = screen_lines(text)
    final = [line for line in lines if "120/120" in line]
    assert final, text
    line = final[-1]
    assert line.startswith("undoing watched-sites.csv  ") and line.endswith("  ETA 0:00:00"), line
    assert "  not undone 0  " in line and len(line) < size[1], line
    assert lines[-2 if lines[-1] == "" else -1].endswith("deleted 120 sites")
    r = logged_in("sites", "list", "--client", client_id, "-o", "json")
    assert json.loads(r.stdout) == []


def test_undo_in_a_pipe_writes_no_live_line(logged_in: Any, tmp_path: Path) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "piped.csv", 30), client_id)
    r = logged_in("imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(": deleted 30 sites")
    assert "━" not in r.stderr and "\r" not in r.stderr


def test_undo_of_rows_changed_since_names_them_and_counts_them_not_undone(logged_in: Any, tmp_path: Path) -> None:
    client_id, _, _ = new_client(logged_in)
    run = _import(logged_in, _sites_csv(tmp_path / "changed.csv", 20), client_id)
    sites = json.loads(logged_in("sites", "list", "--client", client_id, "--all", "-o", "json").stdout)
    changed = next(s for s in sites if s["name"] == "Watched site 0007")
    assert logged_in("sites", "update", changed["id"], "--phone", "0161 496 0000").exit_code == 0
    status, text = finish(spawn(logged_in, "imports", "undo", run, "--yes", size=(24, 80)))
    assert status == 10, text
    lines = screen_lines(text)
    assert any(line.startswith("row 8  ") and "Watched site 0007" in line for line in lines), text
    assert any("20/20" in line and "  not undone 1  " in line for line in lines), text
    assert any(line.endswith("deleted 19 sites, 1 changed since the run") for line in lines), text


def test_export_piped_to_head_leaves_no_progress_line(logged_in: Any, tmp_path: Path) -> None:
    """`sites export | head -2` on a terminal: head ends the pipe early; the live line is erased."""
    client_id, _, _ = new_client(logged_in)
    _import(logged_in, _sites_csv(tmp_path / "many.csv", 400), client_id)
    env = dict(logged_in.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env.pop("COLUMNS", None)
    command = f"{sys.executable} -m wfctl sites export --client {client_id} --concurrency 1 | head -2"
    child = pexpect.spawn("/bin/bash", ["-c", command], env=env, encoding="utf-8", timeout=60,
                          cwd=str(logged_in.tmp_path), dimensions=(24, 80))
    child.expect(pexpect.EOF)
    child.close()
    raw = child.before or ""
    assert "name," in raw and "Watched site " in raw, raw
    assert "exporting sites" in raw, raw  # it was drawn (400 sites, read one at a time) ...
    tail = raw[raw.rindex("exporting sites"):]
    assert "\x1b[2K" in tail, repr(tail[-300:])  # ... and the last thing done to it is to erase it
