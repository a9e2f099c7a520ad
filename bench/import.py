"""Bulk import benchmarks: `python bench/import.py local|latency|memory|all`.

- local:   10,000 sites imported by `wfctl sites import`, against the create ceiling that wrk measures on
           the same sandbox in the same run, and against a bash loop of curl. Targets: >= 0.5 of wrk,
           >= 12x curl.
- latency: `sandbox serve --latency 50`, `--concurrency 16`: rows/s against the Little's-law limit
           16 / 0.05 s = 320 rows/s. Target: >= 0.85.
- memory:  peak RSS of importing 10,000 and 100,000 rows. Target: within 10%.

Each run starts its own sandbox (`wfctl sandbox serve --db <tmp>`) with an isolated config, logs in
with the seeded admin, and makes its own empty clients. Prints the figures and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


class Sandbox:
    def __init__(self, work: Path, latency_ms: int = 0) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.work = work
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
        self.env.update(HOME=str(work / "home"), XDG_CONFIG_HOME=str(work / "config"),
                        XDG_STATE_HOME=str(work / "state"), WFCTL_CONFIG=str(work / "config" / "wfctl.toml"),
                        PYTHONPATH=str(ROOT))
        (work / "home").mkdir(parents=True, exist_ok=True)
        args = [PY, "-m", "wfctl", "sandbox", "serve", "--port", str(self.port), "--db", str(work / "s.db")]
        if latency_ms:
            args += ["--latency", str(latency_ms)]
        self.proc = subprocess.Popen(args, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("sandbox did not start") from None
                time.sleep(0.1)
        self.wfctl("login", "--base-url", self.url, "--username", "admin@northwind.test", "--password-stdin",
                   "--credential-store", "file", input="sandbox-admin")
        self.token = self.wfctl("auth", "token").strip()
        branches = json.loads(self.wfctl("branches", "list", "-o", "json"))
        self.branch = branches[0]["id"]

    def wfctl(self, *args: str, input: str | None = None) -> str:
        r = subprocess.run([PY, "-m", "wfctl", *args], env=self.env, input=input or "", capture_output=True,
                           text=True, check=False)
        if r.returncode != 0:
            raise RuntimeError(f"wfctl {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.stdout

    def new_client(self, name: str) -> str:
        out = self.wfctl("clients", "create", "--branch", self.branch, "--name", name, "-o", "json")
        return str(json.loads(out)["id"])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def site_file(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("name,address,phone,email,assessmentRequired,rates,departments,bannedWorkers\r\n")
        for i in range(rows):
            f.write(f"Site {i:06d},\"{i} Dock Road, Hull\",'+44 1482 {i:06d},site{i}@example.com,"
                    f"{'true' if i % 2 else 'false'},Forklift Driver=13.25|Picker Packer=11.60,"
                    f"Goods In:Ann Lee:ann@example.com,W-{i}|W-{i + 1}\r\n")
    return path


BODY = ('{"name": "%s", "address": "1 Dock Road, Hull", "phone": "+44 1482 000000", "email": "s@example.com", '
        '"assessmentRequired": true, "rates": [{"skill": "Forklift Driver", "hourlyRate": 13.25}, '
        '{"skill": "Picker Packer", "hourlyRate": 11.6}], "departments": [{"name": "Goods In", '
        '"contactPerson": "Ann Lee", "email": "ann@example.com"}], "bannedWorkers": ["W-1", "W-2"]}')

WRK_LUA = """
local counter = 0
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
function init(args)
  prefix = "wrk-%s-" .. tid .. "-"
end
request = function()
  counter = counter + 1
  local body = string.format('%s', prefix .. counter)
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer %s"}
  if %s then headers["Idempotency-Key"] = "wrk-key-" .. prefix .. counter end
  return wrk.format("POST", "%s", headers, body)
end
"""


def wrk_ceiling(sb: Sandbox, work: Path, seconds: int = 10, connections: int = 8, keys: bool = True) -> float:
    """Creates per second that wrk sustains (2 threads, `connections` connections); with `keys`, each
    request carries its own Idempotency-Key, like the import's (the service then also stores the key)."""
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")
    cid = sb.new_client(f"wrk ceiling {keys} {time.monotonic_ns()}")
    lua = WRK_LUA % (time.monotonic_ns(), BODY, sb.token, "true" if keys else "false", f"/api/clients/{cid}/sites")
    script = work / "create.lua"
    script.write_text(lua)
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-s", str(script), sb.url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(next(line for line in out.splitlines() if line.startswith("Requests/sec")).split()[1])
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk saw errors:\n{out}")
    return rate


def curl_loop(sb: Sandbox, count: int = 200) -> float:
    cid = sb.new_client("curl loop")
    data = (BODY % "curl-$i").replace('"', '\\"')
    script = (f'for i in $(seq 1 {count}); do curl -s -o /dev/null -X POST -H "Content-Type: application/json" '
              f'-H "Authorization: Bearer {sb.token}" --data "{data}" {sb.url}/api/clients/{cid}/sites; done')
    started = time.perf_counter()
    subprocess.run(["bash", "-c", script], check=True)
    return count / (time.perf_counter() - started)


