"""Journal entries are keyed by action (issue 46): a file row of an import (`"r"`), or an action on a record
(`"k"`: kind, record id, verb). Journals of the old form, where `rates set`, `bans`, `sites edit --client`
and a prune's deletes were journalled under row numbers made up for them, still read, resume and undo:
each old line is read as the action it was (the reader of wfctl.runs.journalentry). A `rates set` of the
old form resumes and undoes in tests/rates/test_old_header.py; a prune's here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.bulk.test_prune import held, pruned_two_of_four
from wfctl.runs import journal
from wfctl.runs.journalentry import ActionKey

RATES = {"journal": 2, "kind": "site", "file": "rates:" + "a" * 40, "path": "rates set --by +1% --client C",
         "command": "rates set", "target": "http://127.0.0.1:1", "profile": "default", "parent": "",
         "onExisting": "update", "undo": None, "run": "261127-aaaaaa", "nonce": "00" * 8,
         "started": "2026-11-27T10:00:00Z"}


def _write(path: Path, header: dict[str, Any], lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *lines]), encoding="utf-8")


def test_an_old_form_command_run_and_its_undo_read_as_actions_on_records(tmp_path: Path) -> None:
    changes: dict[str, list[Any]] = {"rates": [[], [{"skill": "Picker", "hourlyRate": 12}]]}
    run = tmp_path / "261127-aaaaaa.journal"
    _write(run, RATES, [{"r": 1, "s": "sending", "id": "s-1", "c": changes},
                        {"r": 1, "s": "updated", "id": "s-1", "n": "Depot", "c": changes},
                        {"r": 2, "s": "sending", "id": "s-2", "c": changes}])
    _, entries, end = journal.read(str(run))
    assert end is None
    assert list(entries) == [ActionKey("site", "s-1", "update"), ActionKey("site", "s-2", "update")]
    assert [(e.status, e.id, e.row) for e in entries.values()] == [("updated", "s-1", 0), ("sending", "s-2", 0)]

    resumed = journal.Journal.resume(str(run))
    assert resumed.resumed == 1 and resumed.was_sending(ActionKey("site", "s-2", "update"))
    resumed.record(ActionKey("site", "s-2", "update"), "updated", "s-2", name="Yard", changes=changes)
    resumed.finish({"updated": 2})
    last = json.loads(run.read_text(encoding="utf-8").splitlines()[-2])
    assert last["k"] == ["site", "s-2", "update"] and "r" not in last  # what it appends is of the new form
    _, entries, end = journal.read(str(run))
    assert end is not None and [e.status for e in entries.values()] == ["updated", "updated"]

    # an old undo of it: its intent line names no record (its outcome does), one action all the same
    undo = tmp_path / "261128-bbbbbb.journal"
    _write(undo, {**RATES, "run": "261128-bbbbbb", "undo": RATES["run"]},
           [{"r": 2, "s": "sending"}, {"r": 2, "s": "undone", "id": "s-2", "n": "Yard"}, {"r": 1, "s": "sending"}])
    _, entries, _ = journal.read(str(undo))
    assert {key: e.status for key, e in entries.items()} == {ActionKey("site", "s-2", "update"): "undone",
                                                              ActionKey("site", "#1", "update"): "sending"}


def test_an_imports_file_rows_keep_their_numbers_and_a_prunes_deletes_are_actions(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    header = {**RATES, "file": "b" * 64, "path": "sites.csv", "command": ""}
    del header["command"]
    _write(path, header, [{"r": 2, "s": "created", "id": "s-9", "n": "New"},
                          {"r": 4, "s": "sending", "x": "delete", "id": "s-7", "n": "Old", "c": {"name": ["Old", None]}},
                          {"k": ["site", "s-8", "delete"], "s": "deleted", "id": "s-8", "n": "Older"}])
    _, entries, _ = journal.read(str(path))
    assert [(key, e.action) for key, e in entries.items()] == [
        (2, ""), (ActionKey("site", "s-7", "delete"), "delete"), (ActionKey("site", "s-8", "delete"), "delete")]


def test_an_old_form_prune_stopped_mid_way_resumes_and_undoes(logged_in: Any, tmp_path: Path) -> None:
    """A prune journalled by an earlier version (its deletes under rows after the file's, marked "x"),
    killed after its intents: the run resumes it (nothing deleted twice), and undo re-creates both."""
    cli = logged_in
    cid, names, path, run_journal, lines = pruned_two_of_four(cli, tmp_path)
    header, numbers, old = lines[0], dict[str, int](), []
    for line in lines[1:]:
        if line.get("end") or ("k" in line and line["s"] == "deleted"):
            continue  # killed after its intents: the end line and the deletes' outcomes never written
        if "k" in line:
            kind, record_id, verb = line.pop("k")
            assert (kind, verb, line["id"]) == ("site", "delete", record_id)
            line.update(r=numbers.setdefault(record_id, 3 + len(numbers)), x="delete")  # after the 2 file rows
        old.append(line)
    assert len(numbers) == 2
    _write(run_journal, header, old)

    r = cli("sites", "import", str(path), "--client", cid, "--prune", "--yes", "--journal", str(run_journal),
            "-o", "json")
    assert r.exit_code == 0, r
    summary = json.loads(r.stdout)
    assert summary["deleted"] == 2, r  # both went through before the kill: recorded, not sent again
    assert sorted(held(cli, cid)) == names[:2]

    runs = Path(cli.tmp_path, "state", "wfctl", "runs", "default")  # where `imports undo` finds runs
    runs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run_journal, runs / f"{summary['run']}.journal")
    r = cli("imports", "undo", summary["run"], "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.strip().endswith("re-created 2 sites (with new ids)"), r.stderr
    assert sorted(held(cli, cid)) == names
