"""Issue 32 §2 in a real terminal (80x24 and 120x40): `import --prune` lists every delete and the counts
before it asks; "n" (or Enter) sends nothing, "y" deletes and says so."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import write
from tests.messages.helpers import SIZES, finish, new_client, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")

IDS = ["80x24", "120x40"]
CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def sites_of(cli: Any, client_id: str) -> dict[str, str]:
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return {site["name"]: site["id"] for site in json.loads(r.stdout)}


@pytest.fixture
def scope(logged_in: Any, tmp_path: Path) -> dict[str, Any]:
    """A client holding Dock 1-4, and a file that keeps Dock 1-3."""
    client_id, client_name, _ = new_client(logged_in, f"Prune Prompt {uuid.uuid4().hex[:6]}")
    r = logged_in("sites", "import", str(write(tmp_path / "all.csv", "name\nDock 1\nDock 2\nDock 3\nDock 4\n")),
                  "--client", client_id)
    assert r.exit_code == 0, r
    return {"id": client_id, "name": client_name, "sites": sites_of(logged_in, client_id),
            "file": str(write(tmp_path / "kept.csv", "name\nDock 1\nDock 2\nDock 3\n"))}


@pytest.mark.parametrize("answer", ["n", ""], ids=["n", "enter"])
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_prune_lists_every_delete_then_asks_and_no_sends_nothing(logged_in: Any, scope: dict[str, Any],
                                                                     size: tuple[int, int], answer: str) -> None:
    child = spawn(logged_in, "sites", "import", scope["file"], "--client", scope["id"], "--prune", size=size)
    child.expect_exact(f"Delete 1 site of client {scope['name']}? [y/N] ")
    shown = screen_lines(CSI.sub("", child.before))
    gone = scope["sites"]["Dock 4"]
    assert shown[-4:] == [f"delete  Dock 4  ({gone})", f"  in client {scope['name']}",
                          f"prune: 1 of 4 sites in client {scope['name']} to delete", ""], shown
    child.sendline(answer)
    status, text = finish(child)
    assert status == 2, text
    assert screen_lines(text)[-2:] == ["Nothing was sent.", ""], text
    assert "error" not in text
    assert sorted(sites_of(logged_in, scope["id"])) == ["Dock 1", "Dock 2", "Dock 3", "Dock 4"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_yes_deletes_and_the_run_says_so(logged_in: Any, scope: dict[str, Any], size: tuple[int, int]) -> None:
    child = spawn(logged_in, "sites", "import", scope["file"], "--client", scope["id"], "--prune", size=size)
    child.expect_exact("? [y/N] ")
    child.sendline("y")
    status, text = finish(child)
    assert status == 0, text
    last = " ".join(line.strip() for line in screen_lines(text) if line.strip())
    assert "deleted 1, skipped (exist) 3" in last, text
    assert sorted(sites_of(logged_in, scope["id"])) == ["Dock 1", "Dock 2", "Dock 3"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_time_at_the_question_is_no_part_of_the_run(logged_in: Any, scope: dict[str, Any],
                                                        size: tuple[int, int]) -> None:
    """Issue 49: the run's time and rate left out the seconds a person took to answer, as `rates set` does."""
    import time

    child = spawn(logged_in, "sites", "import", scope["file"], "--client", scope["id"], "--prune", size=size)
    child.expect_exact("? [y/N] ")
    time.sleep(4)
    child.sendline("y")
    status, text = finish(child)
    assert status == 0, text
    last = " ".join(line.strip() for line in screen_lines(text) if line.strip())
    seconds = re.search(r": 4 rows in ([0-9.]+)s ", last)  # the file's 3 and the delete
    assert seconds and float(seconds.group(1)) < 4, last
