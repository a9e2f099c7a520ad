"""A kind is wired completely or not at all (issue 31 §4).

The test adds a fourth kind, `shift`, nested under sites (`/api/sites/<site-id>/shifts`, records at
`/api/shifts/<id>`), to the definitions only (wfctl.api.records.resources; read at call time), and shows each
layer serve it from that definition alone: the SDK's generic record methods, references by name (within a
site, and across the agency: every client's sites' shifts), the CSV format, the bulk runs' kinds, id
completion and the record verbs. The kind no definition names, `worker`, is refused by each of those same
layers with UnknownKind, a KeyError and a ValueError naming the known kinds, never served as another
kind's default (as an unknown kind was listed as branches, or sites, before).

The service is an `httpx.MockTransport` over a dict: what matters here is the requests the layers send
for the new kind, not a server's behaviour.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import typer
from typer.testing import CliRunner

from wfctl.api import Client
from wfctl.api.records import resources
from wfctl.api.records.resources import Resource, UnknownKind

SHIFT = Resource("shift", "shifts", writable=("name", "start"), columns=("siteId", "name", "start"),
                 parent="site", parent_field="siteId", nested=True)


@pytest.fixture
def shift_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """`shift` added to the definitions, and nowhere else."""
    monkeypatch.setitem(resources.RESOURCES, "shift", SHIFT)


class Service:
    """Clients, their sites and the sites' shifts; every request is kept in `sent` as 'METHOD path'."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, dict[str, Any]]] = {
            "clients": {"c1": {"id": "c1", "name": "Irwell Logistics", "branchId": "b1"}},
            "sites": {"s1": {"id": "s1", "name": "Dock 4", "clientId": "c1"}},
            "shifts": {"h1": {"id": "h1", "name": "Early", "start": "06:00", "siteId": "s1"},
                       "h2": {"id": "h2", "name": "Late", "start": "14:00", "siteId": "s1"}},
        }
        self.sent: list[str] = []
        self._made = 0

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.sent.append(f"{request.method} {path}")
        parts = path.strip("/").split("/")[1:]  # after "api"
        if request.method == "GET" and len(parts) == 1:
            return self._page(list(self.records[parts[0]].values()), request)
        if len(parts) == 3:  # /api/<parents>/<id>/<children>
            field = {"sites": "clientId", "shifts": "siteId"}[parts[2]]
            if request.method == "POST":
                self._made += 1
                record = {**json.loads(request.content), "id": f"new{self._made}", field: parts[1]}
                self.records[parts[2]][record["id"]] = record
                return httpx.Response(201, json=record)
            return self._page([r for r in self.records[parts[2]].values() if r[field] == parts[1]], request)
        table, record_id = self.records[parts[0]], parts[1]
        if record_id not in table:
            return httpx.Response(404, json={"title": "Not Found", "status": 404})
        if request.method == "PUT":
            table[record_id].update(json.loads(request.content))
        if request.method == "DELETE":
            del table[record_id]
            return httpx.Response(200, json={"status": "success", "message": "deleted"})
        return httpx.Response(200, json=table[record_id])

    def _page(self, rows: list[dict[str, Any]], request: httpx.Request) -> httpx.Response:
        size = int(parse_qs(request.url.query.decode()).get("pageSize", ["100"])[0])
        return httpx.Response(200, json={"data": rows[:size], "pageNumber": 1, "pageSize": size, "pageCount": 1,
                                         "totalRecordCount": len(rows), "nextPage": None})


@pytest.fixture
def service() -> Service:
    return Service()


@pytest.fixture
def api(service: Service) -> Iterator[Client]:
    with Client("https://wf.test", transport=httpx.MockTransport(service.handle)) as client:
        yield client


def _refused(call: Callable[[], Any]) -> str:
    """The message of the UnknownKind that `call` raises, checked to be a KeyError and a ValueError too."""
    with pytest.raises(UnknownKind) as info:
        call()
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    text = str(info.value)
    assert text == "unknown kind 'worker'; expected one of branch, client, site, shift"
    return text


def test_the_sdk_serves_the_new_kind_from_its_definition(shift_kind: None, api: Client, service: Service) -> None:
    assert [r["name"] for r in api.iter_records("shift", "s1")] == ["Early", "Late"]
    assert [p.data[0]["id"] for p in api.list_records("shift", "s1", page_size=1)] == ["h1"]
    assert api.get_record("shift", "h2")["start"] == "14:00"
    made = api.create_record("shift", "s1", {"name": "Night", "start": "22:00"})
    assert made["siteId"] == "s1"
    assert api.update_record("shift", made["id"], {"start": "23:00"}, settle=False)["start"] == "23:00"
    assert api.find_by_name("shift", "s1", "night")["id"] == made["id"]  # type: ignore[index]
    assert api.delete_record("shift", made["id"])["status"] == "success"
    assert made["id"] not in service.records["shifts"]
    assert "POST /api/sites/s1/shifts" in service.sent
    assert f"PUT /api/shifts/{made['id']}" in service.sent
    with pytest.raises(ValueError, match="listing shifts needs the id of their site"):
        api.list_records("shift")  # a nested kind is listed under its parent, never across another kind


def test_references_find_the_new_kind_within_its_parent_and_across_the_agency(shift_kind: None, api: Client,
                                                                              service: Service) -> None:
    from wfctl.api.records.refs import NoSuchRecord, resolve

    assert resolve(api, "shift", "early", parent="s1") == "h1"
    service.sent.clear()
    assert resolve(api, "shift", "Late") == "h2"  # every client's sites' shifts
    assert service.sent[-3:] == ["GET /api/clients", "GET /api/clients/c1/sites", "GET /api/sites/s1/shifts"]
    with pytest.raises(NoSuchRecord, match="no shift 'Brunch' of site s1"):
        resolve(api, "shift", "Brunch", parent="s1")


