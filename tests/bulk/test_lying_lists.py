"""Deletes no one meant (issue 43): a prune, a diff and a copy on deployments whose listings lie (sandbox
quirks foreign-sites, short-listing, young-missing, churn-pages) lose no record they should keep, say
which listing lied, and still delete what they should where the listing can be proven."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import write
from tests.fixtures.sandbox import ADMIN
from tests.matrix.conftest import Deployment


@pytest.fixture
def lying(tmp_path: Path) -> Iterator[Callable[[str], Deployment]]:
    started: list[Deployment] = []

    def start(quirk: str) -> Deployment:
        started.append(Deployment(quirk.split("+"), tmp_path))
        return started[-1]

    yield start
    for deployment in started:
        deployment.stop()


def _env(deployment: Deployment) -> dict[str, str]:
    return {"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token}


def _sites(deployment: Deployment, client_id: str, count: int, prefix: str) -> list[dict[str, Any]]:
    return [deployment.site(client_id, name=f"{prefix} {i:02d}") for i in range(count)]


def _names(deployment: Deployment, client_id: str) -> list[str]:
    return sorted(s["name"] for s in deployment.all(f"/api/clients/{client_id}/sites"))


def _file(tmp_path: Path, names: list[str]) -> Path:
    return write(tmp_path / "exact.csv", "name\n" + "".join(f"{name}\n" for name in names))


def test_a_prune_never_deletes_another_clients_sites_the_listing_held(lying: Callable[[str], Deployment], cli: Any,
                                                                      tmp_path: Path) -> None:
    deployment = lying("foreign-sites")
    branch = deployment.branch()
    a, b = deployment.client(branch["id"], name="Acme"), deployment.client(branch["id"], name="Bolt")
    _sites(deployment, a["id"], 3, "A")
    _sites(deployment, b["id"], 3, "B")
    path = _file(tmp_path, ["A 00", "A 01"])  # A 02 is no longer in the file: the one delete meant

    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1",
            env=_env(deployment))
    assert r.exit_code == 1, r
    listed = ", ".join(f"{s['name']} ({s['id']}, clientId {b['id']})"  # in the service's order
                       for s in deployment.all(f"/api/clients/{b['id']}/sites"))
    assert r.stderr.strip().splitlines()[-1] == (
        f"error: the service listed 3 sites under client Acme that belong to another client: {listed}; its listing "
        "cannot be trusted to decide deletes: nothing was deleted (--skip-misplaced leaves them out and deletes only what "
        "is proven)"), r.stderr
    assert _names(deployment, a["id"]) == ["A 00", "A 01", "A 02"]  # nothing deleted, B's sites included
    assert _names(deployment, b["id"]) == ["B 00", "B 01", "B 02"]

    r = cli("sites", "diff", str(path), "--client", "Acme", env=_env(deployment))
    assert r.exit_code == 2 and "belong to another client" in r.stderr, r  # diff: 1 means "differs"

    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1",
            "--skip-misplaced", env=_env(deployment))  # the explicit way on: only what is proven goes
    assert r.exit_code == 0, r
    for site in deployment.all(f"/api/clients/{b['id']}/sites"):
        assert (f"skipped: site {site['name']!r} ({site['id']}) was listed in client Acme but its clientId is "
                f"{b['id']}: not deleted (--skip-misplaced)\n") in r.stderr, r.stderr
    assert _names(deployment, a["id"]) == ["A 00", "A 01"]
    assert _names(deployment, b["id"]) == ["B 00", "B 01", "B 02"]


def test_a_prune_reads_each_delete_by_id_where_the_listing_names_no_client(lying: Callable[[str], Deployment],
                                                                          cli: Any, tmp_path: Path) -> None:
    deployment = lying("foreign-sites+lean-site-items")  # B's sites in A's listing, no item naming its client
    branch = deployment.branch()
    a, b = deployment.client(branch["id"], name="Acme"), deployment.client(branch["id"], name="Bolt")
    _sites(deployment, a["id"], 3, "A")
    theirs = _sites(deployment, b["id"], 2, "B")
    path = _file(tmp_path, ["A 00", "A 01"])  # A 02 is the one delete meant

    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1",
            env=_env(deployment))
    assert r.exit_code == 1, r
    assert "belong to another client" in r.stderr.strip().splitlines()[-1], r.stderr
    assert _names(deployment, a["id"]) == ["A 00", "A 01", "A 02"]  # nothing deleted, B's sites included
    assert _names(deployment, b["id"]) == ["B 00", "B 01"]

    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1",
            "--skip-misplaced", env=_env(deployment))
    assert r.exit_code == 0, r
    for site in theirs:
        assert f"skipped: site {site['name']!r} ({site['id']}) was listed in client Acme but its clientId is " \
               f"{b['id']}: not deleted (--skip-misplaced)\n" in r.stderr, r.stderr
    assert _names(deployment, a["id"]) == ["A 00", "A 01"]
    assert _names(deployment, b["id"]) == ["B 00", "B 01"]


_READERS = [("bans", "where", "W-1", "-o", "json"), ("sites", "export", "--all-clients", "-o", "json"),
            ("rates", "list", "--all-clients", "-o", "json"), ("sites", "list", "--client", "Acme", "--all", "-o", "json")]


# `sites list` of items that name no client gives them as the service lists them (docs/imports.md)
@pytest.mark.parametrize(("reader", "quirk"), [*((reader, "foreign-sites") for reader in _READERS),
                                               *((reader, "foreign-sites+lean-site-items") for reader in _READERS[:3])])
def test_readers_by_parent_list_each_site_once_under_its_own_client(lying: Callable[[str], Deployment], cli: Any,
                                                                   reader: tuple[str, ...], quirk: str) -> None:
    deployment = lying(quirk)
    branch = deployment.branch()
    a, b = deployment.client(branch["id"], name="Acme"), deployment.client(branch["id"], name="Bolt")
    mine, theirs = _sites(deployment, a["id"], 3, "A"), _sites(deployment, b["id"], 3, "B")
    owner = {s["id"]: a["id"] for s in mine} | {s["id"]: b["id"] for s in theirs}

    r = cli(*reader, env=_env(deployment))
    assert r.exit_code == 0, r
    rows = json.loads(r.stdout)
    ids = [row.get("siteId") or row.get("id") for row in rows]
    if reader[0] == "rates":  # a row per rate: each site's rows together, once
        ids = list(dict.fromkeys(ids))
    expected = [s["id"] for s in mine] if "Acme" in reader else [*owner]
    assert sorted(ids) == sorted(expected), r.stdout  # 6 sites, not 12; Acme's 3, not 6
    for row in rows:
        assert row["clientId"] == owner[row.get("siteId") or row["id"]]


def test_a_short_listing_deletes_nothing_and_says_so(lying: Callable[[str], Deployment], cli: Any,
                                                    tmp_path: Path) -> None:
    deployment = lying("short-listing")
    client = deployment.client(name="Acme")
    _sites(deployment, client["id"], 13, "S")
    names = _names(deployment, client["id"])
    path = _file(tmp_path, names[:12])  # S 12 is the one delete meant

    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1",
            env=_env(deployment))
    assert r.exit_code == 1, r
    assert r.stderr.strip().splitlines()[-1] == (
        "error: the listing of sites under client Acme was short: it gave 11 records where its count "
        "(totalRecordCount) says 13; nothing was deleted on its word"), r.stderr
    assert _names(deployment, client["id"]) == names


def test_a_short_listing_with_nothing_left_out_still_prunes(lying: Callable[[str], Deployment], cli: Any,
                                                           tmp_path: Path) -> None:
    deployment = lying("short-listing")  # 5 records: none at position 6, the listing is whole
    client = deployment.client(name="Acme")
    _sites(deployment, client["id"], 5, "S")
    r = cli("sites", "import", str(_file(tmp_path, ["S 00", "S 01", "S 02", "S 03"])), "--client", "Acme",
            "--prune", "--yes", "--allow-deletes", "1", env=_env(deployment))
    assert r.exit_code == 0, r
    assert _names(deployment, client["id"]) == ["S 00", "S 01", "S 02", "S 03"]


def test_young_records_missing_from_the_listing_are_never_deleted(lying: Callable[[str], Deployment], cli: Any,
                                                                  tmp_path: Path) -> None:
    deployment = lying("young-missing")
    client = deployment.client(name="Acme")
    time.sleep(1.1)  # a second later: Acme is not among the two newest clients, it is listed
    deployment.client(), deployment.client()
    _sites(deployment, client["id"], 6, "S")
    order = [s["name"] for s in deployment.all(f"/api/clients/{client['id']}/sites")]
    young = order[-2:]  # the two newest, in the service's order: the listing leaves them out
    path = _file(tmp_path, [*order[:2], *young])  # order[2:4] are the two deletes meant
    r = cli("sites", "import", str(path), "--client", "Acme", "--prune", "--yes", "--allow-deletes", "2",
            "--on-existing", "update", env=_env(deployment))
    assert _names(deployment, client["id"]) == sorted([*order[:2], *young]), r  # the young kept, 2 deleted
    assert r.exit_code == 10, r  # the young ones' rows met 409 as creates: said, never deleted


def _churning(deployment: Deployment, count: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Client Acme with `count` sites, and its sites in the service's order (createdOn, then id: sites made in
    the same second are in the order of their random ids, so a test names them by place, never by name)."""
    client = deployment.client(name="Acme")
    for i in range(count):
        deployment.site(client["id"], name=f"S {i:03d}")
    return client, deployment.all(f"/api/clients/{client['id']}/sites")


