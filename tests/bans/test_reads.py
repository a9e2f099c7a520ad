"""`wfctl bans where` and `bans list` on the seeded sandbox, in a pipe (exact output, every format a script
reads), and the one-line errors of ids no one means (exit 2) and of a scope left out."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.fixtures.sandbox import own_sandbox

    yield from own_sandbox(tmp_path_factory, "bans-reads")


@pytest.fixture
def wf(cli: Any, seeded: Any) -> Any:
    assert cli.login_as(seeded.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    return cli


def sites_of(wf: Any) -> list[dict[str, Any]]:
    """Every site's full record, with its client's name and branch (id and name), in the service's order."""
    branches = {b["id"]: b["name"] for b in json.loads(wf("branches", "list", "--all", "-o", "json").stdout)}
    clients = {c["id"]: c for c in json.loads(wf("clients", "list", "--all", "-o", "json").stdout)}
    sites = json.loads(wf("sites", "export", "--all-clients", "-o", "json").stdout)
    for site in sites:
        client = clients[site["clientId"]]
        site.update(client=client["name"], branchId=client["branchId"], branch=branches[client["branchId"]])
    return sites


def test_where_lists_every_site_banning_the_worker_with_client_and_branch(wf: Any) -> None:
    sites = sites_of(wf)
    worker = next(w for s in sites for w in s["bannedWorkers"])
    r = wf("bans", "where", worker, "-o", "csv")
    assert r.exit_code == 0, r
    assert r.stdout.lstrip("\ufeff").splitlines() == ["worker,siteId,site,clientId,client,branchId,branch", *(
        f"{worker},{s['id']},{s['name']},{s['clientId']},{s['client']},{s['branchId']},{s['branch']}"
        for s in sites if worker in s["bannedWorkers"])]
    r = wf("bans", "where", worker, "W-99999", "-o", "json")
    assert [(row["worker"], row["siteId"]) for row in json.loads(r.stdout)] == [
        (worker, s["id"]) for s in sites if worker in s["bannedWorkers"]]
    r = wf("bans", "where", "W-99999")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "worker  siteId  site  clientId  client  branchId  branch\n", "")


def test_where_hints_at_the_id_the_service_holds_when_only_the_case_differs(wf: Any) -> None:
    """Issue 49: `bans where w-10474` (ids are `W-...`) found nothing with no word; ids stay compared exactly."""
    sites = sites_of(wf)
    worker = next(w for s in sites for w in s["bannedWorkers"])
    assert worker != worker.lower()
    r = wf("bans", "where", worker.lower(), "-o", "csv")
    assert (r.exit_code, r.stdout.lstrip("\ufeff")) == (0, "worker,siteId,site,clientId,client,branchId,branch\n"), r
    assert r.stderr == (f"warning: no site in scope bans {worker.lower()}, and {worker} is banned (ids are "
                        f"compared exactly, in their case): wfctl bans where {worker}\n"), r
    # asked in both cases: the one found, no hint
    r = wf("bans", "where", worker.lower(), worker, "-o", "json")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert {row["worker"] for row in json.loads(r.stdout)} == {worker}


def test_list_gives_each_clients_union_and_flags_the_inconsistent(wf: Any) -> None:
    sites = [s for s in sites_of(wf) if s["client"] == "Pennine Foods Ltd"]
    r = wf("bans", "list", "--client", "Pennine Foods Ltd", "-o", "csv")
    assert r.exit_code == 0, r
    rows = list(csv.DictReader(io.StringIO(r.stdout.lstrip("\ufeff"))))
    workers = list(dict.fromkeys(w for s in sites for w in s["bannedWorkers"]))
    assert [(row["worker"], row["bannedAt"], row["sites"], row["inconsistent"]) for row in rows] == [
        (w, str(sum(w in s["bannedWorkers"] for s in sites)), str(len(sites)),
         str(sum(w in s["bannedWorkers"] for s in sites) < len(sites)).lower()) for w in workers]
    assert r.stdout.lstrip("\ufeff").splitlines()[0] == "clientId,client,worker,bannedAt,sites,inconsistent"
    r = wf("bans", "list", "--client", "Pennine Foods Ltd")
    assert r.stdout.splitlines()[0].split("  ")[:1] == ["client"]
    assert sum(workers[0] in s["bannedWorkers"] for s in sites) == 1  # the seed bans each worker at one site
    assert r.stdout.splitlines()[1].split()[-5:] == [workers[0], "1", "of", str(len(sites)), "yes"]
    r = wf("bans", "list", "--client", "Pennine Foods Ltd", "-o", "json")
    assert [row["siteIds"] for row in json.loads(r.stdout)] == [
        [s["id"] for s in sites if w in s["bannedWorkers"]] for w in workers]


@pytest.mark.parametrize(("worker", "message"), [
    ("", "error: a worker id is empty: give one like W-20417"),
    ("   ", "error: a worker id is empty: give one like W-20417"),
    ("W-1\tW-2", "error: worker id 'W-1\\tW-2' holds a control character; give the id as the service shows it"),
])
def test_an_id_no_one_means_is_one_line_exit_2(wf: Any, worker: str, message: str) -> None:
    for verb in ("add", "remove", "where"):
        r = wf("bans", verb, "W-1", worker, "--client", "Pennine Foods Ltd")
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", message + "\n"), (verb, r)


def test_add_without_a_scope_says_what_to_give(wf: Any) -> None:
    r = wf("bans", "add", "W-1")
    assert (r.exit_code, r.stderr) == (
        2, "error: give the sites: --client <client>, --branch <branch>, --all-clients or --site <site>\n")
    r = wf("bans", "add", "W-1", "--client", "No Such Client Ltd")
    assert r.exit_code == 4, r
    assert len(r.stderr.splitlines()) == 1
