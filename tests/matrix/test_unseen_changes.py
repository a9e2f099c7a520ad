"""Undo and updates act only on what they have seen (issue 25 §1), on the sandbox and its quirks.

- undo of a create leaves a record someone changed since the run, in any field the service returns;
- undo of an update puts back only the fields and list entries the run changed, keeping later ones;
- an update whose write another writer replaced is merged again into the new state (read back);
- a GET answered 200 without a record is an error, and no update starts from it;
- a create answered 2xx without a body, or with one that is not JSON, is found by its natural key, so undo
  can take it back;
- an import killed while a create was in flight: undo finds out what it did (its Idempotency-Key);
- a name matched by the service's rule (G12) is not a rename; `Straße 1` is not `STRASSE 1`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.matrix.conftest import FOR_RECORDS, Deployment, Run, unique


def _import(run: Run, tmp_path: Path, text: str, *args: str) -> str:
    path = tmp_path / f"{unique('file').replace(' ', '-')}.csv"
    path.write_text(text, encoding="utf-8")
    r = run("sites", "import", str(path), *args)
    assert r.exit_code == 0, r
    listed = run("imports", "list", "-o", "json")
    return str(json.loads(listed.stdout)[0]["run"])


def _put(deployment: Deployment, site_id: str, **fields: Any) -> None:
    """Another person's change, through the default server (it keeps what a PUT leaves out)."""
    response = deployment.plain.put(f"/api/sites/{site_id}", json=fields)
    assert response.status_code == 200, response.text


LATER_CHANGES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "banned worker": lambda site: {"bannedWorkers": [*site["bannedWorkers"], "W-20417"]},
    "rate": lambda site: {"rates": [*site["rates"], {"skill": "Night Shift", "hourlyRate": 15}]},
    "phone": lambda site: {"phone": "+44 161 496 0999"},
}


@pytest.mark.parametrize("later", list(LATER_CHANGES))
@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_undo_of_a_create_keeps_a_record_changed_since_in_a_field_the_file_did_not_have(
        deployment: Deployment, run: Run, tmp_path: Path, later: str) -> None:
    client = deployment.client()
    name = unique("Made")
    run_id = _import(run, tmp_path, f"name,address\n{name},1 Road\n", "--client", client["id"])
    site = deployment.named(f"/api/clients/{client['id']}/sites", name)[0]
    full = deployment.get("sites", site["id"])
    assert full is not None
    _put(deployment, site["id"], **LATER_CHANGES[later](full))
    changed = deployment.get("sites", site["id"])

    plan = run("imports", "undo", run_id, "--dry-run")
    assert plan.exit_code == 0, plan
    assert re.search(r"^changed since the run +1$", plan.stdout, re.M), plan
    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 10, r
    assert "changed since the run" in r.stderr and "--force deletes it anyway" in r.stderr
    assert deployment.get("sites", site["id"]) == changed  # nothing lost

    r = run("imports", "undo", run_id, "--yes", "--force")
    assert r.exit_code == 0, r
    assert deployment.get("sites", site["id"]) is None


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_undo_of_an_unchanged_create_still_deletes_it(deployment: Deployment, run: Run, tmp_path: Path) -> None:
    client = deployment.client()
    name = unique("Made")
    run_id = _import(run, tmp_path, f"name,address,bannedWorkers\n{name},1 Road,W-1|W-2\n", "--client", client["id"])
    site = deployment.named(f"/api/clients/{client['id']}/sites", name)[0]
    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    assert deployment.get("sites", site["id"]) is None


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_undo_of_an_update_puts_back_only_what_the_run_changed(deployment: Deployment, run: Run,
                                                               tmp_path: Path) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])  # rates Forklift 13.25, Picker 11.5; banned W-1, W-2
    text = (f"name,bannedWorkers,rates,email\n{site['name']},W-1|W-2|W-9,Forklift=14.00|Picker=11.50,"
            "run@example.com\n")
    run_id = _import(run, tmp_path, text, "--client", client["id"], "--on-existing", "update")
    after_run = deployment.get("sites", site["id"])
    assert after_run is not None and after_run["bannedWorkers"] == ["W-1", "W-2", "W-9"]
    # someone else, later: another ban, another skill, another phone
    _put(deployment, site["id"], bannedWorkers=[*after_run["bannedWorkers"], "W-20"],
         rates=[*after_run["rates"], {"skill": "Night Shift", "hourlyRate": 15}], phone="0999")

    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    held = deployment.get("sites", site["id"])
    assert held is not None
    assert held["bannedWorkers"] == ["W-1", "W-2", "W-20"]
    assert held["rates"] == [{"skill": "Forklift", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11.5},
                             {"skill": "Night Shift", "hourlyRate": 15}]
    assert held["email"] == site["email"] and held["phone"] == "0999"


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_undo_of_an_update_leaves_an_entry_someone_changed_since(deployment: Deployment, run: Run,
                                                                 tmp_path: Path) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])
    run_id = _import(run, tmp_path, f"name,bannedWorkers\n{site['name']},W-1|W-2|W-9\n", "--client", client["id"],
                     "--on-existing", "update")
    _put(deployment, site["id"], bannedWorkers=["W-1", "W-2"])  # someone took W-9 off again
    _put(deployment, site["id"], bannedWorkers=["W-1", "W-2", "W-30"])
    r = run("imports", "undo", run_id, "--dry-run")
    assert r.exit_code == 0 and re.search(r"^changed since the run +0$", r.stdout, re.M), r
    # the run's change (W-9 added) is no longer there: taken back already, nothing to send
    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    held = deployment.get("sites", site["id"])
    assert held is not None and held["bannedWorkers"] == ["W-1", "W-2", "W-30"]


