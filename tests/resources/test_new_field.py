"""A writable field added in one place flows everywhere (issue 22 §1).

Adding a field to sites means its write models (wfctl.api.records.models) and its definition
(wfctl.api.records.resources), nothing else. The test adds `siteCode` to exactly those two (the definitions are
read at call time) and drives the real commands against the tolerance server (tests/tolerance/server.py:
a stdlib service that stores any field it is given, so the sandbox's fixed schema does not stand in the
way): create and update from a file, list -o csv, export, import (create, and --on-existing update) and
the plan of --dry-run all carry the field.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tolerance.server import TOKEN, Behaviour, ToleranceServer
from wfctl.api.records import models, resources
from wfctl.api.records.models import Name, SiteUpdate, Text


class _SiteUpdate(SiteUpdate):
    site_code: Text | None = None


class _SiteCreate(_SiteUpdate):
    name: Name


@pytest.fixture
def site_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """`siteCode` added to the site definition and the site write models, and nowhere else."""
    site = resources.RESOURCES["site"]
    monkeypatch.setitem(resources.RESOURCES, "site", dataclasses.replace(
        site, writable=(*site.writable, "siteCode"), columns=(*site.columns, "siteCode")))
    monkeypatch.setitem(models.WRITE_MODELS, ("site", "create"), _SiteCreate)
    monkeypatch.setitem(models.WRITE_MODELS, ("site", "update"), _SiteUpdate)


@pytest.fixture
def server() -> Iterator[ToleranceServer]:
    srv = ToleranceServer(Behaviour(site_list_fields=("siteCode",)))
    srv.state.sites["s001"]["siteCode"] = "A-1"
    yield srv
    srv.stop()


@pytest.fixture
def run(cli: Any, server: ToleranceServer, site_code: None) -> Any:
    env = {"WFCTL_BASE_URL": server.url, "WFCTL_ACCESS_TOKEN": TOKEN}

    def invoke(*args: str, **kwargs: Any) -> Any:
        return cli(*args, env=env, **kwargs)

    return invoke


def _ok(result: Any) -> Any:
    assert result.exit_code == 0, result
    return result


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_create_and_update_from_a_file_carry_the_field(run: Any, server: ToleranceServer, tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"name": "Coded site", "siteCode": "NEW-1"}))
    created = json.loads(_ok(run("sites", "create", "--client", "c2", "--from-file", str(new), "-o", "json")).stdout)
    assert created["siteCode"] == "NEW-1"
    assert server.state.sites[created["id"]]["siteCode"] == "NEW-1"

    change = tmp_path / "change.json"
    change.write_text(json.dumps({"siteCode": "NEW-2"}))
    plan = _ok(run("sites", "update", created["id"], "--from-file", str(change), "--dry-run"))
    assert "siteCode: NEW-1 -> NEW-2" in plan.stdout + plan.stderr
    assert server.state.sites[created["id"]]["siteCode"] == "NEW-1"
    _ok(run("sites", "update", created["id"], "--from-file", str(change), "-o", "json"))
    assert server.state.sites[created["id"]]["siteCode"] == "NEW-2"
    assert [r.body["siteCode"] for r in server.requests if r.method == "PUT"] == ["NEW-2"]


def test_list_csv_and_export_carry_the_field(run: Any) -> None:
    listed = _rows(_ok(run("sites", "list", "--client", "c1", "--all", "-o", "csv", "--fields", "id,siteCode")).stdout)
    assert listed[0] == {"id": "s001", "siteCode": "A-1"}
    exported = _rows(_ok(run("sites", "export", "--client", "c1")).stdout)
    assert "siteCode" in exported[0]
    assert {row["id"]: row["siteCode"] for row in exported}["s001"] == "A-1"


def test_import_creates_and_updates_the_field(run: Any, server: ToleranceServer, tmp_path: Path) -> None:
    new = tmp_path / "new.csv"
    new.write_text("clientId,name,siteCode\nc2,Imported site,IMP-1\n")
    _ok(run("sites", "import", str(new)))
    created = [s for s in server.state.sites.values() if s["name"] == "Imported site"]
    assert [s.get("siteCode") for s in created] == ["IMP-1"]

    changed = tmp_path / "changed.csv"
    changed.write_text("clientId,name,siteCode\nc1,Site 1,A-2\n")
    plan = _ok(run("sites", "import", str(changed), "--on-existing", "update", "--dry-run"))
    assert "siteCode: A-1 -> A-2" in plan.stdout + plan.stderr
    assert server.state.sites["s001"]["siteCode"] == "A-1"
    _ok(run("sites", "import", str(changed), "--on-existing", "update"))
    assert server.state.sites["s001"]["siteCode"] == "A-2"
    assert server.state.sites["s001"]["name"] == "Site 1"
