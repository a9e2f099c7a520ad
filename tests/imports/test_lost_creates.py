"""A record wfctl created is this run's, whatever happened to the answer (issue 30 §1): on a deployment
that drops create answers and ignores Idempotency-Key, the rows an import creates are reported, counted and
journalled `created` (with a note that the service could not confirm whose they are), and undo deletes them;
`sites create` and the SDK decide the same. Two runs that both claim one record: one undo deletes it, the
other finds it gone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.imports.helpers import runs, sites_of
from wfctl.api.records.writes import UNSURE

LOST_AND_UNKEYED = ["drop-create-answer", "ignore-idempotency-key"]


@pytest.fixture
def deployment(sandbox_factory: Any, tmp_path: Path) -> tuple[Any, Any]:
    """(a sandbox that drops create answers and ignores keys, a default one on the same database)."""
    db = str(tmp_path / "lost.db")
    plain = sandbox_factory(db)
    return sandbox_factory(db, quirks=LOST_AND_UNKEYED), plain


def _client(cli: Any) -> str:
    r = cli("branches", "list", "-o", "json")
    branch = json.loads(r.stdout)[0]["id"]
    r = cli("clients", "create", "--branch", branch, "--name", "Lost Answers Ltd", "-o", "json")
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["id"])


def test_an_import_counts_journals_and_undoes_what_it_created(cli: Any, deployment: tuple[Any, Any],
                                                              tmp_path: Path) -> None:
    quirky, _ = deployment
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i},{i} Quay\n" for i in range(5)), encoding="utf-8")
    report = tmp_path / "report.csv"
    r = cli("sites", "import", str(path), "--client", client, "--report", str(report))
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(": created 5"), r.stderr
    lines = report.read_text(encoding="utf-8-sig").splitlines()
    assert all(line.split(",")[2] == "created" for line in lines[1:]), lines
    assert all(UNSURE.split(";")[0] in line for line in lines[1:]), lines
    run = runs(cli)[0]
    assert {k: v for k, v in run["counts"].items() if v} == {"created": 5}, run
    assert len(sites_of(cli, client)) == 5

    r = cli("imports", "undo", run["run"], "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith("deleted 5 sites"), r.stderr
    assert sites_of(cli, client) == {}


def test_sites_create_and_the_sdk_decide_the_same(cli: Any, deployment: tuple[Any, Any]) -> None:
    quirky, plain = deployment
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    r = cli("sites", "create", "--client", client, "--name", "By Verb", "-o", "json")
    assert r.exit_code == 0, r
    made = json.loads(r.stdout)
    assert list(sites_of(cli, client)) == ["By Verb"] and sites_of(cli, client)["By Verb"]["id"] == made["id"]
    assert r.stderr == ""  # a pipe: no note
    r = cli("--no-color", "sites", "create", "--client", client, "--name", "On A Terminal", tty=True)
    assert r.exit_code == 0, r
    assert r.stderr == f"note: the site was {UNSURE}\n"

    from tests.fixtures.sandbox import ADMIN, login_token
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    token = login_token(plain, *ADMIN)["accessToken"]
    with Client(quirky.url, auth=StaticTokenAuth(token, quirky.url)) as sdk:
        outcome = sdk.create_outcome("site", client, {"name": "By SDK", "address": "1 Quay"})
        assert sdk.create_site(client, {"name": "By SDK 2"})["name"] == "By SDK 2"
    assert (outcome.made, outcome.sure) == (True, False)
    assert sites_of(cli, client)["By SDK"]["id"] == outcome.record["id"]


def test_a_killed_run_resumed_and_undone_claims_every_row(cli: Any, sandbox_factory: Any, tmp_path: Path) -> None:
    """SIGKILL while rows are in flight, then the same import again: the rows the killed run was sending
    are found and claimed as the run's, so the run counts every row created and undo deletes them all."""
    import os
    import signal
    import subprocess
    import time

    from tests.fixtures.cli import REPO_ROOT

    rows = 40
    quirky = sandbox_factory(str(tmp_path / "killed.db"), quirks=LOST_AND_UNKEYED, latency_ms=40)
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i},{i} Quay\n" for i in range(rows)), encoding="utf-8")
    args = ["sites", "import", str(path), "--client", client, "--concurrency", "4"]
    proc = subprocess.Popen([str(REPO_ROOT / ".venv" / "bin" / "wfctl"), *args], env=cli.env, cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs_dir = tmp_path / "state" / "wfctl" / "runs" / "default"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        journals = list(runs_dir.glob("*.journal"))
        if journals and journals[0].read_text().count('"id": ') >= 8:  # rows done (created, or skipped)
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the import ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    assert runs(cli)[0]["state"] == "interrupted"

    r = cli(*args)
    assert r.exit_code == 0, r
    assert "skipped" not in r.stderr.splitlines()[-1], r.stderr
    run = runs(cli)[0]
    assert {k: v for k, v in run["counts"].items() if v} == {"created": rows}, run
    assert len(sites_of(cli, client)) == rows
    r = cli("imports", "undo", run["run"], "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(f"deleted {rows} sites"), r.stderr
    assert sites_of(cli, client) == {}


def test_undo_of_an_interrupted_run_takes_back_the_create_in_flight(cli: Any, deployment: tuple[Any, Any]) -> None:
    """A run stopped while its create was in flight (journalled `sending`), on a deployment that ignores
    keys: the record holding what was sent is the run's, and undo deletes it (it was 'failed: cannot say')."""
    import os

    from tests.imports.test_runs import header
    from wfctl.runs import journal

    quirky, _ = deployment
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    body = {"name": "In Flight", "address": "9 Quay"}
    r = cli("sites", "create", "--client", client, "--name", body["name"], "--address", body["address"], "-o", "json")
    assert r.exit_code == 0, r
    directory = os.path.join(str(cli.tmp_path), "state", "wfctl", "runs", "default")
    stopped = journal.Journal(journal.journal_path(directory, "261127-cccccc"),
                              {**header("261127-cccccc", "2026-11-27T10:00:00Z", target=quirky.url), "parent": client})
    stopped.intend(1, create=(body["name"], client, body))
    stopped.finish(None)
    r = cli("imports", "undo", "261127-cccccc", "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1] == "undo run " + runs(cli)[0]["run"] + " of run 261127-cccccc: deleted 1 site"
    assert sites_of(cli, client) == {}


def test_sixteen_workers_on_the_documented_quirk_set_create_and_undo_every_row(cli: Any, sandbox_factory: Any,
                                                                              tmp_path: Path) -> None:
    """docs/sandbox.md's quirk set and -j 16: each lost answer is looked up while the other workers' creates
    move records between the list's pages (createdOn ties ordered by a random id). No row may fail with
    'the list changed while it was read' (1-3 of 200 did), and undo deletes all 200."""
    rows = 200
    quirky = sandbox_factory(str(tmp_path / "sixteen.db"),
                             quirks=["put-clears", "ignore-branch-filter", "drop-create-answer", "next-page=int"])
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i:03d},{i} Quay\n" for i in range(rows)), encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", client, "-j", "16")
    assert r.exit_code == 0, r.stderr[-2000:]
    assert r.stderr.splitlines()[-1].endswith(f": created {rows}"), r.stderr[-2000:]
    r = cli("imports", "undo", runs(cli)[0]["run"], "--yes")
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[-1].endswith(f"deleted {rows} sites"), r.stderr
    assert sites_of(cli, client) == {}


def test_a_failed_create_whose_record_is_there_is_claimed_by_the_run_that_retries_it(
        cli: Any, deployment: tuple[Any, Any], tmp_path: Path) -> None:
    """A row recorded failed after its create was sent (its record made all the same), then the same
    command again, as the failure line says: the retry claims the record for the run (it called it
    'skipped (exist)', and undo left it)."""
    quirky, _ = deployment
    assert cli.login_as(quirky.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    path = tmp_path / "sites.csv"
    path.write_text("name,address\n" + "".join(f"Depot {i},{i} Quay\n" for i in range(3)), encoding="utf-8")
    args = ["sites", "import", str(path), "--client", client]
    assert cli(*args).exit_code == 0
    journal_path = next((Path(cli.tmp_path) / "state" / "wfctl" / "runs" / "default").glob("*.journal"))
    lines = [json.loads(line) for line in journal_path.read_text(encoding="utf-8").splitlines()]
    rewritten = []
    for line in lines[:-1]:  # without the end line: the run is unfinished, as one with a failed row is
        if line.get("r") == 2 and line.get("s") == "created":
            line = {"r": 2, "s": "failed", "e": "no answer from the service (HTTP 502)", "n": "Depot 1",
                    "b": {"name": "Depot 1", "address": "1 Quay"}, "p": client}
        rewritten.append(json.dumps(line))
    journal_path.write_text("\n".join(rewritten) + "\n", encoding="utf-8")

    r = cli(*args)
    assert r.exit_code == 0, r
    last = r.stderr.splitlines()[-1]  # this run's row; the 2 done before are the whole run's (-o json, imports list)
    assert ": 1 row (of 3; 2 done before) in " in last and last.endswith(": created 1"), r.stderr
    run = runs(cli)[0]
    assert {k: v for k, v in run["counts"].items() if v} == {"created": 3}, run
    r = cli("imports", "undo", run["run"], "--yes")
    assert r.stderr.splitlines()[-1].endswith("deleted 3 sites"), r.stderr
    assert sites_of(cli, client) == {}


def test_two_runs_that_claim_the_same_records_undo_them_once(cli: Any, sandbox_factory: Any, postgres: Any,
                                                             tmp_path: Path) -> None:
    """Two machines' runs both claim the same 40 records (a deployment that ignores keys cannot tell them
    apart), and both are undone at the same moment, each through its own server on one PostgreSQL database:
    every record is deleted once; the other undo finds it gone (both undos counted deletes: 2,040 of 2,000)."""
    import concurrent.futures
    import shutil

    from tests.fixtures.sandbox import ADMIN, login_token

    rows = 40
    db = postgres.new_database()
    servers = [sandbox_factory(db, quirks=LOST_AND_UNKEYED), sandbox_factory(db, seed=False)]
    token = login_token(servers[0], *ADMIN)["accessToken"]
    machines = [{"WFCTL_CONFIG": str(tmp_path / name / "config.toml"), "XDG_STATE_HOME": str(tmp_path / name / "state"),
                 "WFCTL_BASE_URL": server.url, "WFCTL_ACCESS_TOKEN": token}
                for name, server in zip("ab", servers, strict=True)]
    r = cli.subprocess("clients", "create", "--branch", json.loads(cli.subprocess(
        "branches", "list", "-o", "json", env=machines[0]).stdout)[0]["id"], "--name", "Claimed Twice", "-o", "json",
        env=machines[0])
    client = json.loads(r.stdout)["id"]
    path = tmp_path / "sites.csv"
    path.write_text("name\n" + "".join(f"Depot {i}\n" for i in range(rows)), encoding="utf-8")
    r = cli.subprocess("sites", "import", str(path), "--client", client, env=machines[0])
    assert r.exit_code == 0, r
    runs_a = tmp_path / "a" / "state" / "wfctl" / "runs" / "default"
    runs_b = tmp_path / "b" / "state" / "wfctl" / "runs" / "default"
    runs_b.mkdir(parents=True)
    (journal_a,) = runs_a.glob("*.journal")
    shutil.copy(journal_a, runs_b / journal_a.name)  # machine b's run claimed the same records
    journal_b = runs_b / journal_a.name
    lines = journal_b.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    journal_b.write_text("\n".join([json.dumps({**header, "target": servers[1].url}), *lines[1:]]) + "\n",
                         encoding="utf-8")
    run = header["run"]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        undos = list(pool.map(lambda env: cli.subprocess("imports", "undo", run, "--yes", "-o", "json", env=env),
                              machines))
    summaries = [json.loads(undo.stdout)["summary"] for undo in undos]
    assert [undo.exit_code for undo in undos] == [0, 0], undos
    assert sum(s["deleted"] for s in summaries) == rows, summaries
    assert sum(s["gone"] for s in summaries) == rows, summaries
    assert cli.subprocess("sites", "list", "--client", client, "-o", "json", env=machines[0]).stdout.strip() == "[]"


def test_sites_create_whose_record_another_writer_made_meanwhile_is_a_conflict(cli: Any, sandbox_factory: Any,
                                                                               tmp_path: Path) -> None:
    """The default sandbox (keys kept): the create never reaches the service, and another writer creates the
    same site meanwhile. The look-up finds it; the service, asked with this create's key, says it never
    applied that key: exit 5, and the other writer's site is left as it is."""
    import httpx

    from tests.fixtures.sandbox import auth_headers
    from wfctl.sandbox.injectors import FaultProxy

    server = sandbox_factory(str(tmp_path / "contested.db"))
    headers = auth_headers(server, "admin@northwind.test", "sandbox-admin")
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    client = _client(cli)
    other: list[dict[str, Any]] = []

    def lose_the_first(method: str, path: str) -> bool:
        if method != "POST" or other:
            return False
        answer = httpx.post(f"{server.url}{path}", headers=headers, json={"name": "Contested"})  # another writer
        other.append(answer.json())
        return True

    proxy = FaultProxy(server.url, drop=lose_the_first, share=1.0, unsent=True)
    try:
        token = headers["Authorization"].split(" ", 1)[1]
        r = cli("sites", "create", "--client", client, "--name", "Contested",
                env={"WFCTL_BASE_URL": proxy.url, "WFCTL_ACCESS_TOKEN": token})
    finally:
        proxy.stop()
    assert r.exit_code == 5, r
    assert "another writer made it while this create's answer was lost" in r.stderr, r.stderr
    assert [site["id"] for site in sites_of(cli, client).values()] == [other[0]["id"]]
