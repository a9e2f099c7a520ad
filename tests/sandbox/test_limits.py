"""Issue 12: the sandbox refuses oversized bodies before reading them, warns off loopback, and says when
`--db` is not a database."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN, SandboxServer, auth_headers
from tests.sandbox.helpers import assert_problem


def test_a_content_length_above_the_limit_is_refused_before_the_body_is_sent(sandbox: SandboxServer) -> None:
    host, port = sandbox.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        # 100 MiB announced, not one byte of it sent: the answer cannot have waited for the body.
        sock.sendall(b"POST /identity/login HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 104857600\r\n\r\n")
        head = sock.recv(65536).decode()
    assert head.startswith("HTTP/1.1 413 ")
    assert "content-type: application/problem+json" in head.lower()
    assert "larger than 1048576 bytes" in head


def test_a_body_at_the_limit_is_served_and_one_byte_more_is_not(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False, max_body=2000)
    headers = {**auth_headers(server, *ADMIN), "Content-Type": "application/json"}
    body = b'{"name": "Padded"' + b" " * (2000 - 18) + b"}"
    assert len(body) == 2000
    assert httpx.post(f"{server.url}/api/branches", content=body, headers=headers).status_code == 201
    assert_problem(httpx.post(f"{server.url}/api/branches", content=body + b" ", headers=headers), 413)


def test_a_chunked_body_is_counted_as_it_streams(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False, max_body=4096)
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:  # no Content-Length: Transfer-Encoding chunked
        yield b'{"username": "'
        for _ in range(1000):
            sent.append(1)
            yield b"x" * 1024

    answer = httpx.post(f"{server.url}/identity/login", content=chunks(), timeout=10)
    assert_problem(answer, 413)
    small = httpx.post(f"{server.url}/identity/login", content=iter([b'{"username": "', ADMIN[0].encode(),
                                                                     b'", "password": "', ADMIN[1].encode(), b'"}']),
                       headers={"Content-Type": "application/json"})
    assert small.status_code == 200


def test_no_limit_with_max_body_none(sandbox_factory: Callable[..., SandboxServer]) -> None:
    server = sandbox_factory(seed=False, max_body=None)
    headers = auth_headers(server, *ADMIN)
    answer = httpx.post(f"{server.url}/api/branches", headers=headers,
                        json={"name": "Big", "address": "x" * 2_000_000})
    assert_problem(answer, 400, "address")  # read and validated, not refused for its size


def test_serve_refuses_plain_http_off_loopback(cli: Cli) -> None:
    # 192.0.2.1 (TEST-NET-1) is assigned to no host: nothing could listen there anyway; the refusal comes first.
    result = cli("sandbox", "serve", "--host", "192.0.2.1", "--port", "0")
    assert result.exit_code == 2
    assert result.stderr == ("error: --host 192.0.2.1 is not a loopback address: serve over TLS (--tls-cert <file> "
                             "--tls-key <file>) or, knowingly, with --insecure-http\n")


def test_insecure_http_off_loopback_warns_on_every_start(cli: Cli) -> None:
    result = cli("sandbox", "serve", "--host", "192.0.2.1", "--port", "0", "--insecure-http")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0] == ("warning: serving plain http on 192.0.2.1, which is not a loopback address: anyone on the "
                        "network can read the tokens and passwords sent to it (--tls-cert/--tls-key serve https)")
    assert lines[1].startswith("error: cannot listen on 192.0.2.1:0")  # the bind then fails: no such address here
    assert len(lines) == 2


def test_serve_on_a_file_that_is_not_a_database(cli: Cli, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n" * 200)
    result = cli("sandbox", "serve", "--port", "0", "--db", str(notes))
    assert result.exit_code == 2
    assert result.stderr == f"error: --db {notes}: cannot use it as the sandbox's database: file is not a database\n"
    assert notes.read_text() == "shopping list\n" * 200


def test_serve_refuses_an_unknown_quirk(cli: Cli) -> None:
    result = cli("sandbox", "serve", "--port", "0", "--quirk", "put-clear")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --quirk: unknown quirk 'put-clear'; known: put-clears, ")
    assert len(result.stderr.splitlines()) == 1