class _Racing(httpx.BaseTransport):
    """A real connection to the sandbox; after each of the first `times` PUTs, another writer's PUT
    (made from a read taken before ours) replaces the record: no server can be made to interleave so."""

    def __init__(self, other: Callable[[], None], times: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.other = other
        self.times = times

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.method == "PUT" and self.times > 0:
            content = response.read()
            response.close()
            self.times -= 1
            self.other()
            return httpx.Response(response.status_code, headers=response.headers, content=content)
        return response

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_an_update_replaced_by_another_writer_is_merged_again(deployment: Deployment) -> None:
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    site = deployment.site()
    stale = list(site["bannedWorkers"])
    racing = _Racing(lambda: _put(deployment, site["id"], bannedWorkers=[*stale, "W-3"]), times=1)
    with Client(deployment.url, auth=StaticTokenAuth(deployment.token, deployment.url), transport=racing) as sdk:
        def add_w2(record: dict[str, Any]) -> dict[str, Any]:
            workers = list(record.get("bannedWorkers") or [])
            return {"bannedWorkers": workers if "W-22" in workers else [*workers, "W-22"]}

        result = sdk.update_record("site", site["id"], add_w2)
    held = deployment.get("sites", site["id"])
    assert held is not None and held["bannedWorkers"] == ["W-1", "W-2", "W-3", "W-22"]
    assert result["bannedWorkers"] == held["bannedWorkers"]


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_an_update_that_another_writer_always_replaces_says_so(deployment: Deployment) -> None:
    from wfctl.api import Client
    from wfctl.api.errors import Conflict
    from wfctl.api.session.auth import StaticTokenAuth

    site = deployment.site()
    racing = _Racing(lambda: _put(deployment, site["id"], bannedWorkers=["W-1"]), times=100)
    with Client(deployment.url, auth=StaticTokenAuth(deployment.token, deployment.url), transport=racing) as sdk, \
            pytest.raises(Conflict, match="kept replacing this one"):
        sdk.update_site(site["id"], {"bannedWorkers": ["W-1", "W-5"]})
    assert racing.times == 100 - 4  # bounded


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_two_list_edits_at_once_both_hold(deployment: Deployment, cli: Any) -> None:
    import concurrent.futures

    env = {"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token}
    for _ in range(3):
        site = deployment.site()
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda worker, sid=site["id"]: cli.subprocess(
                "sites", "update", sid, "--add-banned-worker", worker, "-o", "json", env=env), ["W-7", "W-8"]))
        assert [r.exit_code for r in results] == [0, 0], results
        held = deployment.get("sites", site["id"])
        assert held is not None and sorted(held["bannedWorkers"]) == ["W-1", "W-2", "W-7", "W-8"]


@pytest.mark.parametrize("deployment", ["empty-get", "empty-get+put-clears"], indirect=True)
def test_a_get_answered_without_a_record_stops_an_update(deployment: Deployment, run: Run) -> None:
    site = deployment.site()
    before = deployment.get("sites", site["id"])
    r = run("sites", "update", site["id"], "--add-banned-worker", "W-3")
    assert r.exit_code == 1, r
    assert r.stderr == (f"error: the service's answer for site {site['id']} is not a record: it answered an empty "
                        "body\n")
    assert deployment.get("sites", site["id"]) == before
    client = deployment.client()
    before = deployment.get("clients", client["id"])
    r = run("clients", "update", client["id"], "--phone", "0999")
    assert r.exit_code == 1, r
    assert deployment.get("clients", client["id"]) == before
    r = run("sites", "get", site["id"], "-o", "json")
    assert (r.exit_code, r.stdout) == (1, ""), r