# churn-pages: each listing of two pages deletes its first record and re-makes it last. A prune's read gives
# 103 records of a count of 102 (the first one twice: as it was, and re-made), so it is read again, which churns
# order[1]; the records both reads gave (order[1] as it was before the second read churned it, order[0]
# re-made) number 102: they are the list as it was when the first read ended, and the prune deletes from them.
def test_a_list_changing_while_a_prune_reads_it_still_deletes_what_it_should(lying: Callable[[str], Deployment],
                                                                            cli: Any, tmp_path: Path) -> None:
    deployment = lying("churn-pages")
    client, order = _churning(deployment, 102)  # two pages of 100: the churn happens between them
    kept = [site["name"] for i, site in enumerate(order) if i not in (0, 2)]  # order[0] (re-made), order[2] go
    r = cli("sites", "import", str(_file(tmp_path, kept)), "--client", "Acme", "--prune", "--yes",
            "--allow-deletes", "2", env=_env(deployment))
    assert r.exit_code == 0, r
    assert "prune: 2 of 102 sites in client Acme to delete\n" in r.stderr, r.stderr
    assert f"delete  {order[2]['name']}  ({order[2]['id']})\n" in r.stderr, r.stderr
    assert r.stderr.rstrip().endswith(": deleted 2, skipped (exist) 100"), r.stderr
    after = {site["name"]: site["id"] for site in deployment.all(f"/api/clients/{client['id']}/sites")}
    assert sorted(after) == sorted(kept)  # 100 kept, none lost; the 2 meant to go are gone
    assert after[order[1]["name"]] != order[1]["id"]  # the second read churned order[1]: kept, re-made


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_delete_whose_record_the_list_churned_since_is_counted_gone(lying: Callable[[str], Deployment], cli: Any,
                                                                   tmp_path: Path, output: str) -> None:
    deployment = lying("churn-pages")
    client, order = _churning(deployment, 102)
    gone = order[1]  # in both reads as it was, then churned by the second: its DELETE meets 404
    kept = [site["name"] for i, site in enumerate(order) if i not in (1, 2)]
    r = cli("sites", "import", str(_file(tmp_path, kept)), "--client", "Acme", "--prune", "--yes",
            "--allow-deletes", "2", *(["-o", "json"] if output == "json" else []), env=_env(deployment))
    assert r.exit_code == 0, r
    assert f"delete  {gone['name']}  ({gone['id']})\n" in r.stderr, r.stderr
    assert "prune: 2 of 102 sites in client Acme to delete\n" in r.stderr, r.stderr
    if output == "json":  # every delete planned counted once: 1 + 1 + 100 = 102 rows
        summary = json.loads(r.stdout)
        assert (summary["deleted"], summary["gone"], summary["skipped"], summary["failed"]) == (1, 1, 100, 0), summary
    else:
        assert r.stderr.rstrip().endswith(": deleted 1, already gone 1, skipped (exist) 100"), r.stderr
    after = {site["name"]: site["id"] for site in deployment.all(f"/api/clients/{client['id']}/sites")}
    assert deployment.get("sites", gone["id"]) is None and order[2]["name"] not in after  # both meant to go: gone
    # gone's name again: the record the churn made after the prune began reading (never a delete), and no other
    assert sorted(after) == sorted([*kept, gone["name"]]) and after[gone["name"]] != gone["id"]


