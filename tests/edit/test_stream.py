"""`wfctl sites edit --client`: every site of a client in one YAML stream, sent as a journalled run that
`wfctl imports undo` takes back; and an edit on a deployment whose PUT clears what it leaves out (G13)."""

from __future__ import annotations

import re
from typing import Any

from tests.edit.conftest import as_json, make_site
from tests.fixtures.sandbox import ADMIN


def test_every_site_of_a_client_in_one_stream_is_one_undoable_run(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    second = as_json(wf("sites", "create", "--client", ids["client"], "--name", f"{tag} yard", "--rate",
                        "Forklift Driver=12.00", "-o", "json"))["id"]
    editor.steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 13.75"],
                              ["- Forklift Driver: 12.00", "- Forklift Driver: 12.50\n- Cleaner: 11.00"]]})
    r = wf("sites", "edit", "--client", f"{tag} client", "--yes", env=editor.env)
    assert r.exit_code == 0, r
    seen = editor.seen(0)
    assert seen.startswith(f'# wfctl sites edit: the 2 sites of client "{tag} client" ({ids["client"]})\n')
    assert seen.count("\n---\n") == 2 and f"---\nid: {ids['site']}\n" in seen and f"---\nid: {second}\n" in seen
    assert "# A site left out of the stream is left as it is.\n" in seen
    assert seen.count(f"\nclientId: {ids['client']}  # client {tag} client\n") == 2  # by name (issue 49)
    lines = r.stderr.splitlines()
    first = (f'site "{tag} site" ({ids["site"]}): 1 field would change\n'
             "  rate Forklift Driver: 13.25 -> 13.75\n")
    other = (f'site "{tag} yard" ({second}): 1 field would change\n'
             "  rate Forklift Driver: 12.00 -> 12.50\n"
             "  + rate Cleaner=11.00\n")
    in_stream_order = [first, other] if seen.index(ids["site"]) < seen.index(second) else [other, first]
    assert r.stderr == "".join(in_stream_order) + lines[-1] + "\n"
    assert re.fullmatch(r"run (\S+): 2 sites in \d+\.\ds: updated 2 \(undo: wfctl imports undo \1\)", lines[-1]), r
    run = lines[-1].split()[1].rstrip(":")
    assert as_json(wf("sites", "get", second, "-o", "json"))["rates"] == [
        {"skill": "Forklift Driver", "hourlyRate": 12.5}, {"skill": "Cleaner", "hourlyRate": 11}]
    listed = as_json(wf("imports", "list", "-o", "json"))
    assert [(row["run"], row["file"], row["counts"]) for row in listed if row["run"] == run] == [
        (run, f"sites edit --client {ids['client']}", {"updated": 2, "unchanged": 0, "skipped": 0, "failed": 0})]
    r = wf("imports", "undo", run, "--yes")
    assert r.exit_code == 0, r
    assert as_json(wf("sites", "get", second, "-o", "json"))["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 12}]
    assert as_json(wf("sites", "get", ids["site"], "-o", "json"))["rates"] == [
        {"skill": "Forklift Driver", "hourlyRate": 13.25}]


def test_a_stream_refuses_a_site_of_another_client_and_merges_each_site(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    env = {**editor.env}
    import sys

    from tests.fixtures.cli import REPO_ROOT

    env["PYTHONPATH"] = str(REPO_ROOT)
    editor.steps({"replace": [[f"id: {ids['site']}", "id: not-a-site-here"]]},
                 {"run": [[sys.executable, "-m", "wfctl", "sites", "update", ids["site"], "--add-banned-worker", "W-7"]],
                  "replace": [["\nid: not-a-site-here\n", f"\nid: {ids['site']}\n"], ["- W-1", "- W-1\n- W-8"]]})
    r = wf("sites", "edit", "--client", ids["client"], "--yes", "-o", "json", env=env)
    assert r.exit_code == 0, r
    assert ("# ERROR: id: not-a-site-here is not one of this client's sites (an edit creates and moves nothing)\n"
            "id: not-a-site-here\n") in editor.seen(1)
    summary = as_json(r)
    assert {k: summary[k] for k in ("sites", "updated", "unchanged", "skipped", "failed")} == {
        "sites": 1, "updated": 1, "unchanged": 0, "skipped": 0, "failed": 0}
    assert as_json(wf("sites", "get", ids["site"], "-o", "json"))["bannedWorkers"] == ["W-1", "W-8", "W-7"]


def test_on_a_put_clearing_deployment_an_edit_loses_nothing(cli: Any, sandbox_factory: Any, editor: Any,
                                                           tag: str) -> None:
    odd = sandbox_factory(quirks=["put-clears"])
    assert cli.login_as(odd.url, *ADMIN).exit_code == 0
    ids = make_site(cli, tag)
    editor.steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 14.00"]]})
    r = cli("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 0, r
    site = as_json(cli("sites", "get", ids["site"], "-o", "json"))
    assert (site["rates"], site["email"], site["bannedWorkers"], site["name"]) == (
        [{"skill": "Forklift Driver", "hourlyRate": 14}], "dock@example.com", ["W-1"], f"{tag} site")
    assert [d["name"] for d in site["departments"]] == ["Goods In"]
    editor.steps({"replace": [["email: dock@example.com", "email: yard@example.com"]]})
    r = cli("sites", "edit", "--client", ids["client"], "--yes", env=editor.env)
    assert r.exit_code == 0, r
    site = as_json(cli("sites", "get", ids["site"], "-o", "json"))
    assert (site["rates"], site["email"], site["bannedWorkers"]) == (
        [{"skill": "Forklift Driver", "hourlyRate": 14}], "yard@example.com", ["W-1"])


def test_a_client_without_sites_has_nothing_to_edit(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    empty = as_json(wf("clients", "create", "--branch", ids["branch"], "--name", f"{tag} empty", "-o", "json"))["id"]
    editor.steps({})
    r = wf("sites", "edit", "--client", empty, env=editor.env)
    assert (r.exit_code, r.stderr) == (4, f'error: nothing to edit: client "{tag} empty" ({empty}) has no sites\n')
    assert editor.opened == 0
