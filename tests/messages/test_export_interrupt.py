"""Issue 49: Ctrl-C during `export -f FILE` said `interrupted` and nothing of the file. It says what became of
it: not written, or the file there left as it was (an export is written under a temporary name and renamed
when complete). Pressed in a real terminal while a slow service is read."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.messages.helpers import finish, new_client, screen_lines, spawn

pexpect = pytest.importorskip("pexpect")


@pytest.mark.parametrize(("there", "output"), [(False, []), (True, ["-o", "json"])], ids=["new-csv", "existing-json"])
def test_ctrl_c_during_an_export_to_a_file_says_what_became_of_the_file(
        cli: Any, sandbox_factory: Any, tmp_path: Path, there: bool, output: list[str]) -> None:
    service = sandbox_factory()
    assert cli.login_as(service.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client_id, _, _ = new_client(cli)
    rows = tmp_path / "sites.csv"
    rows.write_text("name\n" + "".join(f"Export site {i:04d}\n" for i in range(200)), encoding="utf-8")
    assert cli("sites", "import", str(rows), "--client", client_id, "-o", "json").exit_code == 0
    out = tmp_path / ("out.json" if output else "out.csv")
    if there:
        out.write_text("what was there\n", encoding="utf-8")
    service.behaviour.change(latency_ms=300)  # each site is read whole: about 4 s for 200 sites
    seen = len(service.journal.records())
    child = spawn(cli, "sites", "export", "--client", client_id, "-f", str(out), *output)
    deadline = time.monotonic() + 60
    while not any("/sites/" in r.path and r.path.rstrip("/").rsplit("/", 1)[-1] != "sites"
                  for r in service.journal.records()[seen:]):  # a site read whole: the export is under way
        assert time.monotonic() < deadline and child.isalive(), child.before
        time.sleep(0.05)
    child.sendintr()
    status, text = finish(child)
    lines = [line for line in screen_lines(text) if line.strip()]
    assert status == 130, lines
    said = f"interrupted: {out} was {'left as it was' if there else 'not written'} (an export stopped part-way writes no file)"
    if output:  # -o json on the command line: the error as JSON
        assert json.loads(lines[-1].removeprefix("^C"))["error"]["title"] == said, lines
    else:
        assert lines[-1] == f"error: {said}", lines
    assert out.exists() == there and (not there or out.read_text(encoding="utf-8") == "what was there\n")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(out.name) and p != out] == []