@pytest.fixture
def profiles(cli: Any, sandbox_factory: Any) -> Callable[[str], Any]:
    """`cli` logged in to a plain destination (the default profile) and a source playing `quirk` (`src`)."""

    def start(quirk: str) -> Any:
        destination, source = sandbox_factory(seed=False), sandbox_factory(seed=False, quirks=[quirk])
        return _two_profiles(cli, destination.url, source.url)

    return start


def _login_src(cli: Any, url: str) -> None:
    assert cli("-p", "src", "login", "--base-url", url, "--username", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1]).exit_code == 0


def _two_profiles(cli: Any, destination: str, source: str) -> Any:
    """`cli` logged in to `destination` (the default profile) and `source` (`src`), each with client Acme."""
    assert cli.login_as(destination, *ADMIN).exit_code == 0
    _login_src(cli, source)
    for profile in ("default", "src"):
        branch = json.loads(cli("-p", profile, "branches", "create", "--name", "Leeds", "-o", "json").stdout)
        assert cli("-p", profile, "clients", "create", "--branch", branch["id"], "--name", "Acme").exit_code == 0
    return cli


def _profile_names(cli: Any, profile: str) -> list[str]:
    r = cli("-p", profile, "sites", "list", "--client", "Acme", "--all", "-o", "json")
    assert r.exit_code == 0, r
    return sorted(s["name"] for s in json.loads(r.stdout))


