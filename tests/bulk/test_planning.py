"""Planning is a value (issue 31 §2): a plan built from a CSV file and an inventory held in memory, with
no server, says each row's action, its problems, and reads the inventory it was given, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from wfctl.files.reader import CsvInput
from wfctl.plans.importplan import Inventory
from wfctl.runs.importer import Importer, Options


class NoServer:
    """A Client that must not be asked anything: the plan reads only its inventory."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the plan asked the service ({name})")


def inventory_of(client: str, *records: dict[str, object]) -> Inventory:
    """What a client holds, as a plan is given it (read: the planner reads nothing more)."""
    inventory = Inventory(parents={f"id:{client}": client}, parent_names={client: "Acme"}, read=True)
    for record in records:
        inventory.add(client, record)
    return inventory


def test_a_plan_from_a_file_and_an_inventory_says_each_rows_action(tmp_path: Path) -> None:
    client = "c-1"
    inventory = inventory_of(client, {"id": "s-1", "clientId": client, "name": "Leeds Depot", "address": "1 Old St"},
                             {"id": "s-2", "clientId": client, "name": "York Depot", "address": "2 Old St"})
    path = tmp_path / "sites.csv"
    path.write_text("name,address\nLeeds Depot,1 New St\nHull Depot,3 New St\nYORK DEPOT ,2 Old St\n,4 New St\n",
                    encoding="utf-8")
    with CsvInput(str(path)) as source:
        importer = Importer(NoServer(), source, Options(kind="site", parent_id=client, on_existing="update", skip_invalid=True),
                            inventory=inventory)
        try:
            summary = importer.validate()
            plan = importer.plan()
            rows = [(p.row, p.action, p.parent_id, (p.existing or {}).get("id"), p.body.get("name"))
                    for p in plan.rows()]
        finally:
            importer.release()
    assert rows == [(1, "update", client, "s-1", "Leeds Depot"),
                    (2, "create", client, None, "Hull Depot"),
                    (3, "update", client, "s-2", "YORK DEPOT")]  # matched by its name's key (G12)
    assert (summary.rows, summary.invalid) == (4, 1)
    assert [(p.row, p.column) for p in plan.problems] == [(4, "name")]
    assert plan.inventory is inventory


class CountingServer:
    """A Client that holds two sites and counts what it is asked: each record read, each update sent."""

    def __init__(self, records: dict[str, dict[str, object]]) -> None:
        self.records = records
        self.reads: list[str] = []
        self.updates: list[tuple[str, dict[str, object]]] = []
        self.created: list[dict[str, object]] = []

    def get_record(self, kind: str, record_id: str) -> dict[str, object]:
        self.reads.append(record_id)
        return dict(self.records[record_id])

    def update_record(self, kind: str, record_id: str, body: dict[str, object], **_: object) -> dict[str, object]:
        self.updates.append((record_id, body))
        return {**self.records[record_id], **body}

    def create_outcome(self, kind: str, parent_id: str | None, body: dict[str, object], **_: object) -> object:
        from types import SimpleNamespace

        self.created.append(body)
        return SimpleNamespace(record={**body, "id": "s-new"}, made=True, sure=True)


