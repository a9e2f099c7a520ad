"""RunRecord (issue 46): the one header type of every journalled run. Each header shape wfctl has written
(an import, a plan, an undo, `rates set` and its undo, `bans add --note`, `sites edit --client`) reads
back and writes out as it was, and keeps the resume and lock key and the identity (Idempotency-Keys) that
the hand-built header dicts had; the headers written now key a change as those did."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from wfctl.runs.journal import idempotency_key
from wfctl.runs.session import RunRecord

SHA = "add232f743a7df6aa3722a3262a8b58fdf2ca547723b08971a513899a4939da5"
BASE = {"journal": 2, "kind": "site", "target": "http://127.0.0.1:43103", "profile": "default", "parent": "",
        "onExisting": "update", "undo": None, "run": "261127-19f30c", "nonce": "79d04d0e128dd472",
        "started": "2026-11-27T18:54:59Z"}
RATES_WHAT = "--skill Picker --set 12.50 --client Acme"
RATES_SHA = hashlib.sha256(RATES_WHAT.encode()).hexdigest()[:40]

# The headers earlier versions wrote (tests/imports/legacy holds two imports' journals).
SHAPES: dict[str, dict[str, Any]] = {
    "import": {**BASE, "file": SHA, "path": "/tmp/legacy/out/sites.csv", "onExisting": "skip",
               "parent": "859c4b53-de25-4048-a020-d6a85073b5aa"},
    "plan": {**BASE, "file": SHA, "path": "sites.csv", "run": "", "nonce": ""},
    "undo": {"journal": 2, "kind": "site", "file": SHA, "path": "sites.csv", "target": BASE["target"], "parent": "",
             "onExisting": "update", "run": "261128-aaaaaa", "nonce": "00" * 8, "profile": "default",
             "started": "2026-11-28T09:00:00Z", "undo": "261127-19f30c"},
    "rates": {**BASE, "file": f"rates:{RATES_SHA}", "path": f"rates set {RATES_WHAT}", "command": "rates set"},
    "rates undo": {"journal": 2, "kind": "site", "file": f"rates:{RATES_SHA}", "path": f"rates set {RATES_WHAT}",
                   "target": BASE["target"], "parent": "", "onExisting": "update", "run": "261128-bbbbbb",
                   "nonce": "11" * 8, "profile": "default", "started": "2026-11-28T09:00:00Z", "undo": "261127-19f30c"},
    "bans": {**BASE, "file": "bans-add:" + "c" * 40, "path": "bans add W-1 --client Acme", "command": "bans add",
             "note": "after the incident"},
    "edit": {**BASE, "file": "edit:client-42:261127-19f30c", "path": "sites edit --client 42", "command": "sites edit"},
    # a start time in seconds (runs.py reads it) and a key of a later version: kept as they were
    "seconds": {**BASE, "file": SHA, "path": "sites.csv", "started": 1764000000, "later": {"x": 1}},
}


def _old_key(header: dict[str, Any]) -> str:
    """The resume and lock key as the hand-built headers had it."""
    parts = [str(header.get(k) or "") for k in ("kind", "file", "target", "parent", "onExisting", "undo")]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:20]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_header_shape_round_trips_with_its_key_and_identity(shape: str) -> None:
    header = SHAPES[shape]
    record = RunRecord.from_json(header)
    assert record.to_json() == header
    assert RunRecord.from_json(record.to_json()) == record
    assert record.key() == _old_key(header)
    assert record.identity == str(header.get("file") or "")
    old_seed = f"{header.get('nonce', '')}:{header.get('file', '')}:site:p-1:7"
    assert idempotency_key(record, "site", "p-1", 7) == "wfctl-import-" + hashlib.sha256(old_seed.encode()).hexdigest()[:40]


def test_a_command_run_names_its_change_and_keys_it_as_before() -> None:
    record = RunRecord.of_command("rates set", RATES_WHAT, kind="site", target=BASE["target"], profile="default")
    assert record.to_json() == {"journal": 2, "kind": "site", "change": RATES_SHA, "command": "rates set",
                                "path": f"rates set {RATES_WHAT}", "target": BASE["target"], "profile": "default",
                                "parent": "", "onExisting": "update", "undo": None, "run": "", "nonce": "",
                                "started": ""}
    assert record.key() == RunRecord.from_json(SHAPES["rates"]).key()  # an earlier version's unfinished run resumes
    started = record.started_now("261207-abcdef")
    assert (started.run, len(started.nonce), started.key()) == ("261207-abcdef", 16, record.key())
    assert RunRecord.from_json(started.to_json()) == started


def test_an_undo_keys_as_the_undo_an_earlier_version_started() -> None:
    run = RunRecord.from_json(SHAPES["rates"])
    undo = run.undo_of("261128-bbbbbb", "default")
    assert undo.undo == "261127-19f30c" and undo.note == ""
    assert undo.key() == RunRecord.from_json(SHAPES["rates undo"]).key()
    new_run = RunRecord.of_command("rates set", RATES_WHAT, kind="site", target=BASE["target"], profile="default")
    assert new_run.started_now("261127-19f30c").undo_of("261128-cccccc", "default").key() == undo.key()
