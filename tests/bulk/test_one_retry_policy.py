"""One retry policy (issue 22 §3): the bulk runs' lean writer (`Client.lean_writer`, one `http.client`
connection per worker) sends again exactly what the Client's httpx transport sends again, after the
same waits, and a wait of either holds the other's requests too; `sites import` by either writer then
fails at once a row the service asks to send again only after longer than wfctl ever waits.

The answers come from a tiny scripted server on a real socket: a 502 to a PUT, a 503 to a keyed POST, a
Retry-After of 15 minutes are faults the sandbox cannot be made to give on demand. Both writers talk to
the same server; the Client's `sleep` records each wait instead of waiting it."""

from __future__ import annotations

import csv
import io
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names, write
from wfctl.api import Client
from wfctl.api.errors import ApiError
from wfctl.api.session.auth import StaticTokenAuth
from wfctl.sandbox.injectors import FaultProxy

RECORD = {"id": "s1", "name": "North"}


class Scripted:
    """Answers each request with the next (status, headers) of its script (then 200 with RECORD)."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str]]] = []
        self.seen: list[tuple[str, str, str | None]] = []  # method, path, Idempotency-Key
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
                status, headers = outer.script.pop(0) if outer.script else (200, {})
                body = json.dumps(RECORD if status < 400 else
                                  {"title": f"refused {status}", "status": status}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status < 400 else "application/problem+json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[Scripted]:
    scripted = Scripted()
    yield scripted
    scripted.stop()


def client_of(server: Scripted, sleeps: list[float]) -> Client:
    return Client(server.url, auth=StaticTokenAuth("policy-token", server.url), sleep=sleeps.append)


def send(client: Client, writer: str, method: str, key: str | None) -> Any:
    """One request by the named writer: the lean one (bulk runs) or the Client's httpx session."""
    if writer == "lean":
        sender = client._runs.lean_writer()
        assert sender is not None  # the lean path is the one under test
        return sender.request(method, "/api/sites/s1", {"name": "North"}, key)
    return client.request(method, "/api/sites/s1", json={"name": "North"}, idempotency_key=key)


RA = "Retry-After"
SCENARIOS = {
    # a PUT is idempotent: sent again after any passing failure, waits growing with full jitter
    "PUT 502 502 200": ("PUT", None, [(502, {}), (502, {})], 3, [0.5, 1.0], None),
    # a refusal is sent again after the Retry-After the service asked for
    "keyed POST 429 then 201": ("POST", "k-1", [(429, {RA: "3"})], 2, [3.0], None),
    "keyed POST 503 then 201": ("POST", "k-2", [(503, {RA: "2"})], 2, [2.0], None),
    # a 502 to a create may follow a create that was applied: not sent again here (the Client's create
    # protocol looks it up first)
    "POST 502": ("POST", "k-3", [(502, {})], 1, [], "refused 502"),
    # a Retry-After beyond the cap (30 s) ends the retries at once: the answer is reported, no wait
    "PUT 429 Retry-After 900": ("PUT", None, [(429, {RA: "900"})], 1, [], "refused 429"),
    # a 429 paces: never counted toward the 4 tries (issue 45)
    "PUT 429 x5": ("PUT", None, [(429, {})] * 5, 6, [0.5, 1.0, 2.0, 2.0, 2.0], None),
    "keyed POST 429 x5 then 201": ("POST", "k-4", [(429, {RA: "1"})] * 5, 6, [1.0] * 5, None),
    # attempts are bounded (4)
    "PUT 500 x5": ("PUT", None, [(500, {})] * 5, 4, [0.5, 1.0, 2.0], "refused 500"),
    # 503 is an outage: ridden out (attempts not counted, a try every 2 s at most) until it is over.
    "PUT 503 x5": ("PUT", None, [(503, {})] * 5, 6, [0.5, 1.0, 2.0, 2.0, 2.0], None),
}