def test_a_real_run_plans_once_reads_each_record_once_and_sends_that_plan(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31 §2: the plan that the spreadsheet check reviews is the one the run executes: each update's
    record is read once (no second planning), the damage is found before anything is sent."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client = "c-1"
    held = {"s-1": {"id": "s-1", "clientId": client, "name": "Leeds Depot", "address": "1 Old St", "phone": "01614960000"},
            "s-2": {"id": "s-2", "clientId": client, "name": "York Depot", "address": "2 Old St"}}
    inventory = Inventory(parents={f"id:{client}": client}, parent_names={client: "Acme"})
    for record in held.values():
        inventory.add(client, {k: v for k, v in record.items() if k != "phone"})  # a list item: not whole
    inventory.read = True
    path = tmp_path / "sites.csv"
    path.write_text("name,address,phone\nLeeds Depot,1 Old St,1614960000\nYork Depot,9 New St,\n"
                    "Hull Depot,3 New St,\n", encoding="utf-8")
    server = CountingServer(held)
    with CsvInput(str(path)) as source:
        importer = Importer(server, source, Options(kind="site", parent_id=client, on_existing="update",
                                                    concurrency=2), inventory=inventory)
        try:
            importer.open_journal()
            importer.validate()
            findings = importer.prepare()
            assert [(f.row, f.field) for f in findings] == [(1, "phone")]  # leading zero dropped
            assert sorted(server.reads) == ["s-1", "s-2"] and not server.updates and not server.created
            summary = importer.run()
        finally:
            importer.release()
    assert sorted(server.reads) == ["s-1", "s-2"]  # not read again by the run
    assert sorted(record_id for record_id, _ in server.updates) == ["s-1", "s-2"]
    assert [body["name"] for body in server.created] == ["Hull Depot"]
    assert (summary.counts["updated"], summary.counts["created"]) == (2, 1)


def test_ctrl_c_while_a_real_run_plans_sends_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C while the run plans stops it (`Stopped`, "interrupted": the CLI says "interrupted while
    planning: nothing was sent") before anything is sent or journalled."""
    from wfctl.runs.importer import Stopped

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client = "c-1"
    held = {f"s-{i}": {"id": f"s-{i}", "clientId": client, "name": f"Depot {i}", "address": "1 Old St"}
            for i in range(20)}
    inventory = Inventory(parents={f"id:{client}": client}, parent_names={client: "Acme"})
    for record in held.values():
        inventory.add(client, record)
    inventory.read = True
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i},2 New St\n" for i in range(20)), encoding="utf-8")
    server = CountingServer(held)
    reads = 0

    def read(kind: str, record_id: str) -> dict[str, object]:
        nonlocal reads
        reads += 1
        return dict(held[record_id])

    server.get_record = read  # type: ignore[method-assign]
    with CsvInput(str(path)) as source:
        importer = Importer(server, source, Options(kind="site", parent_id=client, on_existing="update",
                                                    concurrency=1), inventory=inventory)
        rows = importer.plan
        try:
            importer.open_journal()
            importer.validate()

            def interrupted() -> object:
                plan = rows()

                class Interrupting:
                    def rows(self) -> object:
                        for number, planned in enumerate(plan.rows()):
                            if number == 5:
                                raise KeyboardInterrupt
                            yield planned

                return Interrupting()

            importer.plan = interrupted  # type: ignore[method-assign]
            with pytest.raises(Stopped) as stopped:
                importer.prepare()
            journal = importer.journal
            assert journal is not None and next(journal.rows(), None) is None
            journal_path = journal.path
        finally:
            importer.release()
    assert stopped.value.cause == "interrupted"
    assert 0 < reads <= 5 and not server.updates and not server.created
    assert not Path(journal_path).exists()  # a run that sent nothing leaves no run to list


def test_a_dry_run_shows_the_plan_a_run_would_execute_reading_each_record_once(tmp_path: Path) -> None:
    """A dry run plans as a run does (issue 31 §2): each update's record read once, its changes shown, a
    record that could not be read shown as the row's error; its creates from the plan, never read."""
    from wfctl.api.errors import ServerError

    client = "c-1"
    held = {"s-1": {"id": "s-1", "clientId": client, "name": "Leeds Depot", "address": "1 Old St"},
            "s-2": {"id": "s-2", "clientId": client, "name": "York Depot", "address": "2 Old St"},
            "s-3": {"id": "s-3", "clientId": client, "name": "Hull Depot", "address": "3 Old St"}}
    inventory = inventory_of(client, *held.values())
    path = tmp_path / "sites.csv"
    path.write_text("name,address\nLeeds Depot,1 New St\nYork Depot,2 Old St\nHull Depot,3 New St\n"
                    "Bath Depot,4 New St\n", encoding="utf-8")
    server = CountingServer(held)

    def read(kind: str, record_id: str) -> dict[str, object]:
        server.reads.append(record_id)
        if record_id == "s-3":
            raise ServerError("service unavailable", status=503)
        return dict(held[record_id])

    server.get_record = read  # type: ignore[method-assign]
    with CsvInput(str(path)) as source:
        importer = Importer(server, source, Options(kind="site", parent_id=client, on_existing="update",
                                                    dry_run=True, concurrency=2), inventory=inventory)
        try:
            importer.open_journal()
            importer.validate()
            summary = importer.run()
            shown = [(e.row, e.status, e.name, e.error, dict(e.changes)) for e in importer.changes()]
            report = [(row.number, status, error) for row, status, _, error, _ in importer.outcomes()]
        finally:
            importer.release()
    assert sorted(server.reads) == ["s-1", "s-2", "s-3"] and not server.updates and not server.created
    assert shown == [(1, "updated", "Leeds Depot", "", {"address": ["1 Old St", "1 New St"]}),
                     (2, "unchanged", "York Depot", "", {}),
                     (3, "failed", "Hull Depot", "service unavailable (HTTP 503)", {}),
                     (4, "created", "Bath Depot", "", {"name": [None, "Bath Depot"], "address": [None, "4 New St"]})]
    assert report == [(1, "update", ""), (2, "unchanged", ""), (3, "failed", "service unavailable (HTTP 503)"),
                      (4, "create", "")]
    assert {s: summary.counts[s] for s in ("created", "updated", "unchanged", "failed")} == {
        "created": 1, "updated": 1, "unchanged": 1, "failed": 1}


def test_the_planner_returns_a_value_that_says_each_rows_error_and_which_rows_it_creates(tmp_path: Path) -> None:
    """The planner alone, no importer and no server: its plan holds each invalid row's error as the report
    says it (the column as the file spells it), and which rows it creates."""
    from wfctl.plans.validation import Planner

    client = "c-1"
    inventory = inventory_of(client, {"id": "s-1", "clientId": client, "name": "Leeds Depot", "address": "1 Old St"})
    path = tmp_path / "sites.csv"
    path.write_text("Name,Address\nLeeds Depot,1 New St\nHull Depot,3 New St\nhull depot,4 New St\n,5 New St\n",
                    encoding="utf-8")
    with CsvInput(str(path)) as source:
        plan = Planner(NoServer(), source, Options(kind="site", parent_id=client), inventory).plan()
        try:
            errors = list(plan.errors())
            creates = [row for row in range(1, plan.rows_read + 1) if plan.creates_row(row)]
            actions = [(p.row, p.action) for p in plan.rows()]
        finally:
            plan.close()
    assert errors == [(3, "Name: 'hull depot' is already row 2 (names are unique per client)"),
                      (4, "Name: must not be empty")]
    assert creates == [2] and actions == [(1, "update"), (2, "create")]
    assert (plan.rows_read, sorted(plan.invalid)) == (4, [3, 4])
