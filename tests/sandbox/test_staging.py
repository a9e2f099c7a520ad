"""The sandbox as a team's staging service (issues 10 and 16): `--database` on PostgreSQL, `--workers`,
clear refusals before serving, and the database keeping every rule across processes.

The PostgreSQL cases use the session's throw-away cluster (fixture `postgres`, tests/fixtures/postgres.py);
with WFCTL_REQUIRE_REAL_COMPONENTS=1 (CI) a missing PostgreSQL fails them instead of skipping.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import REPO_ROOT, Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers, login_token
from wfctl.sandbox.store import SCHEMA_VERSION, count_reuse_detections, open_store

CALLS = 20


def _serve(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """`wfctl sandbox serve --port 0 ...` as a real process; (the process, its URL) once it answers."""
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "sandbox", "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO_ROOT), **(env or {})})
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("stop with: kill"):
            url = next(seen for seen in lines if seen.startswith("wfctl sandbox on ")).split()[3]
            threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()  # type: ignore[arg-type]
            proc.banner = lines  # type: ignore[attr-defined]
            return proc, url
    proc.kill()
    raise AssertionError("the sandbox did not start: " + "".join(lines))


def _stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()


# ---- refusals before serving (exit 2, one line) ----------------------------------------------------


def test_an_unknown_scheme_is_refused(cli: Cli) -> None:
    result = cli("sandbox", "serve", "--port", "0", "--database", "mysql://root:hunter2@db/staging")
    assert result.exit_code == 2
    assert result.stderr == ("error: --database mysql://root:***@db/staging: unknown scheme 'mysql'; use a file, "
                             "sqlite:///<file> or postgresql://<user>@<host>:<port>/<database>\n")


def test_workers_need_postgresql(cli: Cli, tmp_path: Path) -> None:
    result = cli("sandbox", "serve", "--port", "0", "--db", str(tmp_path / "x.db"), "--workers", "2")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --workers needs a PostgreSQL --database: SQLite has one writer")
    assert not (tmp_path / "x.db").exists()


def test_sqlite_url_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    relative = tmp_path / "rel.db"
    monkeypatch.chdir(tmp_path)
    for database, path in ((f"sqlite:///{relative.name}", relative), (f"sqlite:///{tmp_path}/abs.db",
                                                                      tmp_path / "abs.db")):
        store = open_store(database)
        store.close()
        assert path.exists(), database
    memory = open_store("sqlite://")
    assert memory.location == "memory"
    memory.close()


def test_unreachable_postgresql(cli: Cli, postgres: Any) -> None:
    from tests.fixtures.postgres import free_port

    url = f"postgresql://wfctl:{postgres.password}@127.0.0.1:{free_port()}/nothing"
    result = cli("sandbox", "serve", "--port", "0", "--database", url)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --database postgresql://wfctl:***@127.0.0.1:{url.split(':')[3]}")
    assert "cannot connect" in result.stderr and "Connection refused" in result.stderr
    assert postgres.password not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_wrong_password(cli: Cli, postgres: Any) -> None:
    url = postgres.new_database().replace(postgres.password, "not-the-password")
    result = cli("sandbox", "serve", "--port", "0", "--database", url)
    assert result.exit_code == 2
    assert "cannot connect" in result.stderr and 'password authentication failed for user "wfctl"' in result.stderr
    assert "not-the-password" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_no_such_database(cli: Cli, postgres: Any) -> None:
    result = cli("sandbox", "serve", "--port", "0", "--database", postgres.url("no_such_db"))
    assert result.exit_code == 2
    assert 'database "no_such_db" does not exist' in result.stderr


@pytest.mark.parametrize("backend_name", ["sqlite", "postgresql"])
def test_another_schema_version_is_refused(cli: Cli, backend_name: str, tmp_path: Path,
                                           request: pytest.FixtureRequest) -> None:
    database = (str(tmp_path / "old.db") if backend_name == "sqlite"
                else request.getfixturevalue("postgres").new_database())
    store = open_store(database)
    store.db.execute("UPDATE sandbox_meta SET value = '99' WHERE key = 'schema_version'")
    store.close()
    result = cli("sandbox", "serve", "--port", "0", "--database", database)
    assert result.exit_code == 2
    assert result.stderr.endswith(f": holds the sandbox's schema version 99; this wfctl uses version "
                                  f"{SCHEMA_VERSION}: use a wfctl of that version, or another database\n")
    assert len(result.stderr.splitlines()) == 1


def test_a_bad_certificate_is_refused_before_serving(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "cert.pem"
    bad.write_text("not a certificate\n")
    result = cli("sandbox", "serve", "--port", "0", "--tls-cert", str(bad), "--tls-key", str(bad))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --tls-cert {bad} / --tls-key {bad}: not a PEM certificate chain")
    missing = cli("sandbox", "serve", "--port", "0", "--tls-cert", str(tmp_path / "none.pem"), "--tls-key", str(bad))
    assert missing.exit_code == 2
    assert missing.stderr == f"error: --tls-cert {tmp_path / 'none.pem'}: no such file or directory\n"
    half = cli("sandbox", "serve", "--port", "0", "--tls-cert", str(bad))
    assert half.exit_code == 2 and "--tls-cert and --tls-key go together" in half.stderr


# ---- the database keeps the rules across processes -------------------------------------------------


def test_one_idempotency_key_one_create_across_two_servers(sandbox_factory: Callable[..., SandboxServer]) -> None:
    """The same POST with the same key, sent at once to two servers on one database: applied once, and
    both answers are the created record."""
    one = sandbox_factory()
    two = sandbox_factory(db_path=one.db_path)
    headers = {**auth_headers(one, *ADMIN), "Idempotency-Key": f"race-{uuid.uuid4()}"}
    name = f"Idem {uuid.uuid4().hex[:8]}"
    answers: list[httpx.Response] = []
    barrier = threading.Barrier(8)

    def post(url: str) -> None:
        barrier.wait()
        answers.append(httpx.post(f"{url}/api/branches", headers=headers, json={"name": name}, timeout=30))

    threads = [threading.Thread(target=post, args=(server.url,)) for server in (one, two) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [201] * 8, [a.text for a in answers]
    assert len({a.json()["id"] for a in answers}) == 1
    assert sum(1 for a in answers if "idempotent-replayed" not in a.headers) == 1
    listed = httpx.get(f"{one.url}/api/branches", headers=headers, params={"pageSize": 100}).json()
    assert sum(1 for b in listed["data"] if b["name"] == name) == 1


def test_a_refresh_token_rotates_once_across_two_servers(sandbox_factory: Callable[..., SandboxServer]) -> None:
    """The same pair sent at once to two servers on one database: rotated once; the second presentation is
    within the grace window (G3), so both get the same new pair and the login stays (no reuse detection)."""
    one = sandbox_factory()
    two = sandbox_factory(db_path=one.db_path)
    pair = login_token(one, *ADMIN)
    body = {"accessToken": pair["accessToken"], "refreshToken": pair["refreshToken"]}
    answers: list[httpx.Response] = []
    barrier = threading.Barrier(2)

    def refresh(url: str) -> None:
        barrier.wait()
        answers.append(httpx.post(f"{url}/identity/refresh", json=body, timeout=30))

    threads = [threading.Thread(target=refresh, args=(server.url,)) for server in (one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert answers[0].json()["refreshToken"] == answers[1].json()["refreshToken"] != pair["refreshToken"]
    assert answers[0].json()["accessToken"] == answers[1].json()["accessToken"]
    assert one.reuse_detections() == 0


# ---- several workers on PostgreSQL ---------------------------------------------------------------


@pytest.mark.slow
def test_eight_wfctl_processes_two_workers_short_tokens(cli: Cli, postgres: Any) -> None:
    """8 wfctl processes x 20 calls against 2 workers with 2-second access tokens: every call succeeds and
    no refresh token is ever presented twice (0 reuse revocations)."""
    database = postgres.new_database()
    fast = SandboxServer(database)  # the records are made here, without latency
    try:
        headers = auth_headers(fast, *ADMIN)
        existing = httpx.get(f"{fast.url}/api/branches", headers=headers).json()["totalRecordCount"]
        for n in range(CALLS - existing):
            httpx.post(f"{fast.url}/api/branches", headers=headers, json={"name": f"parallel-{n}"}).raise_for_status()
    finally:
        fast.stop()
    proc, url = _serve("--database", database, "--workers", "2", "--access-ttl", "2", "--latency", "700")
    try:
        banner = "".join(proc.banner)  # type: ignore[attr-defined]
        assert "2 workers" in banner and postgres.password not in banner
        assert cli.login_as(url, *ADMIN).exit_code == 0
        elapsed = cli.paginate_in_parallel(8, CALLS)
        assert elapsed > 2, elapsed  # the TTL ran out along the way, so refreshes raced
        assert count_reuse_detections(database) == 0
        import psycopg

        with psycopg.connect(database, autocommit=True) as conn:
            servers = conn.execute("SELECT count(DISTINCT pid) FROM pg_stat_activity WHERE datname = "
                                   "current_database() AND application_name = 'wfctl-sandbox'").fetchone()
        assert servers is not None and servers[0] == 2  # one connection per worker: two processes served
    finally:
        code = _stop(proc)
    assert code == 0, "".join(proc.banner)  # type: ignore[attr-defined]
    assert "".join(proc.banner).rstrip().endswith("sandbox stopped")  # type: ignore[attr-defined]


def test_a_worker_that_dies_is_replaced(postgres: Any) -> None:
    proc, url = _serve("--database", postgres.new_database(), "--workers", "2")
    try:
        from wfctl.sandbox.injectors import kill_worker, worker_pids

        assert len(worker_pids(proc.pid)) == 2
        killed = kill_worker(proc.pid)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            alive = worker_pids(proc.pid)
            if len(alive) == 2 and killed not in alive:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the dead worker was not replaced")
        for _ in range(10):  # whichever worker answers, it answers
            assert login_token_at(url).status_code == 200
    finally:
        code = _stop(proc)
    assert code == 0
    assert re.search(r"^sandbox worker [12] stopped \(signal SIGKILL\); starting another$",
                     "".join(proc.banner), re.M)  # type: ignore[attr-defined]


def login_token_at(url: str) -> httpx.Response:
    return httpx.post(f"{url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]}, timeout=10)


# ---- off loopback: no published passwords (issue 16 section 1) ----------------------------------------


def test_off_loopback_a_new_database_gets_random_passwords(sandbox_factory: Callable[..., SandboxServer]) -> None:
    """Served beyond loopback (played here on loopback: `exposed`), the published passwords open nothing;
    the logins' random passwords, shown once, do."""
    from wfctl.sandbox.seed import LOGINS

    server = sandbox_factory(exposed=True)
    assert sorted(server.new_passwords) == sorted(username for username, *_ in LOGINS)
    for username, published, *_ in LOGINS:
        assert server.new_passwords[username] != published and len(server.new_passwords[username]) >= 16
    refused = httpx.post(f"{server.url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]})
    assert refused.status_code == 401
    assert login_token(server, ADMIN[0], server.new_passwords[ADMIN[0]])["accessToken"]


def test_off_loopback_the_published_passwords_of_an_old_database_are_refused(
        sandbox_factory: Callable[..., SandboxServer]) -> None:
    """A database first served on loopback keeps the published passwords; served beyond loopback, they are
    refused (and no new passwords are made: the banner says to set them with `wfctl sandbox users`)."""
    laptop = sandbox_factory()
    assert login_token(laptop, *ADMIN)["accessToken"]
    shared = sandbox_factory(db_path=laptop.db_path, exposed=True)
    assert shared.new_passwords == {}
    answer = httpx.post(f"{shared.url}/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]})
    assert answer.status_code == 401 and answer.json()["detail"] == "wrong username or password"
    assert login_token(laptop, *ADMIN)["accessToken"]  # on loopback the laptop's sandbox still lets them in



# ---- TLS, on each backend (issue 16) ---------------------------------------------------------------


def test_a_tls_staging_sandbox_that_wfctl_logs_in_to_with_its_ca(cli: Cli, backend: str,
                                                                 new_database: Callable[[], str],
                                                                 tmp_path: Path) -> None:
    """`wfctl sandbox serve --tls-cert/--tls-key` (with 2 workers on PostgreSQL) and a certificate from a
    CA made here: wfctl logs in with `--ca-bundle` and reads; without it, a one-line certificate error."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1")
    ca_file, cert, key = tmp_path / "ca.pem", tmp_path / "chain.pem", tmp_path / "key.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    issued.private_key_and_cert_chain_pem.write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    workers = ["--workers", "2"] if backend == "postgresql" else []
    proc, url = _serve("--database", new_database(), "--tls-cert", str(cert), "--tls-key", str(key), *workers)
    try:
        assert url.startswith("https://127.0.0.1:")
        banner = "".join(proc.banner)  # type: ignore[attr-defined]
        assert (f"log in with: wfctl --ca-bundle <its CA file> login --base-url {url} --username "
                "admin@northwind.test") in banner
        untrusted = cli("login", "--base-url", url, "--username", ADMIN[0], "--password-stdin",
                        "--credential-store", "file", input=ADMIN[1])
        assert untrusted.exit_code == 7, untrusted
        assert "is not trusted" in untrusted.stderr and "--ca-bundle" in untrusted.stderr
        assert len(untrusted.stderr.splitlines()) == 1
        trusted = cli("--ca-bundle", str(ca_file), "login", "--base-url", url, "--username", ADMIN[0],
                      "--password-stdin", "--credential-store", "file", input=ADMIN[1])
        assert trusted.exit_code == 0, trusted
        listed = cli("branches", "list", "-o", "json")
        assert listed.exit_code == 0, listed
        assert "Manchester Central" in {branch["name"] for branch in json.loads(listed.stdout)}
    finally:
        assert _stop(proc) == 0


def test_the_rate_limit_holds_for_all_servers_on_a_database(sandbox_factory: Callable[..., SandboxServer]) -> None:
    """`--rate-limit 5` with two servers on one database: 5 requests a second in all, not 5 each."""
    one = sandbox_factory(seed=False, rate_limit=5)
    two = sandbox_factory(seed=False, rate_limit=5, db_path=one.db_path)
    with httpx.Client(timeout=10) as client:
        for server in (one, two):
            client.get(f"{server.url}/openapi.json")  # connected, so the burst below fits in a second
        for _ in range(5):  # a burst that crosses into the next second says nothing: try again
            time.sleep(1.05 - time.time() % 1)  # just after the start of a second
            started = time.time()
            statuses = [client.get(f"{server.url}/api/branches").status_code for server in (one, two) * 6]
            if int(time.time()) == int(started):
                break
        else:
            pytest.skip("every burst crossed a second: too slow a machine to tell")
    assert statuses.count(401) == 5 and statuses.count(429) == 7, statuses


def test_a_lost_database_connection_is_replaced(postgres: Any) -> None:
    """The database drops the sandbox's connection (a restart, a failover, an admin's kill): the next
    request gets a new connection from the pool and is answered; nothing is lost."""
    import psycopg

    database = postgres.new_database()
    server = SandboxServer(database)
    try:
        headers = auth_headers(server, *ADMIN)
        assert httpx.get(f"{server.url}/api/branches", headers=headers).status_code == 200
        with psycopg.connect(database, autocommit=True) as conn:
            killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                                  "current_database() AND application_name = 'wfctl-sandbox'").fetchone()
        assert killed is not None and killed[0] >= 1
        answer = httpx.get(f"{server.url}/api/branches", headers=headers)
        assert answer.status_code == 200, answer.text
        created = httpx.post(f"{server.url}/api/branches", headers=headers, json={"name": f"After {uuid.uuid4()}"})
        assert created.status_code == 201, created.text
    finally:
        server.stop()


def test_workers_stop_when_their_parent_is_killed(postgres: Any) -> None:
    """SIGKILL to `serve` (nothing can be passed on): its workers notice and stop, freeing the port."""
    import psutil

    proc, url = _serve("--database", postgres.new_database(), "--workers", "2")
    workers = psutil.Process(proc.pid).children()
    assert len(workers) == 2
    proc.kill()
    proc.wait(timeout=10)
    _, alive = psutil.wait_procs(workers, timeout=15)
    assert not alive, alive
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/openapi.json", timeout=2)