def test_a_copy_from_a_short_listing_deletes_nothing(profiles: Callable[[str], Any], tmp_path: Path) -> None:
    cli = profiles("short-listing")
    names = [f"S {i:02d}" for i in range(13)]
    for profile in ("default", "src"):  # the destination already holds a copy of every source record
        r = cli("-p", profile, "sites", "import", str(_file(tmp_path, names)), "--client", "Acme")
        assert r.exit_code == 0, r
    r = cli("sites", "copy", "--from-profile", "src", "--client", "Acme", "--prune", "--yes",
            "--allow-deletes", "2")
    assert r.exit_code == 1, r
    assert "was short: it gave 11 records where its count (totalRecordCount) says 13" in r.stderr, r
    assert _profile_names(cli, "default") == names
    r = cli("sites", "diff", "--from-profile", "src", "--client", "Acme")
    assert r.exit_code == 2, r  # not 1 ("differs"): the source's listing cannot be compared
    assert "was short: it gave 11 records where its count (totalRecordCount) says 13" in r.stderr, r


def test_a_copy_from_a_list_changing_while_it_is_read_deletes_only_what_the_source_lacks(
        profiles: Callable[[str], Any], tmp_path: Path) -> None:
    cli = profiles("churn-pages")  # the source's every listing of two pages deletes its first record, re-makes it
    names = [f"S {i:03d}" for i in range(101)]
    assert cli("-p", "src", "sites", "import", str(_file(tmp_path, names)), "--client", "Acme").exit_code == 0
    r = cli("sites", "import", str(_file(tmp_path, [*names, "Gone 1"])), "--client", "Acme")
    assert r.exit_code == 0, r
    r = cli("sites", "copy", "--from-profile", "src", "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1")
    assert r.exit_code == 0, r
    assert "delete  Gone 1  (" in r.stderr, r.stderr
    assert _profile_names(cli, "default") == names  # 101 kept, the one the source lacks deleted


