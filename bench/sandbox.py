#!/usr/bin/env python3
"""Requests per second of the sandbox: list and create, with 1 and 16 concurrent connections.

    .venv/bin/python bench/sandbox.py                 # wrk when installed, else a lean Python client
    .venv/bin/python bench/sandbox.py --tool python --duration 3

Per backend (`--backend sqlite|postgresql|both`, default both): SQLite is `wfctl sandbox serve --db FILE`
(one process, as a user runs it); PostgreSQL is `--database postgresql://... --workers 2` on a throw-away
cluster this script starts from Debian's `postgresql` package (tests/fixtures/postgres.py; server settings
from WFCTL_BENCH_PG_SETTINGS, a JSON object, e.g. '{"fsync": "on"}'). The sandbox and the measured
`sites list --all` run from the installed wheel (built and cached by bench/import.py; `--checkout` runs
this checkout instead). On a free port with a fresh database, it logs in as the seeded admin and measures:

- list:   GET /api/clients/<id>/sites?pageSize=10   (a page of a seeded client's sites)
- create: POST /api/clients/<id>/sites               (a new site with a rate, unique names)

The targets: the sandbox must not be what limits wfctl's own benchmarks, so on SQLite one process on a
2-core machine serves at least 2,000 creates and 2,000 list pages a second under 16 connections (issue 2);
on PostgreSQL, 2 workers serve at least 1,500 creates a second (issue 10). The ratio column is req/s
divided by the target (>= 1.00 meets it). Exit status 1 if any answer was not 2xx or a target is missed.

Pages at any depth (issue 10 section 3), per backend, as ratios of the same run (`--depth` only, or
`--no-depth` to leave them out):

- following nextPage: the median time of GET of the page-200 link (reached by following nextPage from
  page 1) against GET of page 1, 20,000 sites, page size 100: target <= 1.5x (a direct jump,
  `pageNumber=200`, is shown alongside: OFFSET, not a target);
- `sites list --all -o jsonl` (this checkout's wfctl) of 100,000 sites against 10,000: target <= 12x.
Exit status 1 also when one of these is missed.

`--compare-workers` (PostgreSQL, 16 connections, `--rounds` rounds, default 5) measures how the 2 workers
are run: `wfctl sandbox serve --workers 2` (its own supervisor, wfctl/sandbox/supervisor.py: the baseline)
against uvicorn's own multi-process mode (`uvicorn.supervisors.Multiprocess`, what `uvicorn --workers 2`
runs: spawned workers loading the app from an import string, its settings in the environment) with the
same uvicorn settings, each on a fresh database, alternating which goes first from round to round. It
prints every round, the medians, and uvicorn's figures as ratios to the supervisor's of the same round.
Exit status 1 if any answer was not 2xx.

`--compare-fast-commit` (PostgreSQL with `fsync` on, as a real server runs: the throw-away cluster's `fsync=off`
makes every commit as fast as an asynchronous one; 2 workers, 16 connections, `--rounds` rounds) measures
`wfctl sandbox serve --fast-commit` (`synchronous_commit=off`) against the durable default, each on a fresh
database, alternating which goes first, with the same table and ratios: the figure docs/sandbox.md gives.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

#: The wfctl that runs the sandbox and the measured commands: the installed wheel's bin directory
#: (bench/import.py builds and caches it), or None for this checkout (`--checkout`).
WFCTL: Path | None = None
TARGETS_16 = {("sqlite", "list"): 2000.0, ("sqlite", "create"): 2000.0, ("postgresql", "create"): 1500.0}
WORKERS = {"sqlite": 1, "postgresql": 2}
ROOT = Path(__file__).resolve().parent.parent
DEPTH_SITES, DEPTH_PAGE, DEPTH_SAMPLES = 20_000, 200, 41
TARGET_DEPTH = 1.5
ALL_SMALL, ALL_LARGE = 10_000, 100_000
TARGET_ALL = 12.0
#: `--compare-workers`: how the workers are run; the first is the baseline.
MODES = ("supervisor", "uvicorn")
#: --compare-fast-commit's: durable commits (the default), then `serve --fast-commit`.
COMMITS = ("durable", "fast-commit")


@dataclass
class Result:
    backend: str
    scenario: str
    connections: int
    rps: float
    errors: int
    tool: str


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--tool", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--connections", default="1,16", help="comma-separated (default 1,16)")
    depth = parser.add_mutually_exclusive_group()
    depth.add_argument("--depth", action="store_true", help="only the pages-at-any-depth figures")
    depth.add_argument("--no-depth", action="store_true", help="leave the pages-at-any-depth figures out")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--checkout", action="store_true",
                        help="run this checkout's wfctl instead of the installed wheel (quicker, not what users run)")
    parser.add_argument("--compare-workers", action="store_true",
                        help="PostgreSQL, 2 workers: wfctl's supervisor against uvicorn's multi-process mode")
    parser.add_argument("--compare-fast-commit", action="store_true",
                        help="PostgreSQL with fsync on, 2 workers: --fast-commit against durable commits")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of --compare-workers or --compare-fast-commit (default 5)")
    parser.add_argument("--serve-uvicorn-workers", nargs=3, metavar=("PORT", "WORKERS", "DATABASE"),
                        help=argparse.SUPPRESS)  # the uvicorn side of --compare-workers, in its own process
    args = parser.parse_args()
    if args.serve_uvicorn_workers:
        port, workers, database = args.serve_uvicorn_workers
        serve_uvicorn_workers(int(port), int(workers), database)
        return 0
    global WFCTL
    if not args.checkout:
        WFCTL = wheel_bin()
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    tool = args.tool
    if tool == "auto":
        tool = "wrk" if shutil.which("wrk") else "python"
    if tool == "wrk" and not shutil.which("wrk"):
        print("wrk is not installed (apt-get install wrk); use --tool python", file=sys.stderr)
        return 2
    if args.compare_workers:
        return compare(MODES, args.rounds, args.duration, tool)
    if args.compare_fast_commit:
        return compare(COMMITS, args.rounds, args.duration, tool, settings={"fsync": "on"})
    connections = [int(c) for c in args.connections.split(",")]
    missed = False
    results: list[Result] = []
    for backend in backends:
        with _database(backend) as database:
            if not args.no_depth:
                missed |= not depth_report(backend, database())
            if args.depth:
                continue
            with tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp, \
                    Sandbox(Path(tmp), database(), WORKERS[backend]) as server:
                server.prepare()
                for scenario in ("list", "create"):
                    for conns in connections:
                        result = measure(tool, server, scenario, conns, args.duration, Path(tmp))
                        result.backend = backend
                        results.append(result)
                        print(f"  {backend} {scenario:<6} {conns:>2} connection(s): {result.rps:,.0f} req/s",
                              file=sys.stderr)
    if results:
        missed |= not report(results, tool, args.duration)
    return 1 if missed or any(r.errors for r in results) else 0


def measure(tool: str, server: Sandbox, scenario: str, conns: int, duration: float, tmp: Path) -> Result:
    token, list_path, create_path = server.prepared
    prefix = f"Bench {uuid.uuid4().hex[:8]}"
    if tool == "wrk":
        return run_wrk(server.url, scenario, conns, duration, token, list_path, create_path, prefix, tmp)
    return asyncio.run(run_python(server.port, scenario, conns, duration, token, list_path, create_path,
                                  prefix))


def wheel_bin() -> Path:
    """bench/import.py's installed wheel (built from the working tree, cached by its hash): its bin directory."""
    import importlib

    sys.path.insert(0, str(ROOT))
    return Path(importlib.import_module("bench.import").installed_wheel())