@pytest.mark.parametrize("writer", ["httpx", "lean"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_both_writers_send_again_what_the_one_policy_says(server: Scripted, scenario: str, writer: str) -> None:
    method, key, script, requests, waits, error = SCENARIOS[scenario]
    server.script[:] = list(script)
    server.seen.clear()
    sleeps: list[float] = []
    client = client_of(server, sleeps)
    try:
        if error is None:
            assert send(client, writer, method, key) == RECORD
        else:
            with pytest.raises(ApiError) as caught:
                send(client, writer, method, key)
            assert caught.value.one_line().startswith(error), caught.value.one_line()
    finally:
        client.close()
    assert server.seen == [(method, "/api/sites/s1", key)] * requests  # the same request, the same key
    assert len(sleeps) == len(waits), sleeps
    for slept, most in zip(sleeps, waits, strict=True):
        if scenario.startswith("keyed"):
            assert slept == most  # the service's Retry-After, as asked
        else:
            assert 0.0 <= slept <= most  # backoff with full jitter, capped


def test_a_wait_of_the_lean_writer_holds_the_clients_requests(server: Scripted) -> None:
    """One 429 slows the whole pool: the Client's next request (a worker's look-up) waits out the
    Retry-After the lean writer was given."""
    server.script[:] = [(429, {RA: "3"})]
    server.seen.clear()
    sleeps: list[float] = []
    client = client_of(server, sleeps)
    try:
        assert send(client, "lean", "PUT", None) == RECORD
        assert sleeps == [3.0]
        assert client.request("GET", "/api/sites/s1") == RECORD
    finally:
        client.close()
    assert len(sleeps) == 2 and 2.0 < sleeps[1] <= 3.0, sleeps  # the rest of the pool's pause
    assert [m for m, _, _ in server.seen] == ["PUT", "PUT", "GET"]


def refusing_proxy(upstream: str, *, refuse: Callable[[str, str], bool], count: int,
                   retry_after: int = 900) -> FaultProxy:
    """A proxy on a real socket in front of the sandbox that answers the first `count` matching requests
    itself, 429 with `Retry-After: 900` (the sandbox's own 429 says 1 s), and forwards the rest."""
    body = json.dumps({"title": "Too many requests", "status": 429}).encode()
    refusal = (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: " + str(retry_after).encode() + b"\r\n"
               b"Content-Type: application/problem+json\r\nContent-Length: " + str(len(body)).encode()
               + b"\r\n\r\n" + body)
    left = [count]

    def answer(method: str, path: str) -> bytes | None:
        if refuse(method, path) and left[0] > 0:
            left[0] -= 1
            return refusal
        return None

    proxy = FaultProxy(upstream, drop=lambda method, path: False, answer=answer)
    proxy.left = left  # type: ignore[attr-defined]  # how many refusals are still to come
    return proxy


@pytest.mark.parametrize("writer", ["lean", "httpx"])
def test_an_import_fails_at_once_a_row_the_service_defers_beyond_the_cap(cli: Any, sandbox: Any, tmp_path: Path,
                                                                        writer: str) -> None:
    """Three creates refused with `Retry-After: 900` (15 minutes, past the 30 s wfctl waits at most): those
    rows fail at once with the service's answer, the others are created, and the run says exit 10 (run
    the same command again to retry them). Whichever writer sends (WFCTL_BULK_HTTPX=1: the Client's)."""
    proxy = refusing_proxy(sandbox.url, refuse=lambda method, path: method == "POST" and path.endswith("/sites"),
                          count=3)
    try:
        assert cli.login_as(proxy.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
        cid = new_client(cli)
        path = write(tmp_path / "s.csv", "name\n" + "".join(f"Deferred {i:02d}\n" for i in range(12)))
        env = {"WFCTL_BULK_HTTPX": "1"} if writer == "httpx" else {}
        started = time.monotonic()
        r = cli("sites", "import", str(path), "--client", cid, "--concurrency", "2",
                "--report", str(tmp_path / "r.csv"), env=env)
        took = time.monotonic() - started
    finally:
        proxy.stop()
    assert r.exit_code == 10, r
    assert took < 20, took  # no row waited out the 15 minutes, nor 30 s of them
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text(encoding="utf-8-sig"), newline="")))
    failed = [row for row in rows if row["status"] == "failed"]
    assert len(failed) == 3 and all("Too many requests" in row["error"] for row in failed), failed
    assert sorted(row["status"] for row in rows) == ["created"] * 9 + ["failed"] * 3
    assert sorted(site_names(cli, cid)) == sorted(row["name"] for row in rows if row["status"] == "created")