def test_bulk_csv_and_completion_read_the_new_kind(shift_kind: None, api: Client) -> None:
    from wfctl.cmdline.completion_cache import _records
    from wfctl.files import csvformat
    from wfctl.plans.kinds import KINDS

    kind = KINDS["shift"]
    assert (kind.parent, kind.parent_id_column, kind.parent_option) == ("site", "siteId", "--site")
    assert [r["id"] for r in kind.iter_existing(api, "s1")] == ["h1", "h2"]
    assert kind.get_parent(api, "s1")["name"] == "Dock 4"
    assert "shift" in KINDS and len(KINDS) == 4
    assert csvformat.export_columns("shift") == ["id", "siteId", "name", "start"]
    assert "site" in csvformat.known_columns("shift")  # the parent by name
    assert [r["id"] for r in _records(api, "shift", None)] == ["h1", "h2"]  # every site's, in turn


def test_the_record_verbs_serve_the_new_kind(shift_kind: None, api: Client, service: Service, cli: Any) -> None:
    """The record verbs (list, get, delete) for a group of the new kind, as its command group would call them."""
    from wfctl.commands import recordverbs
    from wfctl.commands.output_options import OutputOptions
    from wfctl.context import AppContext, GlobalOptions

    JSON = OutputOptions(format="json")

    app = typer.Typer()

    @app.callback()
    def root(ctx: typer.Context) -> None:
        ctx.obj = AppContext(GlobalOptions())
        ctx.obj.client = api  # the context's lazily built client, given

    @app.command("list")
    def list_(ctx: typer.Context, site: str) -> None:
        recordverbs.list_records(ctx, "shift", parent=site, page=None, page_size=None, all_pages=True, limit=None,
                                 output=JSON)

    @app.command("get")
    def get(ctx: typer.Context, ref: str, site: str = typer.Option(None)) -> None:
        recordverbs.get_record(ctx, "shift", ref, output=JSON, scope=site)

    @app.command("delete")
    def delete(ctx: typer.Context, ref: str) -> None:
        recordverbs.delete_record(ctx, "shift", ref, yes=True, dry_run=False, output=JSON)

    runner = CliRunner()
    listed = runner.invoke(app, ["list", "Dock 4"])  # the site by name
    assert listed.exit_code == 0, listed.output
    assert [r["name"] for r in json.loads(listed.stdout)] == ["Early", "Late"]
    got = runner.invoke(app, ["get", "Late", "--site", "s1"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)["id"] == "h2"
    gone = runner.invoke(app, ["delete", "h1"])
    assert gone.exit_code == 0, gone.output
    assert "DELETE /api/shifts/h1" in service.sent


def test_every_layer_refuses_a_kind_no_definition_names(shift_kind: None, api: Client, service: Service) -> None:
    from wfctl.api.records.models import WRITE_MODELS
    from wfctl.api.records.recordrules import WRITABLE
    from wfctl.api.records.refs import resolve
    from wfctl.cmdline.completion_cache import _records
    from wfctl.commands import recordverbs
    from wfctl.files import csvformat
    from wfctl.plans.kinds import KINDS

    calls: list[Callable[[], Any]] = [
        lambda: resources.RESOURCES["worker"],
        lambda: api.list_records("worker"),
        lambda: api.iter_records("worker", "b1"),
        lambda: api.get_record("worker", "w1"),
        lambda: api.create_record("worker", None, {"name": "Ann"}),
        lambda: api.update_record("worker", "w1", {"name": "Ann"}),
        lambda: api.delete_record("worker", "w1"),
        lambda: api.find_by_name("worker", None, "Ann"),
        lambda: resolve(api, "worker", "Ann"),
        lambda: resolve(api, "worker", "0b5e3c1a-3f4e-4c2a-9d7e-1a2b3c4d5e6f"),  # a whole id: no request, refused
        lambda: KINDS["worker"],
        lambda: WRITABLE["worker"],
        lambda: WRITE_MODELS[("worker", "create")],
        lambda: csvformat.export_columns("worker"),
        lambda: next(_records(api, "worker", None)),
        lambda: recordverbs.validate_body("worker", "create", {"name": "Ann"}, set()),
    ]
    for call in calls:
        _refused(call)
    assert service.sent == []  # refused before anything was sent


def test_a_kind_defined_without_its_write_models_says_so(shift_kind: None) -> None:
    """Creates and updates need the kind's write models (wfctl.api.records.models) too: their absence is said."""
    from wfctl.api.records.models import WRITE_MODELS, MissingWriteModel

    with pytest.raises(MissingWriteModel, match="no write model for a shift create"):
        WRITE_MODELS[("shift", "create")]


def test_a_definition_states_its_relations_whole() -> None:
    with pytest.raises(ValueError, match="both the parent and its field"):
        dataclasses.replace(SHIFT, parent_field=None, columns=("name", "start"))
    with pytest.raises(ValueError, match="nested and parent_in_body need a parent"):
        Resource("worker", "workers", writable=("name",), columns=("name",), nested=True)
    assert SHIFT.collection_path("s1") == "/api/sites/s1/shifts"
    assert resources.SITE.collection_path("c 1") == "/api/clients/c%201/sites"
