"""Shared by the list and import benches: a sandbox in its own process with N sites under one client, and runs
of a child process with its peak RSS (os.wait4 gives the rusage of exactly that child)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


@dataclass
class Run:
    seconds: float
    peak_rss_mb: float
    returncode: int
    stdout: bytes


def installed_bin(doc: str | None, runs: int, runs_help: str = "hyperfine runs of each command") -> tuple[Any, Path]:
    """The options every wheel bench takes (`--runs`, `--checkout`), read from the command line, and the bin
    directory of the wfctl it measures: the installed wheel (bench/import.py `installed_wheel`), or with
    --checkout this checkout's .venv."""
    import argparse
    import importlib

    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    parser.add_argument("--runs", type=int, default=runs, help=runs_help)
    parser.add_argument("--checkout", action="store_true", help="run .venv's wfctl instead of an installed wheel")
    args = parser.parse_args()
    bin_dir = ROOT / ".venv" / "bin" if args.checkout else importlib.import_module("bench.import").installed_wheel()
    return args, bin_dir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(argv: list[str], env: dict[str, str] | None = None, stdout: int | None = subprocess.DEVNULL) -> Run:
    """Run a child; its wall time, and its peak RSS (the kernel's high-water mark VmHWM, read until it
    exits; ru_maxrss would count the pages of this process that a fork shares before exec)."""
    import threading

    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        path = f"/proc/{proc.pid}/status"
        while not done.is_set():
            try:
                with open(path) as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            peak[0] = max(peak[0], int(line.split()[1]))
            except (OSError, ValueError):
                return
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out = b""
    if stdout == subprocess.PIPE:
        assert proc.stdout is not None
        out = proc.stdout.read()
    proc.wait()
    seconds = time.perf_counter() - start
    done.set()
    watcher.join()
    if proc.returncode != 0:
        assert proc.stderr is not None
        sys.stderr.write(proc.stderr.read().decode())
    return Run(seconds, peak[0] / 1024, proc.returncode, out)


def compile_bytecode() -> None:
    """Byte-compile wfctl as an install does (pip writes the .pyc files). httpx and httpie, which the
    benches compare wfctl with, run from their installed bytecode; with PYTHONDONTWRITEBYTECODE set (as
    in CI and these sandboxes) a source checkout would otherwise compile its ~70 modules again in every
    run (60-80 ms), a cost no installed wfctl pays."""
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "wfctl")], check=True)