def _wfctl() -> list[str]:
    """The wfctl command: the wheel's console script, run directly, or this checkout's."""
    return [str(WFCTL / "wfctl")] if WFCTL else [sys.executable, "-m", "wfctl"]


@contextlib.contextmanager
def _database(backend: str, settings: dict[str, str] | None = None) -> Iterator[Callable[[], str | None]]:
    """`new()` gives each measurement a fresh database: None (a SQLite file of its own) or a PostgreSQL
    database of a throw-away cluster (server `settings` over WFCTL_BENCH_PG_SETTINGS), started here and
    stopped at the end."""
    if backend == "sqlite":
        yield lambda: None
        return
    sys.path.insert(0, str(ROOT))
    from tests.fixtures.postgres import Cluster

    cluster = Cluster.start(settings={**json.loads(os.environ.get("WFCTL_BENCH_PG_SETTINGS", "{}")),
                                      **(settings or {})})
    try:
        yield cluster.new_database
    finally:
        cluster.stop()


# ---- pages at any depth (issue 10 section 3) ------------------------------------------------------


def depth_report(backend: str, database: str | None) -> bool:
    """Print the depth figures (one PASS/MISS line each); True when every target is met."""
    sys.path.insert(0, str(ROOT))
    from bench._service import Service, run

    print(f"pages at any depth (backend {backend}): filling ...", file=sys.stderr, flush=True)
    service = Service({"depth": DEPTH_SITES, "small": ALL_SMALL, "large": ALL_LARGE}, database=database,
                      python=str(WFCTL / "python") if WFCTL else None)
    try:
        headers = {"Authorization": f"Bearer {service.token}"}
        with httpx.Client(base_url=service.url, headers=headers, timeout=30) as http:
            first = f"/api/clients/{service.client_ids['depth']}/sites?pageSize=100"
            link: str = first
            for _ in range(DEPTH_PAGE - 1):
                body = http.get(link).raise_for_status().json()
                link = body["nextPage"]
            jump = f"{first}&pageNumber={DEPTH_PAGE}"
            timings: dict[str, list[float]] = {"first": [], "link": [], "jump": []}
            for _ in range(DEPTH_SAMPLES):
                for name, url in (("first", first), ("link", link), ("jump", jump)):
                    start = time.perf_counter()
                    body = http.get(url).raise_for_status().json()
                    timings[name].append(time.perf_counter() - start)
            if body["pageNumber"] != DEPTH_PAGE or len(body["data"]) != 100:
                raise SystemExit(f"page {DEPTH_PAGE} came back as page {body['pageNumber']}")
        median = {name: sorted(values)[len(values) // 2] for name, values in timings.items()}
        env = service.env()
        wfctl = [*_wfctl(), "sites", "list", "--all", "-o", "jsonl", "--client"]
        seconds = {}
        for label, count in (("small", ALL_SMALL), ("large", ALL_LARGE)):
            runs = [run([*wfctl, service.client_ids[label]], env=env, stdout=subprocess.PIPE)
                    for _ in range(3 if label == "small" else 1)]
            if any(r.returncode or r.stdout.count(b"\n") != count for r in runs):
                raise SystemExit(f"sites list --all of {count:,} sites failed or came back short")
            seconds[label] = sorted(r.seconds for r in runs)[len(runs) // 2]
    finally:
        service.stop()
    depth_ratio = median["link"] / median["first"]
    all_ratio = seconds["large"] / seconds["small"]
    print(f"pages at any depth (backend {backend}, {os.cpu_count()} cores, one sandbox process)")
    print(f"  nextPage to page {DEPTH_PAGE} vs page 1 ({DEPTH_SITES:,} sites, page size 100, median of "
          f"{DEPTH_SAMPLES}): {median['link'] * 1000:.2f} ms vs {median['first'] * 1000:.2f} ms = "
          f"{depth_ratio:.2f}x (target <= {TARGET_DEPTH:g}x) {'PASS' if depth_ratio <= TARGET_DEPTH else 'MISS'}"
          f"  [pageNumber={DEPTH_PAGE} jump: {median['jump'] * 1000:.2f} ms]")
    print(f"  sites list --all {ALL_LARGE:,} vs {ALL_SMALL:,} sites: {seconds['large']:.2f} s vs "
          f"{seconds['small']:.2f} s = {all_ratio:.1f}x (target <= {TARGET_ALL:g}x) "
          f"{'PASS' if all_ratio <= TARGET_ALL else 'MISS'}", flush=True)
    return depth_ratio <= TARGET_DEPTH and all_ratio <= TARGET_ALL


def report(results: list[Result], tool: str, duration: float) -> bool:
    """The throughput table; True when every target is met."""
    print(f"sandbox throughput ({tool}, {duration:g} s each, {os.cpu_count()} cores; sqlite: one process, "
          f"postgresql: {WORKERS['postgresql']} workers)")
    print(f"{'backend':<10} {'scenario':<8} {'conns':>5} {'req/s':>9} {'target':>7} {'ratio':>6} {'non-2xx':>8}")
    met = True
    for r in results:
        goal = TARGETS_16.get((r.backend, r.scenario)) if r.connections >= 16 else None
        target = f"{goal:,.0f}" if goal else "-"
        ratio = f"{r.rps / goal:.2f}" if goal else "-"
        met &= goal is None or r.rps >= goal
        print(f"{r.backend:<10} {r.scenario:<8} {r.connections:>5} {r.rps:>9,.0f} {target:>7} {ratio:>6} "
              f"{r.errors:>8}")
    return met


# ---- the server under test ----------------------------------------------------------------------


class Sandbox:
    """`wfctl sandbox serve` in a subprocess, on a free port, with a fresh database."""

    def __init__(self, tmp: Path, database: str | None = None, workers: int = 1,
                 mode: str = "supervisor") -> None:
        self.tmp = tmp
        self.database = database or str(tmp / "bench.db")
        self.workers = workers
        self.mode = mode
        self.prepared: tuple[str, str, str] = ("", "", "")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Sandbox:
        if self.mode == "uvicorn":
            python = str(WFCTL / "python") if WFCTL else sys.executable
            command = [python, __file__, "--serve-uvicorn-workers", str(self.port), str(self.workers),
                       self.database]
        else:
            command = [*_wfctl(), "sandbox", "serve", "--port", str(self.port),
                       "--database", self.database, "--workers", str(self.workers), "--access-ttl", "86400",
                       *(["--fast-commit"] if self.mode == "fast-commit" else [])]
        self.proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.url}/openapi.json", timeout=1)
                return self
            except httpx.TransportError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the sandbox did not start") from None
                time.sleep(0.1)

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def prepare(self) -> tuple[str, str, str]:
        """A token, the list path (a seeded client's sites) and the create path (a new client's sites)."""
        login = httpx.post(f"{self.url}/identity/login", timeout=10,
                           json={"username": "admin@northwind.test", "password": "sandbox-admin"})
        token = login.json()["accessToken"]
        headers = {"Authorization": f"Bearer {token}"}
        clients = httpx.get(f"{self.url}/api/clients", headers=headers, timeout=10).json()["data"]
        created = httpx.post(f"{self.url}/api/clients", headers=headers, timeout=10,
                             json={"name": f"Bench client {uuid.uuid4().hex[:8]}", "branchId": clients[0]["branchId"]})
        created.raise_for_status()
        self.prepared = (token, f"/api/clients/{clients[0]['id']}/sites?pageSize=10",
                         f"/api/clients/{created.json()['id']}/sites")
        return self.prepared


# ---- --compare-workers, --compare-fast-commit: two ways of serving, round by round ---------------------


def compare(modes: tuple[str, str], rounds: int, duration: float, tool: str, conns: int = 16,
            settings: dict[str, str] | None = None) -> int:
    """Both `modes` (Sandbox modes: the first is the baseline) on PostgreSQL with WORKERS["postgresql"]
    workers, each on a database of its own and both running throughout; each round measures list, then
    create, on one mode and then the other (which goes first alternates), so the two figures of a pair are
    seconds apart. 0 when every answer was 2xx."""
    workers = WORKERS["postgresql"]
    rps: dict[tuple[str, str], list[float]] = {(m, s): [] for m in modes for s in ("list", "create")}
    errors = 0
    with _database("postgresql", settings) as database, tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp, \
            contextlib.ExitStack() as stack:
        servers = {mode: stack.enter_context(Sandbox(Path(tmp), database(), workers, mode=mode))
                   for mode in modes}
        for server in servers.values():
            server.prepare()
        time.sleep(2)  # every worker up: the wait above ends when the first one answers
        for number in range(rounds):
            for scenario in ("list", "create"):
                for mode in modes if number % 2 == 0 else modes[::-1]:
                    result = measure(tool, servers[mode], scenario, conns, duration, Path(tmp))
                    errors += result.errors
                    rps[mode, scenario].append(result.rps)
                    failed = f" ({result.errors} not 2xx)" if result.errors else ""
                    print(f"  round {number + 1} {scenario:<6} {mode:<11}: {result.rps:,.0f} req/s{failed}",
                          file=sys.stderr, flush=True)
    base, other = modes
    server_settings = ", ".join(f"{k}={v}" for k, v in (settings or {}).items())
    print(f"sandbox: {other} against {base} (PostgreSQL{' ' + server_settings if server_settings else ''}, "
          f"{workers} workers, {tool}, {conns} connections, {duration:g} s each, {rounds} rounds, "
          f"{os.cpu_count()} cores)")
    print(f"{'scenario':<8} {'mode':<11} {'median':>8} {'range':>13}  "
          f"ratio to {base}: median of the rounds' (range)")
    for scenario in ("list", "create"):
        for mode in modes:
            values = rps[mode, scenario]
            ratios = [v / b for v, b in zip(values, rps[base, scenario], strict=True)]
            ratio = "-" if mode == base else f"{_median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
            spread = f"{min(values):>6,.0f}-{max(values):<6,.0f}"
            print(f"{scenario:<8} {mode:<11} {_median(values):>8,.0f} {spread}  {ratio}")
    return 1 if errors else 0


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def uvicorn_app() -> Any:
    """The app factory uvicorn's workers load by import string (`bench.sandbox:uvicorn_app`)."""
    from wfctl.sandbox.app import create_app

    return create_app(os.environ["WFCTL_BENCH_DATABASE"], access_ttl=86400)


def serve_uvicorn_workers(port: int, workers: int, database: str) -> None:
    """What `uvicorn.run("bench.sandbox:uvicorn_app", factory=True, workers=N, ...)` does, with the sandbox's
    own uvicorn settings (server.uvicorn_config): bind, then uvicorn's Multiprocess spawns the workers. The
    database is prepared (schema, seed) first, once, as `wfctl sandbox serve` does."""
    from uvicorn.supervisors import Multiprocess

    from wfctl.sandbox.app import create_app
    from wfctl.sandbox.server import uvicorn_config

    create_app(database, access_ttl=86400).state.store.close()
    os.environ["WFCTL_BENCH_DATABASE"] = database
    sys.path.append(str(ROOT))  # after site-packages: the workers import bench.sandbox, and the wheel's wfctl
    config = uvicorn_config("bench.sandbox:uvicorn_app", port=port)
    config.factory = True
    config.workers = workers
    Multiprocess(config, sockets=[config.bind_socket()]).run()


# ---- wrk ---------------------------------------------------------------------------------------

_WRK_CREATE = """
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %(token)s"
request = function()
  counter = counter + 1
  local body = '{"name":"%(prefix)s ' .. counter .. '","rates":[{"skill":"Picker","hourlyRate":11.5}]}'
  return wrk.format(nil, "%(path)s", nil, body)
end
"""


def run_wrk(url: str, scenario: str, conns: int, duration: float, token: str, list_path: str,
            create_path: str, prefix: str, tmp: Path) -> Result:
    # One wrk thread: on 2 cores the load generator must leave a core to the server.
    cmd = ["wrk", "-t1", f"-c{conns}", f"-d{max(1, round(duration))}s"]
    if scenario == "list":
        cmd += ["-H", f"Authorization: Bearer {token}", url + list_path]
    else:
        script = tmp / "create.lua"
        script.write_text(_WRK_CREATE % {"token": token, "path": create_path, "prefix": prefix})
        cmd += ["-s", str(script), url]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors:.*?timeout (\d+)", out)
    errors = (int(non_2xx.group(1)) if non_2xx else 0) + (int(socket_errors.group(1)) if socket_errors else 0)
    return Result("", scenario, conns, rps, errors, "wrk")


# ---- the lean Python client (when wrk is missing) ----------------------------------------------


async def run_python(port: int, scenario: str, conns: int, duration: float, token: str, list_path: str,
                     create_path: str, prefix: str) -> Result:
    """Keep-alive HTTP/1.1 over raw asyncio streams: far cheaper per request than a full HTTP client."""
    counter = iter(range(10**9))
    head = f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"

    def make_request() -> bytes:
        if scenario == "list":
            return f"GET {list_path} HTTP/1.1\r\n{head}\r\n".encode()
        body = json.dumps({"name": f"{prefix} {next(counter)}", "rates": [{"skill": "Picker", "hourlyRate": 11.5}]})
        return (f"POST {create_path} HTTP/1.1\r\n{head}Content-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n{body}").encode()

    done = 0
    errors = 0

    async def worker(deadline: float) -> None:
        nonlocal done, errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.monotonic() < deadline:
                writer.write(make_request())
                header = await reader.readuntil(b"\r\n\r\n")
                status = int(header[9:12])
                length = int(re.search(rb"(?i)content-length:\s*(\d+)", header).group(1))  # type: ignore[union-attr]
                await reader.readexactly(length)
                done += 1
                if not 200 <= status < 300:
                    errors += 1
        finally:
            writer.close()

    start = time.monotonic()
    await asyncio.gather(*(worker(start + duration) for _ in range(conns)))
    return Result("", scenario, conns, done / (time.monotonic() - start), errors, "python")


if __name__ == "__main__":
    sys.exit(main())
