"""`wfctl sites|branches|clients|agency edit` with a scripted editor (tests/edit/editor.py), on the sandbox
(issue 34 §3): what the editor is shown, what wfctl says (a pipe), what the server holds afterwards."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from tests.edit.conftest import as_json, make_site
from tests.fixtures.cli import REPO_ROOT


def _site(wf: Any, site_id: str) -> dict[str, Any]:
    return as_json(wf("sites", "get", site_id, "-o", "json"))


def _colleague(wf: Any, *args: str) -> list[str]:
    """A command the scripted editor runs while the file is open: another wfctl process, the same login."""
    del wf
    return [sys.executable, "-m", "wfctl", *args]


def _env(editor: Any) -> dict[str, str]:
    return {**editor.env, "PYTHONPATH": str(REPO_ROOT)}


def test_the_buffer_is_the_site_as_yaml_and_a_changed_rate_is_sent(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 14.00\n- Picker Packer: 11.50"]]})
    r = wf("sites", "edit", ids["site"], "--yes", "-o", "json", env=editor.env)
    assert r.exit_code == 0, r
    site = _site(wf, ids["site"])
    assert editor.seen(0) == (
        f'# wfctl sites edit: site "{tag} site" ({ids["site"]})\n'
        "# Change the values, save and close: the change is shown and asked for before anything is sent.\n"
        "# One list entry a line: `- <skill>: <rate>`, `- <department>: {contactPerson: <name>}`, `- <worker-id>`.\n"
        "# '' clears a text; a field left out keeps its value; lines starting with # are comments (read-only).\n"
        "# id and clientId cannot change (moving a site is not an edit).\n"
        "# Empty the file to cancel. Until it is sent, `--recover` reopens what you typed.\n"
        f"id: {ids['site']}\n"
        f"clientId: {ids['client']}  # client {tag} client\n"  # by name beside its id, as `sites get` (issue 49)
        f"name: {tag} site\n"
        'address: ""\n'
        'phone: ""\n'
        "email: dock@example.com\n"
        "assessmentRequired: false\n"
        "departments:\n"
        "- Goods In: {contactPerson: Ann Lee, email: ann@example.com}\n"
        "rates:\n"
        "- Forklift Driver: 13.25\n"
        "bannedWorkers:\n"
        "- W-1\n"
        f"# createdOn: {site['createdOn']}\n"
        "# documents: []\n")
    assert r.stderr == (f'site "{tag} site" ({ids["site"]}): 1 field would change\n'
                        "  rate Forklift Driver: 13.25 -> 14.00\n"
                        "  + rate Picker Packer=11.50\n")
    assert as_json(r)["rates"] == site["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 14},
                                                    {"skill": "Picker Packer", "hourlyRate": 11.5}]
    assert site["bannedWorkers"] == ["W-1"] and site["email"] == "dock@example.com"


def test_a_problem_reopens_the_file_with_the_message_above_its_line(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 13.255"],
                              ["email: dock@example.com", "email: not-an-address  # typed by me"]]},
                 {"replace": [["- Forklift Driver: 13.255", "- Forklift Driver: 13.26"],
                              ["email: not-an-address", "email: dock2@example.com"]]})
    r = wf("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 0, r
    reopened = editor.seen(1)
    assert ("# ERROR: email: 'not-an-address' is not an e-mail address\n"
            "email: not-an-address  # typed by me\n") in reopened
    assert ("rates:\n"
            "# ERROR: rates[0].hourlyRate: 13.255 has more than 2 decimals\n"
            "- Forklift Driver: 13.255\n") in reopened
    assert r.stderr.startswith(f'site "{tag} site" ({ids["site"]}): 2 fields would change\n')
    site = _site(wf, ids["site"])
    assert (site["email"], site["rates"]) == ("dock2@example.com", [{"skill": "Forklift Driver", "hourlyRate": 13.26}])


def test_unchanged_is_no_changes_and_emptied_is_cancelled(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    before = _site(wf, ids["site"])
    editor.steps({})
    r = wf("sites", "edit", ids["site"], env=editor.env)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "no changes\n")
    editor.steps({"write": "# nothing\n\n"})
    r = wf("sites", "edit", ids["site"], env=editor.env)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "Edit cancelled (the file was emptied); nothing was sent.\n")
    assert _site(wf, ids["site"]) == before
    r = wf("sites", "edit", ids["site"], "--recover", env=editor.env)
    assert (r.exit_code, r.stderr) == (4, f"error: no unsent edit of site {ids['site']} to recover\n")


def test_moving_a_site_is_refused_and_the_text_is_kept_for_recover(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    other = as_json(wf("clients", "create", "--branch", ids["branch"], "--name", f"{tag} other", "-o", "json"))["id"]
    editor.steps({"replace": [[f"clientId: {ids['client']}", f"clientId: {other}"], ["- W-1", "- W-1\n- W-9"]]}, {})
    r = wf("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 2, r
    assert (f"# ERROR: clientId: moving a site is not an edit (its clientId cannot change here)\n"
            f"clientId: {other}  # client {tag} client\n") in editor.seen(1)  # the person's text, comment and all
    assert r.stderr == ("error: the edit still has 1 problem (clientId: moving a site is not an edit (its clientId "
                        f"cannot change here)); your text is kept: `wfctl sites edit {ids['site']} --recover` "
                        "reopens it\n")
    assert _site(wf, ids["site"])["bannedWorkers"] == ["W-1"]
    kept = list((Path(wf.env["XDG_STATE_HOME"]) / "wfctl" / "edits").rglob("*.yaml"))
    assert len(kept) == 1 and stat.S_IMODE(os.stat(kept[0]).st_mode) == 0o600
    editor.steps({"replace": [[f"clientId: {other}", f"clientId: {ids['client']}"]]})
    r = wf("sites", "edit", ids["site"], "--recover", "--yes", env=editor.env)
    assert r.exit_code == 0, r
    assert "- W-9\n" in editor.seen(0) and "# ERROR: clientId" in editor.seen(0)
    assert _site(wf, ids["site"])["bannedWorkers"] == ["W-1", "W-9"]
    assert not list((Path(wf.env["XDG_STATE_HOME"]) / "wfctl" / "edits").rglob("*.yaml"))


def test_changing_the_id_is_refused(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [[f"id: {ids['site']}", "id: 123"]]}, {})
    r = wf("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 2
    assert "# ERROR: id: the id names the site, it cannot change (moving a site is not an edit)\nid: 123\n" in \
        editor.seen(1)


def test_a_colleagues_change_to_another_field_is_merged_and_said(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"run": [_colleague(wf, "sites", "update", ids["site"], "--email", "new@example.com",
                                     "--add-banned-worker", "W-2")],
                  "replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 14.00"], ["- W-1", "- W-1\n- W-3"]]})
    r = wf("sites", "edit", ids["site"], "--yes", env=_env(editor))
    assert r.exit_code == 0, r
    assert r.stderr == (f'site "{tag} site" ({ids["site"]}): 2 fields would change\n'
                        "  rate Forklift Driver: 13.25 -> 14.00\n"
                        "  + banned worker W-3\n"
                        "  merged, changed on the service since you opened it (kept): "
                        "email: dock@example.com -> new@example.com; + banned worker W-2\n")
    site = _site(wf, ids["site"])
    assert site["email"] == "new@example.com"
    assert site["bannedWorkers"] == ["W-1", "W-3", "W-2"]
    assert site["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 14}]


def test_an_overlap_reopens_with_both_values_and_saving_keeps_mine(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"run": [_colleague(wf, "sites", "update", ids["site"], "--set-rate", "Forklift Driver=15",
                                     "--phone", "0161 496 0000")],
                  "replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 14.00"]]}, {})
    r = wf("sites", "edit", ids["site"], "--yes", env=_env(editor))
    assert r.exit_code == 0, r
    reopened = editor.seen(1)
    assert ("rates:\n"
            "# CONFLICT: rate Forklift Driver was changed on the service since you opened it: theirs Forklift "
            "Driver=15.00; yours is below (save as it is to keep yours)\n"
            "- Forklift Driver: 14.00\n") in reopened
    assert "phone: 0161 496 0000\n" in reopened  # their other change, in the file now
    assert r.stderr == (f'site "{tag} site" ({ids["site"]}) changed on the service while you edited it: '
                        "1 overlapping change; reopening with both values\n"
                        f'site "{tag} site" ({ids["site"]}): 1 field would change\n'
                        "  rate Forklift Driver: 15.00 -> 14.00\n")
    site = _site(wf, ids["site"])
    assert (site["rates"], site["phone"]) == ([{"skill": "Forklift Driver", "hourlyRate": 14}], "0161 496 0000")


def test_force_overwrites_an_overlap_without_reopening(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"run": [_colleague(wf, "sites", "update", ids["site"], "--email", "them@example.com")],
                  "replace": [["email: dock@example.com", "email: me@example.com"]]})
    r = wf("sites", "edit", ids["site"], "--yes", "--force", env=_env(editor))
    assert r.exit_code == 0, r
    assert editor.opened == 1
    assert r.stderr == (f'site "{tag} site" ({ids["site"]}): 1 field would change\n'
                        "  email: them@example.com -> me@example.com\n"
                        "  --force: overwrites the service's change to email\n")
    assert _site(wf, ids["site"])["email"] == "me@example.com"


def test_without_a_terminal_and_without_yes_nothing_is_sent_and_the_text_is_kept(wf: Any, editor: Any,
                                                                                  tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [["- W-1", "- W-4"]]})
    r = wf("sites", "edit", ids["site"], env=editor.env)
    assert r.exit_code == 2
    assert r.stderr == (f'site "{tag} site" ({ids["site"]}): 1 field would change\n'
                        "  - banned worker W-1\n"
                        "  + banned worker W-4\n"
                        f"error: no terminal to ask on; pass --yes (your text is kept: `wfctl sites edit {ids['site']} "
                        "--recover` reopens it)\n")
    assert _site(wf, ids["site"])["bannedWorkers"] == ["W-1"]
    editor.steps({})
    r = wf("sites", "edit", ids["site"], "--recover", "--yes", env=editor.env)
    assert r.exit_code == 0, r
    assert _site(wf, ids["site"])["bannedWorkers"] == ["W-4"]


def test_an_editor_that_fails_sends_nothing(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [["- W-1", "- W-4"]], "exit": 3})
    r = wf("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: the editor ") and r.stderr.endswith(
        f"exited with 3; nothing was sent; your text is kept: `wfctl sites edit {ids['site']} --recover` reopens it\n")
    assert _site(wf, ids["site"])["bannedWorkers"] == ["W-1"]


def test_branches_clients_and_the_agency(wf: Any, editor: Any, tag: str) -> None:
    ids = make_site(wf, tag)
    editor.steps({"replace": [['phone: ""', 'phone: "0113 496 0000"']]})
    r = wf("branches", "edit", ids["branch"], "--yes", "-o", "json", env=editor.env)
    assert as_json(r)["phone"] == "0113 496 0000"
    assert "# id cannot change (moving a branch is not an edit).\n" in editor.seen(0)
    editor.steps({"replace": [[f"branchId: {ids['branch']}", "branchId: elsewhere"]]}, {})
    r = wf("clients", "edit", ids["client"], "--yes", env=editor.env)
    assert r.exit_code == 2
    assert "# ERROR: branchId: moving a client is not an edit (its branchId cannot change here)\n" in editor.seen(1)
    editor.steps({"replace": [["billingAddress: \"\"", "billingAddress: 1 Quay St, Leeds"]]})
    r = wf("clients", "edit", ids["client"], "--yes", "-o", "json", env=editor.env)
    assert as_json(r)["billingAddress"] == "1 Quay St, Leeds"
    editor.steps({"replace": [["workWeekStart: Monday", "workWeekStart: sunday"]]})
    r = wf("agency", "edit", "--yes", "-o", "json", env=editor.env)
    assert as_json(r)["workWeekStart"] == "Sunday"
    assert r.stderr == 'agency "Northwind Staffing": 1 field would change\n  workWeekStart: Monday -> Sunday\n'
    editor.steps({"replace": [["workWeekStart: Sunday", "workWeekStart: Monday"]]})
    assert wf("agency", "edit", "--yes", env=editor.env).exit_code == 0


def test_a_rate_moved_past_max_change_reopens_the_file(wf: Any, editor: Any, tag: str) -> None:
    """Issue 49: `1225.00` typed for `12.25` in an edit was sent, where `rates set` stops at 25%."""
    ids = make_site(wf, tag)
    editor.steps({"replace": [["- Forklift Driver: 13.25", "- Forklift Driver: 1325.00"]]},
                 {"replace": [["- Forklift Driver: 1325.00", "- Forklift Driver: 13.50"]]})
    r = wf("sites", "edit", ids["site"], "--yes", env=editor.env)
    assert r.exit_code == 0, r
    assert ("rates:\n"
            "# ERROR: rates: Forklift Driver 13.25 -> 1325.00 moves the rate by 9900%, more than 25%: a slip? To send "
            f"it on purpose: `wfctl sites edit {ids['site']} --recover --max-change 9900%`\n"
            "- Forklift Driver: 1325.00\n") in editor.seen(1)
    assert _site(wf, ids["site"])["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 13.5}]
    editor.steps({"replace": [["- Forklift Driver: 13.50", "- Forklift Driver: 27.00"]]})
    r = wf("sites", "edit", ids["site"], "--yes", "--max-change", "100%", env=editor.env)
    assert r.exit_code == 0, r  # on purpose
    assert _site(wf, ids["site"])["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 27}]
    r = wf("sites", "edit", ids["site"], "--max-change", "lots")
    assert (r.exit_code, r.stderr) == (2, "error: --max-change 'lots': give a percentage like 25%\n")