def timed_import(sb: Sandbox, path: Path, client: str, concurrency: int, *, memory: bool = False
                 ) -> tuple[float, int, float]:
    """(seconds of the whole command, peak RSS in KiB, seconds of the sending phase) of `wfctl sites import`."""
    args = ["sites", "import", str(path), "--client", client, "--concurrency", str(concurrency), "-o", "json"]
    cmd = ["/usr/bin/time", "-f", "%M", PY, "-m", "wfctl", *args] if memory else [PY, "-m", "wfctl", *args]
    started = time.perf_counter()
    r = subprocess.run(cmd, env=sb.env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if r.returncode != 0:
        raise RuntimeError(f"import failed: exit {r.returncode}: {r.stderr[-2000:]}")
    peak = int(r.stderr.strip().splitlines()[-1]) if memory else 0
    summary = json.loads(r.stdout)
    if summary["created"] != summary["rows"]:
        raise RuntimeError(f"not every row was created: {summary}")
    return seconds, peak, float(summary["seconds"])


def local(work: Path, rows: int = 10_000, concurrency: int = 8, rounds: int = 3) -> dict[str, float]:
    sb = Sandbox(work / "local")
    try:
        path = site_file(work / "local.csv", rows)
        # The host is shared: measure wrk and the import alternately, three rounds, and compare medians.
        bares, ceilings, rates = [], [], []
        for round_ in range(rounds):
            bares.append(wrk_ceiling(sb, work, keys=False))
            ceilings.append(wrk_ceiling(sb, work))
            seconds, _, _ = timed_import(sb, path, sb.new_client(f"wfctl import {round_}"), concurrency)
            rates.append(rows / seconds)
            print(f"local: round {round_ + 1}: wrk {ceilings[-1]:.0f}/s with keys, {bares[-1]:.0f}/s without; "
                  f"wfctl {rates[-1]:.0f} rows/s")
        bare, ceiling, rate = statistics.median(bares), statistics.median(ceilings), statistics.median(rates)
        curl = curl_loop(sb)
        print(f"local (medians): wrk create ceiling {ceiling:.0f}/s with Idempotency-Key ({bare:.0f}/s without); "
              f"curl loop {curl:.0f}/s; wfctl import of {rows} rows, whole command, {rate:.0f} rows/s "
              f"(--concurrency {concurrency})")
        print(f"local: ratio to wrk {rate / ceiling:.2f} with keys, {rate / bare:.2f} without (target >= 0.50); "
              f"to curl {rate / curl:.1f}x (target >= 12x)")
        return {"ceiling": ceiling, "curl": curl, "rate": rate}
    finally:
        sb.stop()


def latency(work: Path, rows: int = 6_000, concurrency: int = 16, latency_ms: int = 50) -> dict[str, float]:
    sb = Sandbox(work / "latency", latency_ms=latency_ms)
    try:
        path = site_file(work / "latency.csv", rows)
        client = sb.new_client("latency import")
        seconds, _, sending = timed_import(sb, path, client, concurrency)
        limit = concurrency / (latency_ms / 1000)
        rate, send_rate = rows / seconds, rows / sending
        print(f"latency: {rows} rows at {latency_ms} ms, --concurrency {concurrency}: whole command {seconds:.1f}s = "
              f"{rate:.0f} rows/s (start-up, login check, client lookup and validation included); sending phase "
              f"{sending:.1f}s = {send_rate:.0f} rows/s; Little's-law limit {limit:.0f} rows/s")
        print(f"latency: ratio {rate / limit:.2f} whole command, {send_rate / limit:.2f} sending phase (target >= 0.85)")
        return {"rate": rate, "limit": limit, "send_rate": send_rate}
    finally:
        sb.stop()


def memory(work: Path, small: int = 10_000, large: int = 100_000, concurrency: int = 8) -> dict[str, float]:
    sb = Sandbox(work / "memory")
    try:
        peaks = {}
        for rows in (small, large):
            path = site_file(work / f"mem-{rows}.csv", rows)
            seconds, peak, _ = timed_import(sb, path, sb.new_client(f"memory {rows}"), concurrency, memory=True)
            peaks[rows] = peak
            print(f"memory: {rows} rows in {seconds:.1f}s ({rows / seconds:.0f} rows/s), peak RSS {peak / 1024:.1f} MiB")
        ratio = peaks[large] / peaks[small]
        print(f"memory: peak RSS {large} rows / {small} rows = {ratio:.3f} (target <= 1.10)")
        return {"ratio": ratio}
    finally:
        sb.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["local", "latency", "memory", "all"])
    parser.add_argument("--rows", type=int, default=None, help="rows of the local/latency run")
    parser.add_argument("--large", type=int, default=100_000, help="rows of the large memory run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp:
        work = Path(tmp)
        if args.which in ("local", "all"):
            local(work, rows=args.rows or 10_000)
        if args.which in ("latency", "all"):
            latency(work, rows=args.rows or 6_000)
        if args.which in ("memory", "all"):
            memory(work, large=args.large)


if __name__ == "__main__":
    main()
