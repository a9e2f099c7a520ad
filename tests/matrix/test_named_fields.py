"""An update changes only what it names (issue 30 §2), on the sandbox and on a deployment whose PUT
clears what it leaves out (`--quirk put-clears`, G13).

- where a PUT keeps what it leaves out, only the named fields are sent: a colleague's change to another
  field made while the update is on its way (between wfctl's read and its PUT) stays;
- where a PUT clears it, the whole record is sent, read just before the PUT; a field moved since the
  command's first read is kept and said; a deployment nobody said clears is found out by the first
  update, which loses nothing and says so;
- a stored value that today's rules refuse (an e-mail without `@`, a worker banned twice), on a PUT
  that must carry it, is named as the record's stored value, not as an option the user never gave.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.matrix.conftest import Deployment, Run, without_stamps
from wfctl.sandbox.injectors import FaultProxy

ProxyFor = Callable[[Callable[[str, str], None]], FaultProxy]


@pytest.fixture
def proxy(deployment: Deployment) -> Iterator[ProxyFor]:
    """A proxy in front of the deployment calling `hook(method, path)` before it forwards each request
    (another person's change, made at that moment through the default server)."""
    started: list[FaultProxy] = []

    def make(hook: Callable[[str, str], None]) -> FaultProxy:
        def answer(method: str, path: str) -> None:
            hook(method, path)
            return None

        started.append(FaultProxy(deployment.url, drop=lambda _m, _p: False, answer=answer))
        return started[-1]

    yield make
    for each in started:
        each.stop()


def _ban(deployment: Deployment, site_id: str, worker: str) -> None:
    """A colleague bans `worker` (through the default server, which keeps what a PUT leaves out)."""
    site = deployment.get("sites", site_id)
    assert site is not None
    response = deployment.plain.put(f"/api/sites/{site_id}", json={"bannedWorkers": [*site["bannedWorkers"], worker]})
    assert response.status_code == 200, response.text


def _banning_on_its_put(deployment: Deployment, proxy: ProxyFor, site: dict[str, Any]) -> tuple[Any, list[str]]:
    """A proxy to the deployment where a colleague bans W-9 once the site's PUT is on its way (wfctl has read
    the site), and the list of what was banned."""
    path = f"/api/sites/{site['id']}"
    banned: list[str] = []

    def colleague(method: str, asked: str) -> None:
        if method == "PUT" and asked == path and not banned:
            banned.append("W-9")
            _ban(deployment, site["id"], "W-9")

    return proxy(colleague), banned


def _import_through(run: Run, via: Any, file: Path, text: str, client_id: str) -> None:
    """`sites import FILE --on-existing update` of `text`, through the proxy `via`: it succeeds."""
    file.write_text(text, encoding="utf-8")
    r = run("sites", "import", str(file), "--client", client_id, "--on-existing", "update",
            env={"WFCTL_BASE_URL": via.url})
    assert r.exit_code == 0, r


def _store(deployment: Deployment, site_id: str, **columns: Any) -> None:
    """Values written straight into the database, as an older service with laxer rules left them."""
    db = sqlite3.connect(deployment.plain_server.db_path, timeout=10)
    try:
        sets = ", ".join(f"{name} = ?" for name in columns)
        db.execute(f"UPDATE sites SET {sets} WHERE id = ?", (*columns.values(), site_id))
        db.commit()
    finally:
        db.close()


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_a_change_made_while_an_update_is_on_its_way_stays(deployment: Deployment, run: Run,
                                                           proxy: ProxyFor) -> None:
    site = deployment.site()
    path = f"/api/sites/{site['id']}"
    changes: list[Callable[[], None]] = []

    def colleague(method: str, asked: str) -> None:
        if method == "PUT" and asked == path and changes:  # wfctl has read the site; its PUT is on its way
            changes.pop(0)()

    via = proxy(colleague)
    for args, change in (
            (["--phone", "0161 496 0001"], lambda: _ban(deployment, site["id"], "W-9")),
            (["--add-banned-worker", "W-3"], lambda: _put(deployment, site["id"], email="ops@example.com")),
            (["--set-rate", "Forklift=14"], lambda: _ban(deployment, site["id"], "W-10"))):
        changes.append(change)
        r = run("sites", "update", site["id"], *args, env={"WFCTL_BASE_URL": via.url})
        assert (r.exit_code, r.stderr, changes) == (0, "", []), r
    held = deployment.get("sites", site["id"])
    assert held == {**without_stamps(site), "phone": "0161 496 0001", "email": "ops@example.com",
                    "bannedWorkers": ["W-1", "W-2", "W-9", "W-3", "W-10"],
                    "rates": [{"skill": "Forklift", "hourlyRate": 14}, {"skill": "Picker", "hourlyRate": 11.5}]}


def _put(deployment: Deployment, site_id: str, **fields: Any) -> None:
    response = deployment.plain.put(f"/api/sites/{site_id}", json=fields)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("deployment", ["put-clears"], indirect=True)
def test_where_a_put_clears_a_field_moved_before_the_read_just_before_it_is_kept_and_said(
        deployment: Deployment, run: Run, proxy: ProxyFor) -> None:
    site = deployment.site()
    path = f"/api/sites/{site['id']}"
    gets = 0

    def colleague(method: str, asked: str) -> None:
        nonlocal gets
        if method == "GET" and asked == path:
            gets += 1
            if gets == 2:  # after the command's first read, before the one just before the PUT
                _ban(deployment, site["id"], "W-9")

    assert run("config", "set", "put_clears", "true").exit_code == 0
    via = proxy(colleague)
    r = run("sites", "update", site["id"], "--phone", "0161 496 0001", env={"WFCTL_BASE_URL": via.url})
    assert r.exit_code == 0, r
    assert r.stderr == (f"warning: site {site['id']}: another writer changed bannedWorkers while this update was "
                        'made; the record keeps their value (bannedWorkers ["W-1", "W-2"] -> ["W-1", "W-2", "W-9"])\n')
    assert deployment.get("sites", site["id"]) == {**without_stamps(site), "phone": "0161 496 0001",
                                                   "bannedWorkers": ["W-1", "W-2", "W-9"]}


@pytest.mark.parametrize("deployment", ["put-clears"], indirect=True)
def test_a_deployment_that_clears_is_found_out_by_the_first_update_and_nothing_is_lost(
        deployment: Deployment, run: Run) -> None:
    for kind, option in (("branches", "--phone"), ("clients", "--phone"), ("sites", "--phone")):
        record = deployment.make(kind)
        r = run(kind, "update", record["id"], option, "0161 496 0001", "-o", "json")
        assert r.exit_code == 0, r
        noun = kind[:-2] if kind == "branches" else kind[:-1]
        assert r.stderr == (f"warning: {noun} {record['id']}: the service needs every field in a PUT. This deployment "
                            "clears what a PUT leaves out (G13): updates now send the whole record, read just before "
                            "each PUT (set put_clears to start that way)\n")
        assert deployment.get(kind, record["id"]) == {**without_stamps(record), "phone": "0161 496 0001"}
        assert without_stamps(json.loads(r.stdout)) == {**without_stamps(record), "phone": "0161 496 0001"}


@pytest.mark.parametrize("deployment", ["default", "put-clears"], indirect=True)
def test_a_stored_value_the_rules_now_refuse_is_named_as_the_sites_not_as_an_option(
        deployment: Deployment, run: Run) -> None:
    site = deployment.site()
    _store(deployment, site["id"], email="ops at example.com", banned_workers='["W-1", "W-1"]')
    stored = deployment.get("sites", site["id"])
    assert run("config", "set", "put_clears", "true" if deployment.quirks else "false").exit_code == 0

    r = run("sites", "update", site["id"], "--phone", "0161 496 0001")
    if deployment.quirks:  # the PUT must carry the whole record, the stored values too
        assert r.exit_code == 6, r
        assert r.stderr == (
            f"error: site {site['id']} holds a value the service's rules now refuse (email, bannedWorkers), and this "
            "update must send it (a PUT replaces the whole record here): correct the stored value first, or in the "
            "same update: email: stored 'ops at example.com': must be an e-mail address; bannedWorkers[1]: stored 'W-1': "
            "duplicate worker 'W-1' (HTTP 400)\n")
        assert deployment.get("sites", site["id"]) == stored
    else:  # only the phone is sent
        assert (r.exit_code, r.stderr) == (0, ""), r
        assert deployment.get("sites", site["id"]) == {**stored, "phone": "0161 496 0001"}

    r = run("sites", "update", site["id"], "--add-banned-worker", "W-3")
    assert r.exit_code == 6, r
    assert "--from-file" not in r.stderr and "--banned-worker" not in r.stderr
    assert "bannedWorkers[1]: stored 'W-1': duplicate worker 'W-1' (HTTP 400)\n" in r.stderr
    assert r.stderr.startswith(f"error: site {site['id']} holds a value the service's rules now refuse")

    r = run("sites", "update", site["id"], "--email", "ops@example.com", "--banned-worker", "W-1")  # the way out
    assert r.exit_code == 0, r


@pytest.mark.parametrize("deployment", ["default", "put-clears"], indirect=True)
def test_the_sdk_sends_named_fields_and_finds_a_clearing_deployment_out_once(deployment: Deployment) -> None:
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    said: list[str] = []
    sites = [deployment.site(), deployment.site()]
    with Client(deployment.url, auth=StaticTokenAuth(deployment.token, deployment.url), warn=said.append) as sdk:
        for site in sites:
            shown = sdk.update_site(site["id"], {"phone": "0161 496 0001"})
            assert without_stamps(shown) == {**without_stamps(site), "phone": "0161 496 0001"}
        assert sdk.put_clears is bool(deployment.quirks)
    for site in sites:
        assert deployment.get("sites", site["id"]) == {**without_stamps(site), "phone": "0161 496 0001"}
    if deployment.quirks:  # said once, by the first update
        assert said == [f"site {sites[0]['id']}: the service needs every field in a PUT. This deployment clears "
                        "what a PUT leaves out (G13): updates now send the whole record, read just before each PUT "
                        "(set put_clears to start that way)"]
    else:
        assert said == []


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_an_import_update_keeps_a_ban_made_while_it_runs(deployment: Deployment, run: Run, proxy: ProxyFor,
                                                         tmp_path: Any) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])
    via, banned = _banning_on_its_put(deployment, proxy, site)
    _import_through(run, via, tmp_path / "phones.csv", f"name,phone\n{site['name']},0161 496 0001\n", client["id"])
    assert banned == ["W-9"]
    assert deployment.get("sites", site["id"]) == {**without_stamps(site), "phone": "0161 496 0001",
                                                   "bannedWorkers": ["W-1", "W-2", "W-9"]}


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_an_undo_keeps_a_change_made_while_it_runs(deployment: Deployment, run: Run, proxy: ProxyFor,
                                                   tmp_path: Any) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])
    path = f"/api/sites/{site['id']}"
    changed: list[str] = []
    undoing = False

    def colleague(method: str, asked: str) -> None:
        if undoing and method == "PUT" and asked == path and not changed:  # undo read the site; its PUT is on its way
            changed.append("email")
            _put(deployment, site["id"], email="ops@example.com")

    via = proxy(colleague)
    _import_through(run, via, tmp_path / "phones.csv", f"name,phone\n{site['name']},0161 496 0001\n", client["id"])
    run_id = str(json.loads(run("imports", "list", "-o", "json", env={"WFCTL_BASE_URL": via.url}).stdout)[0]["run"])
    undoing = True
    r = run("imports", "undo", run_id, "--yes", env={"WFCTL_BASE_URL": via.url})
    assert r.exit_code == 0, r
    assert changed == ["email"]
    assert deployment.get("sites", site["id"]) == {**without_stamps(site), "email": "ops@example.com"}


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_rates_set_names_a_stored_rate_the_rules_now_refuse(deployment: Deployment, run: Run) -> None:
    client = deployment.client()
    site = deployment.site(client["id"])
    _store(deployment, site["id"], rates='[{"skill": "Forklift", "hourlyRate": 13.255}, '
                                         '{"skill": "Picker", "hourlyRate": 11.5}]')
    r = run("rates", "set", "--client", client["id"], "--skill", "Picker", "--floor", "12")
    assert r.exit_code == 10, r
    assert (f"site {site['id']} holds a value the service's rules now refuse (rates), and this update must send it (a "
            "list edit sends the whole list): correct the stored value first, or in the same update: "
            'rates[0].hourlyRate: stored {"skill": "Forklift", "hourlyRate": 13.255}: must have at most 2 decimal '
            "places (HTTP 400)\n") in r.stderr
    assert "--" not in r.stderr.split("\n")[0]  # no option is named


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_an_import_row_sends_only_the_cells_that_change_the_site(deployment: Deployment, run: Run,
                                                                 proxy: ProxyFor, tmp_path: Any) -> None:
    """An exported row edited in one cell: its other cells (the banned workers as they were) are not
    sent, so a ban made after the import read the site stays."""
    client = deployment.client()
    site = deployment.site(client["id"])
    via, banned = _banning_on_its_put(deployment, proxy, site)
    _import_through(run, via, tmp_path / "edited.csv",
                    f"name,phone,email,bannedWorkers\n{site['name']},{site['phone']},ops@example.com,W-1|W-2\n",
                    client["id"])
    assert banned == ["W-9"]
    assert deployment.get("sites", site["id"]) == {**without_stamps(site), "email": "ops@example.com",
                                                   "bannedWorkers": ["W-1", "W-2", "W-9"]}


@pytest.mark.parametrize("deployment", ["default"], indirect=True)
def test_a_record_from_get_passed_back_sends_only_what_was_edited(deployment: Deployment, proxy: ProxyFor) -> None:
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    site = deployment.site()
    via, banned = _banning_on_its_put(deployment, proxy, site)
    with Client(via.url, auth=StaticTokenAuth(deployment.token, via.url)) as sdk:
        record = sdk.get_site(site["id"])
        record["phone"] = "0161 496 0001"
        sdk.update_site(site["id"], record)
    assert banned == ["W-9"]
    assert deployment.get("sites", site["id"]) == {**without_stamps(site), "phone": "0161 496 0001",
                                                   "bannedWorkers": ["W-1", "W-2", "W-9"]}
