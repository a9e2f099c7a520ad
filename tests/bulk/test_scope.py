"""The scope core (issue 32): a declared scope (`resolve_scope`), an inventory of every parent in it, and
the plan's `absent()`: the records in scope that no row of the file keeps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.test_planning import NoServer
from tests.fixtures.sandbox import ADMIN, login_token
from tests.matrix.conftest import Deployment
from wfctl.api import Client
from wfctl.api.records.refs import NoSuchRecord
from wfctl.api.session.auth import StaticTokenAuth
from wfctl.files.errors import BulkError
from wfctl.files.reader import CsvInput
from wfctl.plans.importplan import ImportPlan, Inventory
from wfctl.plans.scope import Scope, resolve_scope
from wfctl.runs.importer import Importer, Options

TWO_CLIENTS = Scope("site", ("c-1", "c-2"), "every client of branch Leeds", ("Acme", "Brill"))


def two_clients() -> Inventory:
    inventory = Inventory(parents={"id:c-1": "c-1", "id:c-2": "c-2"}, parent_names={"c-1": "Acme", "c-2": "Brill"},
                          read=True)
    for parent, record_id, name in (("c-1", "s-1", "Leeds Depot"), ("c-1", "s-2", "York Depot"),
                                    ("c-1", "s-3", "hull depot"), ("c-2", "s-4", "Zeal"), ("c-2", "s-5", "Alder")):
        inventory.add(parent, {"id": record_id, "clientId": parent, "name": name}, by_id=True)
    return inventory


def planned(tmp_path: Path, text: str, inventory: Inventory, scope: Scope | None, **options: Any
            ) -> tuple[list[tuple[str | None, str]], list[tuple[int, str, str]]]:
    """(parent, id) of each absent record, and (row, column, message) of each problem."""
    path = tmp_path / "sites.csv"
    path.write_text(text, encoding="utf-8")
    with CsvInput(str(path)) as source:
        importer = Importer(NoServer(), source, Options(kind="site", scope=scope, skip_invalid=True, **options),
                            inventory=inventory)
        try:
            importer.validate()
            plan: ImportPlan = importer.plan()
            absent = [(parent, str(record["id"])) for parent, record in plan.absent()]
            problems = [(p.row, p.column, p.message) for p in plan.problems]
        finally:
            importer.release()
    return absent, problems


def test_absent_holds_what_no_row_keeps_parent_by_parent_in_name_order(tmp_path: Path) -> None:
    # Brill has no row in the file: its records are absent all the same (the inventory reads every parent)
    absent, problems = planned(tmp_path, "clientId,name\nc-1,LEEDS DEPOT\n", two_clients(), TWO_CLIENTS)
    assert problems == []
    assert absent == [("c-1", "s-3"), ("c-1", "s-2"), ("c-2", "s-5"), ("c-2", "s-4")]


def test_a_row_with_an_id_keeps_that_record_only_never_another_of_its_name(tmp_path: Path) -> None:
    # row 1 carries s-1's id and York Depot's name: s-1 is kept (renamed), s-2 is not kept by the name
    text = "id,clientId,name\ns-1,c-1,York Depot\n,c-1,Hull Depot\ns-4,c-2,Zeal\n"
    absent, problems = planned(tmp_path, text, two_clients(), TWO_CLIENTS, on_existing="update")
    assert problems == []
    assert absent == [("c-1", "s-2"), ("c-2", "s-5")]


def test_without_a_scope_nothing_is_absent(tmp_path: Path) -> None:
    assert planned(tmp_path, "clientId,name\nc-1,Leeds Depot\n", two_clients(), None) == ([], [])


def test_a_row_for_a_parent_out_of_scope_is_invalid_and_keeps_nothing(tmp_path: Path) -> None:
    scope = Scope("site", ("c-1",), "client Acme", ("Acme",))
    absent, problems = planned(tmp_path, "clientId,name\nc-2,Zeal\nc-1,Leeds Depot\n", two_clients(), scope)
    assert problems == [(1, "clientId", "client 'Brill' is not in the scope (client Acme)")]
    assert absent == [("c-1", "s-3"), ("c-1", "s-2")]


def test_branches_scope_is_the_agency(tmp_path: Path) -> None:
    inventory = Inventory(read=True)
    for record_id, name in (("b-1", "Leeds"), ("b-2", "Hull")):
        inventory.add(None, {"id": record_id, "name": name})
    path = tmp_path / "b.csv"
    path.write_text("name\nleeds\n", encoding="utf-8")
    with CsvInput(str(path)) as source:
        importer = Importer(NoServer(), source, Options(kind="branch", scope=resolve_scope(NoServer(), "branch")),
                            inventory=inventory)
        try:
            importer.validate()
            assert [(p, r["id"]) for p, r in importer.plan().absent()] == [(None, "b-2")]
        finally:
            importer.release()


def test_the_options_declare_one_scope() -> None:
    with pytest.raises(BulkError, match="give one of --client, --branch or --all-clients"):
        resolve_scope(NoServer(), "site")
    with pytest.raises(BulkError, match="give only one of --client, --all-clients"):
        resolve_scope(NoServer(), "site", clients=["x"], all_clients=True)
    with pytest.raises(BulkError, match="give one of --branch or --all-branches"):
        resolve_scope(NoServer(), "client")
    with pytest.raises(BulkError, match="branches belong to the agency: --branch does not apply"):
        resolve_scope(NoServer(), "branch", branch="x")
    assert resolve_scope(NoServer(), "branch") == Scope("branch", None, "the agency")


@pytest.fixture(params=["ignore-branch-filter", "default"])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    with Deployment.running(request.param, tmp_path) as deployment:
        yield deployment


def test_scopes_on_a_server_a_branch_never_holds_another_branchs_clients(deployment: Deployment,
                                                                          tmp_path: Path) -> None:
    leeds, hull = deployment.branch(name="Leeds"), deployment.branch(name="Hull")
    acme = deployment.client(leeds["id"], name="Acme")
    brill = deployment.client(leeds["id"], name="Brill")
    other = deployment.client(hull["id"], name="Other")
    kept = deployment.site(acme["id"], name="Kept")
    gone = [deployment.site(acme["id"], name="Gone"), deployment.site(brill["id"], name="Brill Site")]
    deployment.site(other["id"], name="Elsewhere")
    api = Client(deployment.url, auth=StaticTokenAuth(login_token(deployment.plain_server, *ADMIN)["accessToken"],
                                                      deployment.url))
    with api:
        by_branch = resolve_scope(api, "site", branch="leeds")  # by name, as --branch reads it
        assert by_branch == Scope("site", (acme["id"], brill["id"]), "every client of branch Leeds",
                                  ("Acme", "Brill"))
        assert resolve_scope(api, "site", clients=["Acme", acme["id"]]) == \
            Scope("site", (acme["id"],), "client Acme", ("Acme",))
        assert resolve_scope(api, "site", all_clients=True).parent_ids == (acme["id"], brill["id"], other["id"])
        assert resolve_scope(api, "client", branch=hull["id"]) == Scope("client", (hull["id"],), "branch Hull",
                                                                       ("Hull",))
        assert resolve_scope(api, "client", all_clients=True).parent_ids == (hull["id"], leeds["id"])
        with pytest.raises(NoSuchRecord, match="no client 'Nobody'"):
            resolve_scope(api, "site", clients=["Nobody"])
        path = tmp_path / "sites.csv"
        path.write_text("client,name\nAcme,Kept\n", encoding="utf-8")
        with CsvInput(str(path)) as source:
            importer = Importer(api, source, Options(kind="site", scope=by_branch, dry_run=True))
            try:
                importer.open_journal()
                importer.validate()
                absent = [(parent, record["id"]) for parent, record in importer.plan().absent()]
            finally:
                importer.release()
    assert absent == [(acme["id"], gone[0]["id"]), (brill["id"], gone[1]["id"])]
    assert kept["id"] not in {record_id for _, record_id in absent}
