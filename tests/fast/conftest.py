"""The fast layer: a command's run half (`wfctl.drivers.recordrun`) called with recorded streams
(`wfctl.render.streams.TestIO`) and an SDK Client whose transport calls the sandbox app in this process, no socket,
no click, no login per test (gh's `listRun(&opts)` with `iostreams.Test()`). For rendering questions: what a
format, a column or --fields writes, what a table shows at a width, which line an error is. What needs a
server, a process or a terminal (retries, faults, tokens, a real pty) stays in the end-to-end tests.

    def test_x(run, service):
        r = run(recordrun.run_list, recordrun.ListOptions, kind="branch", format="csv", fields="id,name")
        assert (r.exit_code, r.stdout) == (0, "id,name\\n...")

One seeded sandbox a worker (`service`), logged in once as the Northwind admin; tests create their own
records with unique names, as the tests of the shared `sandbox` do.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.cli import Result
from tests.fixtures.sandbox import ADMIN, SHARED_LOGIN_FAILURE_LIMIT

BASE_URL = "http://127.0.0.1"  # loopback: the Client sends a token over plain http (G19)
A_WEEK = 7 * 24 * 3600  # the access token outlives any run of the suite


class InProcess(httpx.BaseTransport):
    """A sync httpx transport to an ASGI app in this process (httpx.ASGITransport, on an event loop of a
    thread of its own); `requests` counts what it was sent."""

    def __init__(self, app: Any) -> None:
        self._asgi = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="in-process-sandbox", daemon=True)
        self._thread.start()
        self.requests = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        request.read()

        async def answer() -> httpx.Response:
            response = await self._asgi.handle_async_request(request)
            return httpx.Response(response.status_code, headers=response.headers, content=await response.aread(),
                                  request=request)

        return asyncio.run_coroutine_threadsafe(answer(), self._loop).result(timeout=60)

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


@dataclass
class Service:
    """The sandbox app of this worker: `db_path` (tests/pages/helpers.py writes records straight into it),
    `transport`, `token` (the Northwind admin's access token), `client()` (an SDK Client over them)."""

    app: Any
    db_path: str
    transport: InProcess
    token: str = ""
    url: str = BASE_URL

    def client(self, **options: Any) -> Any:
        from wfctl.api.client import Client

        return Client(self.url, auth=self.token, transport=self.transport, **options)


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from wfctl.sandbox.app import create_app

    db_path = str(Path(tmp_path_factory.mktemp("fast")) / "sandbox.db")
    app = create_app(db_path, access_ttl=A_WEEK, login_failure_limit=SHARED_LOGIN_FAILURE_LIMIT)
    transport = InProcess(app)
    with httpx.Client(transport=transport, base_url=BASE_URL) as http:
        answer = http.post("/identity/login", json={"username": ADMIN[0], "password": ADMIN[1]})
        answer.raise_for_status()
    try:
        yield Service(app, db_path, transport, answer.json()["accessToken"])
    finally:
        transport.stop()
        app.state.store.close()


@dataclass
class Ran(Result):
    """What a run half wrote (`stdout`, `stderr`) and its exit code, as the error boundary gives them;
    `requests`: how many requests it sent."""

    requests: int = 0
    io: Any = field(default=None, repr=False)


RunHalf = Callable[[Any, Any], None]


@pytest.fixture
def run(service: Service) -> Callable[..., Ran]:
    """`run(run_half, Options, *, tty=False, width=80, stdin="", fields=None, shape=None, **options)`: the run
    half called with `Options(client=..., output=OutputOptions(fields=..., shape=Shape(**shape)), **options)`
    (`shape`: the query options, `{"sort_by": "name"}`) and a TestIO; an error
    is reported as wfctl's error boundary reports it (`wfctl.errors.report`: one line, or the JSON error
    under -o json/jsonl), with its exit code."""
    from wfctl.commands.output_options import OutputOptions
    from wfctl.errors import report
    from wfctl.render.output import is_machine
    from wfctl.render.shaped import Shape
    from wfctl.render.streams import TestIO

    def call(half: RunHalf, options: type, *, tty: bool = False, width: int = 80, stdin: str = "",
             fields: str | None = None, shape: dict[str, Any] | None = None, **given: Any) -> Ran:
        io = TestIO(stdin, tty=tty, width=width)
        client = service.client()
        before = service.transport.requests
        output = OutputOptions(format=given.get("format"), fields=fields, shape=Shape(**(shape or {})))
        opts = options(client=lambda: client, output=output, **given)
        code = 0
        try:
            half(opts, io)
        except Exception as exc:
            code = report(exc, json_mode=is_machine(opts.format), stream=io.stderr)  # as given with -o
        return Ran(code, io.out, io.err, requests=service.transport.requests - before, io=io)

    return call