@pytest.mark.parametrize("deployment", ["empty-create-answer", "empty-create-answer+put-clears", "text-create-answer",
                                        "text-create-answer+ignore-idempotency-key"], indirect=True)
def test_a_create_answered_without_a_body_is_found_and_can_be_undone(deployment: Deployment, run: Run,
                                                                     tmp_path: Path) -> None:
    client = deployment.client()
    name = unique("Quiet")
    r = run("sites", "create", "--client", client["id"], "--name", name, "-o", "json")
    assert r.exit_code == 0, r
    held = deployment.named(f"/api/clients/{client['id']}/sites", name)
    assert len(held) == 1 and json.loads(r.stdout)["id"] == held[0]["id"]

    names = [unique("Quiet"), unique("Quiet")]
    run_id = _import(run, tmp_path, "name\n" + "".join(f"{n}\n" for n in names), "--client", client["id"])
    made = [deployment.named(f"/api/clients/{client['id']}/sites", n)[0]["id"] for n in names]
    r = run("imports", "undo", run_id, "--yes")
    assert r.exit_code == 0, r
    assert [deployment.get("sites", i) for i in made] == [None, None]


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_undo_of_a_killed_import_finds_out_what_its_in_flight_creates_did(deployment: Deployment, run: Run,
                                                                          cli: Any) -> None:
    from wfctl.runs import journal

    client = deployment.client()
    header = {"kind": "site", "file": "0" * 64, "path": "killed.csv", "target": deployment.url, "profile": "default",
              "parent": client["id"], "onExisting": "skip", "undo": None, "run": "261101-dddddd",
              "nonce": "feedbeef", "started": "2026-11-01T10:00:00Z"}
    applied = {"name": unique("Applied"), "address": "1 Road"}
    never = {"name": unique("Never"), "address": "2 Road"}
    # row 1 reached the service (its answer was lost when the run was killed); row 2 never left
    key = journal.idempotency_key(header, "site", client["id"], 1)
    response = deployment.plain.post(f"/api/clients/{client['id']}/sites", json=applied,
                                     headers={"Idempotency-Key": key})
    assert response.status_code == 201
    directory = os.path.join(str(cli.tmp_path), "state", "wfctl", "runs", "default")
    log = journal.Journal(journal.journal_path(directory, header["run"]), header)
    log.intend(1, create=(applied["name"], client["id"], applied))
    log.intend(2, create=(never["name"], client["id"], never))
    log.finish(None)

    plan = run("imports", "undo", header["run"], "--dry-run")
    assert plan.exit_code == 0, plan
    assert re.search(r"^to delete +1$", plan.stdout, re.M) and re.search(r"^already gone +1$", plan.stdout, re.M), plan
    r = run("imports", "undo", header["run"], "--yes")
    assert r.exit_code == 0, r
    assert deployment.named(f"/api/clients/{client['id']}/sites", applied["name"]) == []
    assert deployment.named(f"/api/clients/{client['id']}/sites", never["name"]) == []


@pytest.mark.parametrize("deployment", ["default", "put-clears"], indirect=True)
def test_a_name_matched_by_the_services_rule_is_not_renamed_and_sharp_s_is_not_ss(
        deployment: Deployment, run: Run, tmp_path: Path) -> None:
    client = deployment.client()
    strasse = deployment.site(client["id"], name="Straße 1")
    cafe = deployment.site(client["id"], name="Café Nord")
    text = "name,phone\nCAFÉ NORD,0777\nSTRASSE 1,0888\n"
    path = tmp_path / "names.csv"
    path.write_text(text, encoding="utf-8")
    r = run("sites", "import", str(path), "--client", client["id"], "--on-existing", "update")
    held_cafe = deployment.get("sites", cafe["id"])
    assert held_cafe is not None and held_cafe["name"] == "Café Nord" and held_cafe["phone"] == "0777"
    held = deployment.get("sites", strasse["id"])
    assert held is not None and held["name"] == "Straße 1" and held["phone"] == strasse["phone"], r