def test_a_copys_prune_keeps_a_copy_whose_source_is_there_by_id(cli: Any, sandbox_factory: Any,
                                                               tmp_path: Path) -> None:
    destination, honest = sandbox_factory(seed=False), sandbox_factory(seed=False)
    lagging = sandbox_factory(seed=False, db_path=honest.db_path, quirks=["young-missing"])  # the same service
    _two_profiles(cli, destination.url, honest.url)
    time.sleep(1.1)  # Acme is older than what follows: the lagging listing of clients holds it
    for profile in ("default", "src"):
        assert cli("-p", profile, "clients", "create", "--branch", "Leeds", "--name", "Later 1").exit_code == 0
        assert cli("-p", profile, "clients", "create", "--branch", "Leeds", "--name", "Later 2").exit_code == 0
    names = [f"S {i:02d}" for i in range(6)]
    assert cli("-p", "src", "sites", "import", str(_file(tmp_path, names)), "--client", "Acme").exit_code == 0
    r = cli("sites", "copy", "--from-profile", "src", "--client", "Acme", "--yes")  # every site, honestly listed
    assert r.exit_code == 0, r
    assert _profile_names(cli, "default") == names
    source = {s["name"]: s for s in json.loads(cli("-p", "src", "sites", "list", "--client", "Acme", "--all",
                                                   "-o", "json").stdout)}
    order = sorted(source, key=lambda n: (source[n]["createdOn"], source[n]["id"]))
    assert cli("-p", "src", "sites", "delete", source[order[0]]["id"], "--yes").exit_code == 0  # meant to go

    _login_src(cli, lagging.url)  # the same service, now through a listing that lags
    by_id = {f"/api/sites/{source[name]['id']}": name for name in (order[0], *order[-2:])}  # the 3 deletes planned

    def looked_up() -> list[str]:
        return sorted(by_id[r.path] for r in lagging.journal.records() if r.method == "GET" and r.path in by_id)

    lagging.journal.clear()
    r = cli("sites", "copy", "--from-profile", "src", "--client", "Acme", "--prune", "--yes", "--max-deletes", "2")
    assert r.exit_code == 12, r  # 3 planned, past the limit: refused, and no source look-up spent on them
    assert looked_up() == [], looked_up()
    assert _profile_names(cli, "default") == names

    lagging.journal.clear()
    r = cli("sites", "copy", "--from-profile", "src", "--client", "Acme", "--prune", "--yes", "--allow-deletes", "1")
    assert r.exit_code == 0, r
    for young in order[-2:]:  # left out by the source's listing, found there by id: kept
        assert f"kept: site '{young}' (" in r.stderr and "which profile src still holds" in r.stderr, r.stderr
    assert looked_up() == sorted(by_id.values()), looked_up()  # one request per delete planned
    assert _profile_names(cli, "default") == sorted(order[1:])  # the one deleted at the source: deleted here


@pytest.mark.parametrize("quirk", ["foreign-sites", "foreign-sites+lean-site-items"])
def test_audit_finds_each_site_once_under_its_own_client(lying: Callable[[str], Deployment], cli: Any,
                                                         quirk: str) -> None:
    deployment = lying(quirk)
    branch = deployment.branch()
    a, b = deployment.client(branch["id"], name="Acme"), deployment.client(branch["id"], name="Bolt")
    owner = {deployment.site(client["id"], rates=[])["id"]: client["name"] for client in (a, b, b)}

    r = cli("audit", "--all-clients", "--only", "no-rates", "-o", "json", env=_env(deployment))
    assert r.exit_code == 1, r  # 1: found
    found = json.loads(r.stdout)
    assert sorted(f["id"] for f in found) == sorted(owner), found  # 3 findings, not 6
    assert all(f["client"] == owner[f["id"]] for f in found), found
