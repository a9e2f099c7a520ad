"""One retry policy (issue 22 §3): the bulk runs' lean writer (`Client.lean_writer`, one `http.client`
connection per worker) sends again exactly what the Client's httpx transport sends again, after the
same waits, and a wait of either holds the other's requests too.

The answers come from a tiny scripted server on a real socket: a 502 to a PUT, a 503 to a keyed POST, a
Retry-After of 15 minutes are faults the sandbox cannot be made to give on demand. Both writers talk to
the same server; the Client's `sleep` records each wait instead of waiting it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from wfctl.api import Client
from wfctl.api.auth import StaticTokenAuth
from wfctl.api.errors import ApiError

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
        sender = client.lean_writer()
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
    # attempts are bounded (4)
    "PUT 503 x5": ("PUT", None, [(503, {})] * 5, 4, [0.5, 1.0, 2.0], "refused 503"),
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
