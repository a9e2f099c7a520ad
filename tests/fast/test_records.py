"""The record verbs' run halves with recorded streams: what `delete` and `get` write for a program and for a
person at a terminal (the terminal's own tests, in a real pty, are tests/messages/test_prompts.py and
tests/terminal/)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.pages.helpers import add_client
from wfctl.drivers.recordrun import DeleteOptions, GetOptions, run_delete, run_get


def new_site(service: Any, client_id: str) -> tuple[str, str]:
    name = f"Dock 4 {uuid.uuid4().hex[:6]}"
    return str(service.client().create_site(client_id, {"name": name})["id"]), name


def test_json_and_pipe_output_of_delete_are_unchanged(service: Any, run: Any) -> None:
    """Moved from tests/messages/test_prompts.py (issue 46): a pipe's and a program's view of a delete."""
    client_id, _ = add_client(service, 0)
    (site, _), (other, _) = new_site(service, client_id), new_site(service, client_id)
    r = run(run_delete, DeleteOptions, kind="site", record_id=site, yes=True, format="json")
    assert (r.exit_code, json.loads(r.stdout)) == (0, {"status": "success", "message": "site deleted"})
    r = run(run_delete, DeleteOptions, kind="site", record_id=other, yes=True)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "site deleted\n", "")


def test_no_at_the_prompt_keeps_the_record_and_says_so(service: Any, run: Any) -> None:
    client_name = f"Pennine {uuid.uuid4().hex[:6]}"
    client_id, _ = add_client(service, 0, name=client_name)
    site, name = new_site(service, client_id)
    r = run(run_delete, DeleteOptions, kind="site", record_id=site, tty=True, stdin="n\n")
    assert (r.exit_code, r.stdout) == (2, ""), r
    question, answer = r.stderr.split("? [y/N]: ")
    assert question == f'Delete site "{name}" ({site[:8]}…) of client {client_name}', r.stderr
    assert answer == "Not deleted.\n"  # the user's answer: no "error:" line
    assert service.client().get_record("site", site)["name"] == name
    r = run(run_delete, DeleteOptions, kind="site", record_id=site, stdin="y\n")  # no terminal to ask on
    assert (r.exit_code, r.stderr) == (2, f"error: refusing to delete site {site} without confirmation: no "
                                          "terminal to ask on; pass --yes\n"), r


def test_get_on_a_terminal_names_the_parent_and_a_pipe_gets_the_record(service: Any, run: Any) -> None:
    client_id, _ = add_client(service, 0, name=f"Pennine {uuid.uuid4().hex[:6]}")
    site, name = new_site(service, client_id)
    shown = run(run_get, GetOptions, kind="site", record_id=site, tty=True, width=80)
    piped = run(run_get, GetOptions, kind="site", record_id=site)
    assert shown.exit_code == piped.exit_code == 0, (shown, piped)
    assert (shown.requests, piped.requests) == (2, 1)  # the client's name: one GET more, for a person
    assert "client name          Pennine " in shown.stdout and "client name" not in piped.stdout, shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80, shown.stdout
    assert name in piped.stdout
