"""The edit and export run halves as plain functions (issue 46): `wfctl.drivers.editing.edit(app, EditOptions)`
and `wfctl.drivers.exportrun.run_export(app, ...)` called with recorded streams (TestIO) and an in-process
client, no click, no process of wfctl. Their end-to-end tests (a real editor in a pty, exports over a socket,
Ctrl-C) are tests/edit/ and tests/pages/test_streaming.py."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.pages.helpers import add_client

EDITOR = Path(__file__).resolve().parents[1] / "edit" / "editor.py"


@pytest.fixture
def app(service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An AppContext with recorded streams and the in-process client; config and state under tmp_path."""
    from wfctl.context import AppContext, GlobalOptions
    from wfctl.render.streams import TestIO

    for key in ("WFCTL_PROFILE", "WFCTL_OUTPUT", "WFCTL_CSV", "VISUAL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("WFCTL_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    context = AppContext(GlobalOptions())
    context.io = TestIO()
    context.client = service.client()
    return context


def _editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *steps: dict[str, Any]) -> None:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(list(steps)), encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {EDITOR} {path}")


def test_an_edit_is_a_plain_function_of_its_options(service: Any, app: Any, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from wfctl.commands.output_options import OutputOptions
    from wfctl.drivers.editing import EditOptions, edit

    client_id, _ = add_client(service, 0)
    name = f"Quay {uuid.uuid4().hex[:6]}"
    site = service.client().create_site(client_id, {"name": name})
    _editor(tmp_path, monkeypatch, {"replace": [[f"name: {name}", f"name: {name} East"]]})
    code = edit(app, EditOptions("site", name, OutputOptions(format="json"), yes=True, scope=client_id,
                                 offered=frozenset({"--client"})))
    assert code == 0, app.io.err
    assert json.loads(app.io.out)["name"] == f"{name} East"
    assert service.client().get_record("site", site["id"])["name"] == f"{name} East"  # what the server holds


def test_no_at_the_edits_question_sends_nothing_and_keeps_the_text(service: Any, app: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from wfctl.commands.output_options import OutputOptions
    from wfctl.drivers.editing import EditOptions, edit
    from wfctl.errors import CliError, report
    from wfctl.render.streams import TestIO

    client_id, _ = add_client(service, 0)
    name = f"Quay {uuid.uuid4().hex[:6]}"
    site = service.client().create_site(client_id, {"name": name})
    app.io = TestIO("n\n", tty=True)
    _editor(tmp_path, monkeypatch, {"replace": [[f"name: {name}", "name: Elsewhere"]]})
    with pytest.raises(CliError) as raised:
        edit(app, EditOptions("site", site["id"], OutputOptions()))
    assert report(raised.value, json_mode=False, stream=app.io.stderr) == 2
    assert app.io.err.endswith(f"Not changed; your text is kept: `wfctl sites edit {site['id']} --recover` "
                               "reopens it.\n"), app.io.err  # the answer, said: no `error:` line after it
    assert "error:" not in app.io.err
    assert service.client().get_record("site", site["id"])["name"] == name


def test_an_export_writes_to_the_ios_stdout(service: Any, app: Any) -> None:
    from wfctl.drivers.exportrun import run_export

    client_id, _ = add_client(service, 0)
    names = sorted(f"Dock {i} {uuid.uuid4().hex[:6]}" for i in range(3))
    for name in names:
        service.client().create_site(client_id, {"name": name})
    assert run_export(app, "site", parent_ids=[client_id], all_parents=False, file=None, concurrency=2) == 0
    lines = app.io.out.splitlines()
    assert lines[0].split(",")[:3] == ["id", "clientId", "name"], lines[0]
    assert sorted(line.split(",")[2] for line in lines[1:]) == names
    assert app.io.err == ""  # the closing note is a terminal's (`note`), never a pipe's