class Service:
    """`wfctl sandbox serve` on a copy of a seeded DB, with `sites` extra sites per listed client."""

    def __init__(self, clients_with_sites: dict[str, int], python: str | None = None, latency_ms: int = 0,
                 database: str | None = None, workers: int = 1, log_requests: bool = False) -> None:
        """`python`: the interpreter of an installed wfctl (the sandbox and the measured commands then run
        from that installation, not from this checkout); `latency_ms`: `sandbox serve --latency`;
        `database`: a postgresql:// URL (default: a new SQLite file); `workers`: `sandbox serve --workers`;
        `log_requests`: `sandbox serve --log-requests` into a file (`requests_logged()` counts its lines)."""
        if python is None:
            compile_bytecode()
        self.python = python or PY
        self.tmp = tempfile.TemporaryDirectory(prefix="wfctl-bench-")
        self.db = database or str(Path(self.tmp.name) / "bench.db")
        child_env = self._base_env()
        # schema and seed, in a child: this process stays small (its children are measured)
        subprocess.run([self.python, "-c", "import sys; from wfctl.sandbox.app import create_app; "
                        "create_app(sys.argv[1]).state.store.close()", self.db], check=True, env=child_env,
                       cwd=self.tmp.name)  # not the checkout's directory: `-c` and `-m` put the cwd on sys.path
        self.client_ids = self._fill(clients_with_sites)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.request_log = Path(self.tmp.name) / "requests.log"
        log = self.request_log.open("wb") if log_requests else subprocess.DEVNULL
        self.proc = subprocess.Popen([self.python, "-m", "wfctl", "sandbox", "serve", "--port", str(self.port),
                                      "--database", self.db, "--latency", str(latency_ms), "--workers", str(workers),
                                      # the bench's one access token outlives a slow machine's set-up (15 min:
                                      # a workbook export on a loaded machine started after it had expired)
                                      "--access-ttl", "14400", *(["--log-requests"] if log_requests else [])],
                                     stdout=subprocess.DEVNULL, stderr=log, env=child_env,
                                     cwd=self.tmp.name)
        try:
            self._log_in()
        except BaseException:
            self.stop()  # no sandbox left running when the bench cannot start
            raise

    def requests_logged(self) -> int:
        """Requests answered so far (with `log_requests`): the lines of the request log naming /api/."""
        if not self.request_log.exists():
            return 0
        return sum(1 for line in self.request_log.read_text(errors="replace").splitlines() if " /api/" in line)

    def _log_in(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.post(f"{self.url}/identity/login", timeout=2,
                                       json={"username": "admin@northwind.test", "password": "sandbox-admin"})
                self.token = response.json()["accessToken"]
                break
            except (httpx.HTTPError, KeyError, ValueError) as exc:
                if time.monotonic() > deadline:
                    answer = f"HTTP {response.status_code}: {response.text[:300]}" if isinstance(exc, KeyError) else ""
                    raise RuntimeError(f"the sandbox did not log in within 30 s: {exc!r} {answer}") from exc
                time.sleep(0.2)

    def _fill(self, wanted: dict[str, int]) -> dict[str, str]:
        postgres = self.db.startswith("postgresql://")
        if postgres:
            import psycopg

            db: Any = psycopg.connect(self.db)
            mark = "%s"
        else:
            db = sqlite3.connect(self.db)
            mark = "?"
        cursor = db.cursor()
        cursor.execute("SELECT b.agency_id, b.id FROM branches b JOIN agencies a ON a.id = b.agency_id "
                       "WHERE a.name = 'Northwind Staffing' ORDER BY b.created_on LIMIT 1")
        agency_id, branch_id = cursor.fetchone()
        ids = {}
        for label, count in wanted.items():
            client_id = str(uuid.uuid4())
            cursor.execute("INSERT INTO clients (id, agency_id, branch_id, name, name_key, email, phone, "
                           f"billing_address, created_on) VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, '', '', '', "
                           "'2026-01-01T00:00:00Z')", (client_id, agency_id, branch_id, f"Bench {label}",
                                                       f"bench {label}"))
            rates = json.dumps([{"skill": "picker", "hourlyRate": 11.5}])
            cursor.executemany(
                "INSERT INTO sites (id, agency_id, branch_id, client_id, name, name_key, address, phone, email,"
                f" assessment_required, rates, created_on) VALUES ({', '.join([mark] * 12)})",
                [(str(uuid.uuid4()), agency_id, branch_id, client_id, f"Site {i:06d}", f"site {i:06d}",
                  f"{i} Industrial Estate, Hull HU{i % 10} 1AA", "+44 1482 000000", f"site{i}@example.com",
                  i % 2, rates, f"2026-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z")
                 for i in range(count)])
            ids[label] = client_id
        db.commit()
        db.close()
        return ids

    def _base_env(self) -> dict[str, str]:
        """This environment without WFCTL_* settings; the checkout on PYTHONPATH unless an installed wfctl runs."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_") and k != "PYTHONPATH"}
        if self.python == PY:
            env["PYTHONPATH"] = str(ROOT)
        return env

    def env(self) -> dict[str, str]:
        tmp = Path(self.tmp.name)
        return {**self._base_env(), "WFCTL_BASE_URL": self.url, "WFCTL_ACCESS_TOKEN": self.token,
                "WFCTL_CONFIG": str(tmp / "config.toml"), "XDG_CACHE_HOME": str(tmp / "cache"),
                "XDG_STATE_HOME": str(tmp / "state")}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.tmp.cleanup()


def agency_sites(doc: str | None, prefix: str) -> tuple[Any, str, Service]:
    """The set-up of the benches over the agency's sites (rates, audit): their options (--sites extra sites
    over --clients clients named `prefix`-NN, --runs, --latency), the installed wheel's `wfctl`, and a
    sandbox serving them with that latency (stop it when done)."""
    import argparse
    import importlib

    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    parser.add_argument("--sites", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=int, default=50)
    args = parser.parse_args()
    bench_import = importlib.import_module("bench.import")
    if not Path(bench_import.HYPERFINE).exists():
        raise SystemExit(f"{bench_import.HYPERFINE} is not installed (apt-get install -y hyperfine)")
    bin_dir = bench_import.installed_wheel()
    args.sites = args.sites // args.clients * args.clients  # the sites the clients hold
    service = Service({f"{prefix}-{i:02d}": args.sites // args.clients for i in range(args.clients)},
                      python=str(bin_dir / "python"), latency_ms=args.latency)
    return args, str(bin_dir / "wfctl"), service
