"""Planning is a value (issue 31 §2): a plan built from a CSV file and an inventory held in memory, with
no server, says each row's action, its problems, and reads the inventory it was given, nothing else."""

from __future__ import annotations

from pathlib import Path

from wfctl.bulk.importer import Importer, Options
from wfctl.bulk.planning import Inventory
from wfctl.bulk.reader import CsvInput


class NoServer:
    """A Client that must not be asked anything: the plan reads only its inventory."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the plan asked the service ({name})")


def test_a_plan_from_a_file_and_an_inventory_says_each_rows_action(tmp_path: Path) -> None:
    client = "c-1"
    inventory = Inventory(parents={f"id:{client}": client}, parent_names={client: "Acme"})
    inventory.add(client, {"id": "s-1", "clientId": client, "name": "Leeds Depot", "address": "1 Old St"})
    inventory.add(client, {"id": "s-2", "clientId": client, "name": "York Depot", "address": "2 Old St"})
    inventory.read = True
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