def _unused_url() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("writer", ["httpx", "lean"])
def test_both_writers_try_a_connection_that_is_refused_as_often(writer: str) -> None:
    """Once the service has answered the pool, a request that never left (nothing listens now: a restart) is
    sent again whatever its method, a create too, for the outage's 60 s (waits of growing jitter, 2 s at
    most), then the same one line."""
    url = _unused_url()
    sleeps: list[float] = []
    client = Client(url, auth=StaticTokenAuth("policy-token", url), sleep=sleeps.append)
    client._session()
    client._retrying.pause.reached = True  # as after any answer of the service
    try:
        with pytest.raises(ApiError) as caught:
            send(client, writer, "POST", "k-refused")
    finally:
        client.close()
    assert caught.value.one_line().startswith(f"cannot reach {url}: "), caught.value.one_line()
    assert caught.value.one_line().endswith("Connection refused"), caught.value.one_line()
    # An outage: tried again (every 2 s at most) until it has lasted its 60 s, then the one line.
    assert abs(sum(sleeps) - 60) < 0.06 and len(sleeps) > 30, sleeps
    assert all(0.0 <= slept <= most for slept, most in zip(sleeps, [0.5, 1.0] + [2.0] * 99, strict=False)), sleeps


@pytest.mark.parametrize("writer", ["httpx", "lean"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_both_writers_say_a_refusal_before_any_answer_at_once(writer: str, method: str) -> None:
    """Issue 49: refused before the service answered anything (not started, a wrong port): one try, no wait."""
    url = _unused_url()
    sleeps: list[float] = []
    client = Client(url, auth=StaticTokenAuth("policy-token", url), sleep=sleeps.append)
    try:
        with pytest.raises(ApiError) as caught:
            send(client, writer, method, "k-first" if method == "POST" else None)
    finally:
        client.close()
    assert caught.value.one_line().startswith(f"cannot reach {url}: "), caught.value.one_line()
    assert caught.value.one_line().endswith("Connection refused"), caught.value.one_line()
    assert sleeps == []


def ctrl_c_while_waiting(args: list[str], env: dict[str, str], proxy: FaultProxy) -> tuple[int, str, float]:
    """Run `wfctl ARGS`; once the proxy has refused its request (the run now waits out the Retry-After),
    Ctrl-C: (exit status, stderr, seconds from the Ctrl-C to the end)."""
    import os
    import signal
    import subprocess

    from tests.bulk.test_runs_faults import command
    from tests.fixtures.cli import REPO_ROOT

    proc = subprocess.Popen([*command(), *args], env=env, cwd=str(REPO_ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while proxy.left[0] and proc.poll() is None and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.05)
        time.sleep(0.5)  # the refused request's wait has begun (and holds the other workers)
        assert proxy.left[0] == 0, "the proxy refused nothing"  # type: ignore[attr-defined]
        assert proc.poll() is None, proc.communicate()
        interrupted = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        return proc.returncode, err, time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("writer", ["lean", "httpx"])
def test_ctrl_c_ends_an_import_waiting_out_a_retry_after_at_once(cli: Any, sandbox: Any, tmp_path: Path,
                                                                writer: str) -> None:
    """A create refused with `Retry-After: 25` (within the 30 s wfctl waits) holds every worker; Ctrl-C then
    ends the run at once (it waited the 25 s out), exit 130, and running it again creates every row once."""
    from tests.bulk.test_runs_faults import env_of

    proxy = refusing_proxy(sandbox.url, refuse=lambda method, path: method == "POST" and path.endswith("/sites"),
                           count=1, retry_after=25)
    try:
        assert cli.login_as(proxy.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
        cid = new_client(cli)
        path = write(tmp_path / "s.csv", "name\n" + "".join(f"Waiting {i:02d}\n" for i in range(8)))
        env = env_of(cli, **({"WFCTL_BULK_HTTPX": "1"} if writer == "httpx" else {}))
        args = ["sites", "import", str(path), "--client", cid, "--concurrency", "2"]
        status, err, took = ctrl_c_while_waiting(args, env, proxy)
        assert status == 130, err
        assert took < 5, (took, err)  # not the rest of the 25 s
        assert "run the same command again to resume" in err, err
        again = cli(*args)
    finally:
        proxy.stop()
    assert again.exit_code == 0, again
    assert sorted(site_names(cli, cid)) == [f"Waiting {i:02d}" for i in range(8)]


def test_ctrl_c_ends_a_rate_change_waiting_out_a_retry_after_at_once(cli: Any, sandbox: Any, tmp_path: Path) -> None:
    """`rates set` too: a PUT refused with `Retry-After: 25` holds the run; Ctrl-C ends it at once (exit 130),
    and running it again changes every site once."""
    from tests.bulk.test_runs_faults import env_of

    assert cli.login_as(sandbox.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    cid = new_client(cli)
    path = write(tmp_path / "s.csv", "name,rates\n" + "".join(f"Rated {i:02d},Forklift Driver=13.25\n" for i in range(6)))
    assert cli("sites", "import", str(path), "--client", cid).exit_code == 0
    proxy = refusing_proxy(sandbox.url, refuse=lambda method, path: method == "PUT", count=1, retry_after=25)
    try:
        assert cli.login_as(proxy.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
        args = ["rates", "set", "--client", cid, "--skill", "Forklift Driver", "--to", "14", "-j", "2"]
        status, err, took = ctrl_c_while_waiting(args, env_of(cli), proxy)
        assert status == 130, err
        assert took < 5, (took, err)
        again = cli(*args)
        assert again.exit_code == 0, again
        listed = cli("rates", "list", "--client", cid, "-o", "json")
    finally:
        proxy.stop()
    assert listed.exit_code == 0, listed
    rates = json.loads(listed.stdout)
    assert sorted(r["hourlyRate"] for r in rates) == [14.0] * 6, rates


def test_while_answered_429_the_pool_lets_fewer_requests_through_at_once() -> None:
    """Issue 45: a 429 halves how many requests of the pool are under way (at least one), each answer that
    is not a 429 lets one more through, and once as many as ever may go, or THROTTLE_EASE seconds after the
    last 429, any number may again."""
    import threading

    from wfctl.api.net.retry import THROTTLE_EASE, Pause

    now = [0.0]
    pause = Pause(sleep=lambda seconds: None, clock=lambda: now[0])
    inside: list[int] = []
    release = threading.Event()
    entered = threading.Semaphore(0)

    def request() -> None:
        with pause.admitted():
            entered.release()
            release.wait(10)

    def under_way(count: int) -> list[threading.Thread]:
        threads = [threading.Thread(target=request) for _ in range(count)]
        for thread in threads:
            thread.start()
        return threads

    first = under_way(8)
    for _ in range(8):
        assert entered.acquire(timeout=5)
    pause.throttle(1.0)  # 8 under way: 4 at once from now on
    release.set()
    for thread in first:
        thread.join(5)
    release.clear()
    second = under_way(6)
    for _ in range(4):
        assert entered.acquire(timeout=5)
    assert not entered.acquire(timeout=0.3)  # the fifth waits
    inside.append(pause._active)
    pause.note_answer(refused=True)  # another 429: no more let through
    assert not entered.acquire(timeout=0.2)
    pause.note_answer()  # an answer: one more
    assert entered.acquire(timeout=5)
    assert not entered.acquire(timeout=0.2)
    now[0] += 1.0 + THROTTLE_EASE  # no 429 for a while: any number
    assert entered.acquire(timeout=5)
    release.set()
    for thread in second:
        thread.join(5)
    assert inside == [4] and pause._active == 0
