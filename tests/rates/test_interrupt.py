"""Issue 49: Ctrl-C in `rates set` leaves no stale progress line on a terminal (80 and 120 columns), while
it reads the sites and while it changes them: the last line says how far it got, and nothing above it
shows a count or an ETA that no longer moves."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import write
from tests.messages.helpers import SIZES, new_client, spawn

pexpect = pytest.importorskip("pexpect")

SITES = 300


def _screen(text: str) -> list[str]:
    """The lines a terminal keeps: a line the cursor went up to and erased is gone."""
    screen: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if "\x1b[1A" in line and screen:
            screen.pop()
        screen.append(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).split("\r")[-1])
    return [line for line in screen if line.strip()]


@pytest.fixture
def slow_client(cli: Any, sandbox_factory: Any, tmp_path: Path) -> str:
    slow = sandbox_factory(latency_ms=60)
    assert cli.login_as(slow.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id, _, _ = new_client(cli, f"Ctrl-C {uuid.uuid4().hex[:6]}")
    rows = "".join(f"Site {i:03d},Picker=12.00\n" for i in range(SITES))
    r = cli("sites", "import", str(write(tmp_path / "s.csv", "name,rates\n" + rows)), "--client", client_id, "-j", "16")
    assert r.exit_code == 0, r
    return client_id


def _stopped(child: Any) -> list[str]:
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    return _screen(child.before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_ctrl_c_while_reading_the_sites_leaves_no_count(cli: Any, slow_client: str, size: tuple[int, int]) -> None:
    child = spawn(cli, "rates", "set", "--client", slow_client, "--skill", "Picker", "--by", "+1%", "--yes",
                  size=size)
    child.expect("reading sites")
    lines = _stopped(child)
    assert lines == ["interrupted"], lines


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_ctrl_c_while_changing_the_sites_leaves_no_bar(cli: Any, slow_client: str, size: tuple[int, int]) -> None:
    child = spawn(cli, "rates", "set", "--client", slow_client, "--skill", "Picker", "--by", "+1%", "--yes",
                  "-j", "1", size=size)
    runs = cli.tmp_path / "state" / "wfctl" / "runs" / "default"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # some sites changed, most not yet
        journal = next((p for p in runs.glob("*.journal") if '"command": "rates set"' in p.read_text()), None)
        if journal is not None and journal.read_text().count('"s": "updated"') >= 3:
            break
        time.sleep(0.02)
    lines = _stopped(child)
    said = re.fullmatch(rf"error: interrupted: (\d+) of {SITES} sites done; run the same command again to resume",
                        lines[-1])
    assert said and 3 <= int(said.group(1)) < SITES, lines
    assert lines[:-1] == ["reading sites  300 sites  " + lines[0].split("  ", 2)[2]], lines  # the read, done
    assert not any("ETA" in line or "changing rates" in line for line in lines), lines
    r = cli("rates", "list", "--client", slow_client, "-o", "json")
    changed = [rate for rate in json.loads(r.stdout) if rate["hourlyRate"] != 12.0]
    assert 3 <= len(changed) <= int(said.group(1)) + 1
