"""The planner and runner alone, against an in-memory API (the sandbox tests drive the real thing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bulk.fake_api import FakeApi
from wfctl.bulk.importer import Importer, Options, ValidationStopped
from wfctl.bulk.journal import Journal
from wfctl.bulk.reader import CsvInput

DATA = Path(__file__).parent / "data"


def make(api: FakeApi, path: Path, tmp_path: Path, **kw: object) -> Importer:
    opts = Options(kind="site", journal_path=str(tmp_path / "journal"), target=api.base_url, **kw)  # type: ignore[arg-type]
    return Importer(api, CsvInput(str(path)), opts)


def write(tmp_path: Path, text: str, name: str = "in.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_invalid_cell_is_listed_with_row_and_column(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Acme")
    importer = make(api, DATA / "invalid_cells.csv", tmp_path, parent_id=cid)
    with pytest.raises(ValidationStopped) as info:
        importer.validate()
    problems = {(p.row, p.column) for p in info.value.summary.problems}
    expected = {(1, "name"), (2, "email"), (3, "assessmentRequired"), (4, "rates"), (5, "rates"), (6, "rates"),
                (7, "rates"), (8, "rates"), (9, "departments"), (10, "departments"), (11, "departments"),
                (12, "bannedWorkers"), (13, "bannedWorkers"), (14, "rates"), (15, "address"), (16, "name"),
                (17, ""), (19, "name")}
    assert expected <= problems, expected - problems
    assert info.value.summary.invalid == 18
    assert not any(c.startswith("create") for c in api.calls)
    messages = [str(p) for p in info.value.summary.problems]
    assert "row 6 (line 7), column rates: [0].hourlyRate: 1.005 has more than 2 decimals" in messages
    assert any("is already row 18" in m for m in messages)


def test_unknown_column_stops_before_rows(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Acme")
    with pytest.raises(ValidationStopped) as info:
        make(api, DATA / "unknown_column.csv", tmp_path, parent_id=cid).validate()
    assert [p.column for p in info.value.summary.problems] == ["colour"]


def test_client_by_name_and_unknown_names(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Harbour Foods")
    importer = make(api, DATA / "client_by_name.csv", tmp_path)
    importer.validate()
    summary = importer.run()
    assert summary.counts["created"] == 2
    assert {s["clientId"] for s in api.sites.values()} == {cid}
    path = write(tmp_path, "client,name\nNobody Ltd,A\n")
    with pytest.raises(ValidationStopped) as info:
        make(api, path, tmp_path).validate()
    assert "no client is named 'nobody ltd'" in str(info.value.summary.problems[0])


def test_plan_create_update_unchanged(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Acme")
    api.create_site(cid, {"name": "Same", "rates": [{"skill": "a", "hourlyRate": 1}]})
    api.create_site(cid, {"name": "Changed", "phone": "1"})
    path = write(tmp_path, "name,phone,rates\nSame,,a=1.00\nchanged,2,\nNew,,\n")
    importer = make(api, path, tmp_path, parent_id=cid, on_existing="update", dry_run=True)
    importer.validate()
    summary = importer.run()
    assert (summary.counts["created"], summary.counts["updated"], summary.counts["unchanged"]) == (1, 1, 1)
    assert len(api.sites) == 2  # a dry run sends nothing
    statuses = [status for _, status, _, _ in importer.outcomes()]
    assert statuses == ["unchanged", "update", "create"]


def test_lost_answer_is_found_by_natural_key_not_sent_twice(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Acme")
    api.lose_answers = {"B"}
    path = write(tmp_path, "name\nA\nB\nC\n")
    importer = make(api, path, tmp_path, parent_id=cid, concurrency=2)
    importer.validate()
    summary = importer.run()
    assert summary.counts["created"] == 3
    assert sorted(s["name"] for s in api.sites.values()) == ["A", "B", "C"]
    assert api.calls.count("create B") == 1


def test_resume_from_journal_and_rerun_creates_nothing(tmp_path: Path) -> None:
    api = FakeApi()
    cid = api.add_client("Acme")
    path = write(tmp_path, "name\n" + "".join(f"S{i}\n" for i in range(50)))
    first = make(api, path, tmp_path, parent_id=cid)
    first.validate()
    # Simulate a run killed after 20 rows: a journal with 20 outcomes and no end line.
    header = {"file": first.source.sha256, "kind": "site", "target": api.base_url, "parent": cid,
              "onExisting": "skip"}
    journal = Journal(str(tmp_path / "journal"), header, 50, resume=False)
    for row in range(1, 21):
        site = api.create_site(cid, {"name": f"S{row - 1}"})
        journal.record(row, "created", site["id"])
    journal.finish(complete=False)
    api.calls.clear()
    resumed = make(api, path, tmp_path, parent_id=cid)
    resumed.validate()
    summary = resumed.run()
    assert summary.resumed == 20
    assert summary.counts["created"] == 50
    assert len([c for c in api.calls if c.startswith("create")]) == 30
    assert len(api.sites) == 50
    again = make(api, path, tmp_path, parent_id=cid)
    again.validate()
    summary = again.run()
    assert summary.counts["skipped"] == 50 and summary.counts["created"] == 0
    assert len(api.sites) == 50
