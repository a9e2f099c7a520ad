"""Bulk import benchmarks (issue 9, section 3): `python bench/import.py validation|local|latency|memory|all`.

What a user gets is measured: a wheel is built from this working tree (`pip wheel --no-deps`) and installed
with its `sandbox` extra into a virtual environment of its own (pip byte-compiles it, as for a user; the
dependencies are pinned to the versions of .venv). The venv is cached under $TMPDIR/wfctl-bench-wheel/,
keyed by the wheel's sha256, so an unchanged tree is not installed twice. Every measured command is that
venv's `wfctl` console script, run directly by `hyperfine -N` (no shell, no Python wrapper), wall clock of
the whole command, start-up included, stdout to /dev/null. The sandbox (`wfctl sandbox serve --db`) is the
same installation. Ratios are against a baseline measured in the same run:

- validation: `sites import FILE --client ID --dry-run -o json` of a 20,000-row and a 1-row Excel-style file
              (UTF-8 BOM, `;`, CRLF, rates, departments, banned workers). Validation rows/s =
              19,999 / (t20000 - t1): target >= 25,000; and t20000 / t1: target <= 3.
- local:      a 5,000-row import into a fresh client (default --concurrency), against wrk's create rate
              on the same sandbox, alternated round by round: target >= 0.6 of wrk.
- latency:    `sandbox serve --latency 50`, a 2,000-row import at --concurrency 16 against 16 / 0.05 s =
              320 rows/s: target >= 0.85.
- memory:     peak RSS (VmHWM) of a real import of 10,000 and of 100,000 rows: target within 10%.

Prints one line per figure (measured, baseline, ratio, PASS/MISS) and a block for README "Performance";
exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import PY, ROOT, Service, run

HYPERFINE = "/usr/bin/hyperfine"
CACHE = Path(tempfile.gettempdir()) / "wfctl-bench-wheel"


# ---- the installed wheel ------------------------------------------------------------------------------------

def installed_wheel(from_head: bool = False, ref: str | None = None) -> Path:
    """Build the wheel, install it (once per wheel hash) into its own venv; the venv's bin directory.
    `from_head`: of the commit HEAD, not the working tree; `ref`: of that commit (bench/versus.py)."""
    from_head = from_head or ref is not None
    ref = ref or "HEAD"
    with tempfile.TemporaryDirectory(prefix="wfctl-wheel-") as tmp:
        src, dist = Path(tmp) / "src", Path(tmp) / "dist"
        src.mkdir()
        # Built from a copy, so the build's build/ and *.egg-info never touch the checkout others work in.
        if from_head:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "pyproject.toml", "README.md",
                                      "wfctl"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        else:
            for name in ("pyproject.toml", "README.md"):
                shutil.copy2(ROOT / name, src / name)
            shutil.copytree(ROOT / "wfctl", src / "wfctl", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # SOURCE_DATE_EPOCH: the same sources give the same wheel bytes, so the hash keys the cache.
        subprocess.run([PY, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(dist)], check=True,
                       env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})
        (wheel,) = dist.glob("wfctl-*.whl")
        sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
        venv = CACHE / f"{sha[:16]}-pg"  # with the postgres extra too (bench/sandbox.py measures both backends)
        bin_dir = venv / "bin"
        state = "cached"
        if not (venv / "complete").exists():
            state = "new"
            shutil.rmtree(venv, ignore_errors=True)
            venv.mkdir(parents=True)
            kept = venv / wheel.name
            shutil.copy2(wheel, kept)
            freeze = subprocess.run([PY, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                                    capture_output=True, text=True).stdout
            (venv / "constraints.txt").write_text("".join(f"{line}\n" for line in freeze.splitlines() if "==" in line))
            subprocess.run([PY, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "-c", str(venv / "constraints.txt"),
                            f"{kept}[sandbox,postgres]"], check=True, stderr=subprocess.DEVNULL)
            (venv / "complete").write_text(sha + "\n")
    where = subprocess.run([str(bin_dir / "python"), "-c", "import wfctl; print(wfctl.__file__)"], check=True,
                           capture_output=True, text=True, env=clean_env(), cwd=venv).stdout.strip()
    package = Path(where).parent
    if not package.is_relative_to(venv) or not (package / "__pycache__").is_dir():
        raise SystemExit(f"wfctl in {venv} is not the wheel's byte-compiled install: {where}")
    for old in sorted(CACHE.iterdir(), key=lambda p: p.stat().st_mtime)[:-3]:  # keep the 3 newest
        if old != venv:
            shutil.rmtree(old, ignore_errors=True)
    venv.touch()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "wfctl", "pyproject.toml"],
                           capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True,
                          text=True).stdout.strip()
    source = ref if from_head else "working tree" + (" (uncommitted changes in wfctl/)" if dirty else "")
    print(f"wheel {wheel.name} sha256 {sha[:16]} from {head} {source}; venv {venv} ({state})", flush=True)
    return bin_dir


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("WFCTL_")}


# ---- inputs and runs ----------------------------------------------------------------------------------------

HEADER = "Name;Address;Phone;Email;AssessmentRequired;Rates;Departments;BannedWorkers"


def excel_file(path: Path, rows: int) -> Path:
    """Sites as Excel saves "CSV UTF-8" in a `;` locale: BOM, CRLF, capitalised headers, TRUE/FALSE, the
    `'` in front of a phone number, a quoted cell now and then (one holding the delimiter)."""
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        f.write(HEADER + "\r\n")
        for i in range(rows):
            address = f'"Unit {i % 40}; {i} Dock Road, Hull"' if i % 5 == 0 else f"{i} Dock Road, Hull HU{i % 10} 1AA"
            f.write(f"Site {i:06d};{address};'+44 1482 {i:06d};site{i}@example.com;{'TRUE' if i % 2 else 'FALSE'};"
                    f"Forklift Driver=13.25|Picker Packer=11.60;Goods In:Ann Lee:ann@example.com|Yard;"
                    f"W-{i}|W-{i + 1}\r\n")
    return path


def import_argv(bin_dir: Path, path: Path, client: str, *extra: str) -> list[str]:
    return [str(bin_dir / "wfctl"), "sites", "import", str(path), "--client", client, *extra, "-o", "json"]


def check_once(argv: list[str], env: dict[str, str]) -> dict:
    """Run a command once (untimed) and return its JSON output; say why when it fails."""
    r = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)}: exit {r.returncode}\n{r.stderr[-3000:]}")
    return json.loads(r.stdout)


def hyperfine(commands: dict[str, list[str]], env: dict[str, str], runs: int, warmup: int = 0, *,
              ignore_failure: bool = False) -> dict[str, float]:
    """Median wall-clock seconds of each command, run directly (`hyperfine -N`), stdout to /dev/null;
    `ignore_failure`: a non-zero exit is an answer (`audit`'s 1: findings), not a failed run."""
    with tempfile.TemporaryDirectory(prefix="wfctl-hyperfine-") as tmp:
        export = Path(tmp) / "out.json"
        argv = [HYPERFINE, "-N", "--style", "none", "--output", "null", "--runs", str(runs), "--warmup", str(warmup),
                "--export-json", str(export), *(["--ignore-failure"] if ignore_failure else [])]
        for name, command in commands.items():
            argv += ["-n", name, shlex.join(command)]
        r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if r.returncode != 0:
            for command in commands.values():  # show the command's own error
                check_once(command, env)
            raise SystemExit(f"hyperfine failed: {r.stderr}")
        results = json.loads(export.read_text())["results"]
    return {result["command"]: float(result["median"]) for result in results}


def timed_import(service: Service, bin_dir: Path, path: Path, rows: int, label: str, *extra: str) -> float:
    """Seconds of one whole `sites import` into the fresh client `label`, checked to have created every row."""
    client = service.client_ids[label]
    seconds = hyperfine({label: import_argv(bin_dir, path, client, *extra)}, service.env(), runs=1)[label]
    with contextlib.closing(sqlite3.connect(service.db)) as db:
        created = db.execute("SELECT count(*) FROM sites WHERE client_id = ?", (client,)).fetchone()[0]
    if created != rows:
        raise SystemExit(f"import {label}: {created} sites created of {rows} rows")
    return seconds


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

BODY = ('{"name": "%s", "address": "1 Dock Road, Hull", "phone": "+44 1482 000000", "email": "s@example.com", '
        '"assessmentRequired": true, "rates": [{"skill": "Forklift Driver", "hourlyRate": 13.25}, '
        '{"skill": "Picker Packer", "hourlyRate": 11.6}], "departments": [{"name": "Goods In", '
        '"contactPerson": "Ann Lee", "email": "ann@example.com"}, {"name": "Yard"}], "bannedWorkers": ["W-1", "W-2"]}')


def wrk_rate(service: Service, label: str, work: Path, seconds: int, keys: bool, connections: int = 8) -> float:
    """Creates per second wrk sustains (2 threads, `connections` connections) into the fresh client `label`;
    with `keys` each request carries its own Idempotency-Key, as wfctl's do (the service then stores it)."""
    path = f"/api/clients/{service.client_ids[label]}/sites"
    script = work / f"{label}.lua"
    script.write_text(WRK_LUA % (time.monotonic_ns(), BODY, service.token, "true" if keys else "false", path))
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-s", str(script), service.url],
                         capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise SystemExit(f"wrk saw errors:\n{out}")
    return float(next(line for line in out.splitlines() if line.startswith("Requests/sec")).split()[1])


# ---- figures ------------------------------------------------------------------------------------------------

@dataclass
class Figure:
    what: str
    measured: str
    baseline: str
    ratio: str
    target: str
    ok: bool

    def line(self) -> str:
        return (f"{'PASS' if self.ok else 'MISS'}  {self.what}: {self.measured}; baseline {self.baseline}; "
                f"ratio {self.ratio} (target {self.target})")

    def row(self) -> str:
        verdict = "" if self.ok else " **missed**"
        return f"| {self.what} | {self.measured} | {self.baseline} | {self.ratio}{verdict} | {self.target} |"


FIGURES: list[Figure] = []


def print_rows(heading: str = "same run, `sandbox serve --latency 50`, installed wheel") -> int:
    """The README "Performance" rows of every figure taken; 0 when each met its target, else 1."""
    print(f"\nREADME \"Performance\" rows ({heading}):")
    for fig in FIGURES:
        print(fig.row())
    return 0 if all(fig.ok for fig in FIGURES) else 1


def figure(*args: object) -> None:
    FIGURES.append(Figure(*args))  # type: ignore[arg-type]
    print(FIGURES[-1].line(), flush=True)


# ---- the benches --------------------------------------------------------------------------------------------

def validation(bin_dir: Path, work: Path, rows: int = 20_000, runs: int = 5) -> None:
    big, one = excel_file(work / f"validation-{rows}.csv", rows), excel_file(work / "validation-1.csv", 1)
    service = Service({"dry": 0}, python=str(bin_dir / "python"))
    try:
        env, client = service.env(), service.client_ids["dry"]
        small_cmd = import_argv(bin_dir, one, client, "--dry-run")
        big_cmd = import_argv(bin_dir, big, client, "--dry-run")
        plan = check_once(big_cmd, env)["summary"]
        if plan["created"] != rows or plan["invalid"]:
            raise SystemExit(f"the {rows}-row plan is not {rows} creates: {plan}")
        times = hyperfine({"1 row": small_cmd, f"{rows} rows": big_cmd}, env, runs=runs, warmup=1)
    finally:
        service.stop()
    t1, tn = times["1 row"], times[f"{rows} rows"]
    rate = (rows - 1) / (tn - t1)
    print(f"validation: `sites import --dry-run -o json`, median of {runs}: 1 row {t1 * 1000:.0f} ms, "
          f"{rows:,} rows {tn * 1000:.0f} ms", flush=True)
    figure(f"validation, {rows:,}-row Excel-style `--dry-run` (`bench/import.py validation`)",
           f"{rate:,.0f} rows/s (({tn:.2f} s - {t1:.2f} s) / {rows - 1:,} rows)", "target 25,000 rows/s",
           f"{rate / 25_000:.2f}", ">= 25,000 rows/s", rate >= 25_000)
    figure(f"`--dry-run` {rows:,} rows vs 1 row (`bench/import.py validation`)", f"{tn:.2f} s",
           f"1-row `--dry-run` {t1:.2f} s", f"{tn / t1:.2f}x", "<= 3x", tn / t1 <= 3)


def warm_up(service: Service, bin_dir: Path, work: Path) -> None:
    """One untimed 1-row import, so the first timed one does not read the venv from disk."""
    one = excel_file(work / "warm-1.csv", 1)
    check_once(import_argv(bin_dir, one, service.client_ids["warm"]), service.env())


def local(bin_dir: Path, work: Path, rows: int = 5_000, rounds: int = 3, wrk_seconds: int = 5) -> None:
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")
    path = excel_file(work / f"local-{rows}.csv", rows)
    labels = ["warm"] + [f"{kind}-{i}" for i in range(rounds) for kind in ("import", "wrk-keys", "wrk-bare")]
    service = Service(dict.fromkeys(labels, 0), python=str(bin_dir / "python"))
    try:
        warm_up(service, bin_dir, work)
        keyed, bare, rates = [], [], []
        for i in range(rounds):  # alternated: the host is shared, and every figure sees the same load
            keyed.append(wrk_rate(service, f"wrk-keys-{i}", work, wrk_seconds, keys=True))
            bare.append(wrk_rate(service, f"wrk-bare-{i}", work, wrk_seconds, keys=False))
            rates.append(rows / timed_import(service, bin_dir, path, rows, f"import-{i}"))
            print(f"local: round {i + 1}: wrk {keyed[-1]:,.0f}/s with Idempotency-Key, {bare[-1]:,.0f}/s without; "
                  f"wfctl {rates[-1]:,.0f} rows/s", flush=True)
    finally:
        service.stop()
    rate, keys, plain = statistics.median(rates), statistics.median(keyed), statistics.median(bare)
    what = f"`sites import`, {rows:,} rows, whole command (`bench/import.py local`)"
    figure(what, f"{rate:,.0f} rows/s", f"wrk create with Idempotency-Key (as wfctl sends) {keys:,.0f}/s",
           f"{rate / keys:.2f}", ">= 0.6 of wrk", rate / keys >= 0.6)
    figure(what, f"{rate:,.0f} rows/s", f"wrk create without Idempotency-Key {plain:,.0f}/s",
           f"{rate / plain:.2f}", ">= 0.6 of wrk", rate / plain >= 0.6)


def latency(bin_dir: Path, work: Path, rows: int = 2_000, runs: int = 3, concurrency: int = 16,
            latency_ms: int = 50) -> None:
    path = excel_file(work / f"latency-{rows}.csv", rows)
    labels = ["warm"] + [f"latency-{i}" for i in range(runs)]
    service = Service(dict.fromkeys(labels, 0), python=str(bin_dir / "python"), latency_ms=latency_ms)
    try:
        warm_up(service, bin_dir, work)
        seconds = [timed_import(service, bin_dir, path, rows, label, "--concurrency", str(concurrency))
                   for label in labels[1:]]
    finally:
        service.stop()
    median = statistics.median(seconds)
    rate, limit = rows / median, concurrency / (latency_ms / 1000)
    print(f"latency: {rows:,} rows, --concurrency {concurrency}, --latency {latency_ms}: "
          + ", ".join(f"{s:.2f} s" for s in seconds), flush=True)
    figure(f"`sites import --concurrency {concurrency}`, {rows:,} rows against `--latency {latency_ms}`, whole "
           "command (`bench/import.py latency`)", f"{rate:,.0f} rows/s ({median:.2f} s)",
           f"Little's law {concurrency} / {latency_ms / 1000:g} s = {limit:,.0f} rows/s", f"{rate / limit:.2f}",
           ">= 0.85", rate / limit >= 0.85)


def memory(bin_dir: Path, work: Path, small: int = 10_000, large: int = 100_000, dry_run: bool = False) -> None:
    mode = "--dry-run" if dry_run else "real import"
    service = Service({str(small): 0, str(large): 0}, python=str(bin_dir / "python"))
    peaks = {}
    try:
        for rows in (small, large):
            path = excel_file(work / f"memory-{rows}.csv", rows)
            argv = import_argv(bin_dir, path, service.client_ids[str(rows)], *(["--dry-run"] if dry_run else []))
            result = run(argv, env=service.env())
            if result.returncode != 0:
                raise SystemExit(f"{shlex.join(argv)}: exit {result.returncode}")
            if not dry_run:
                with contextlib.closing(sqlite3.connect(service.db)) as db:
                    created = db.execute("SELECT count(*) FROM sites WHERE client_id = ?",
                                         (service.client_ids[str(rows)],)).fetchone()[0]
                if created != rows:
                    raise SystemExit(f"memory: {created} sites created of {rows} rows")
            peaks[rows] = result.peak_rss_mb
            print(f"memory: {mode} of {rows:,} rows: {result.seconds:.1f} s, peak RSS {result.peak_rss_mb:.1f} MiB",
                  flush=True)
    finally:
        service.stop()
    ratio = peaks[large] / peaks[small]
    figure(f"`sites import{' --dry-run' if dry_run else ''}` peak memory (`bench/import.py memory`)",
           f"{peaks[large]:.1f} MiB at {large:,} rows", f"{peaks[small]:.1f} MiB at {small:,} rows",
           f"{ratio:.3f}", "<= 1.10", ratio <= 1.10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["validation", "local", "latency", "memory", "all"])
    parser.add_argument("--from-head", action="store_true", help="build the wheel from git HEAD, not the tree")
    parser.add_argument("--runs", type=int, default=5, help="hyperfine runs of each --dry-run (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the local and latency runs (default 3)")
    parser.add_argument("--large", type=int, default=100_000, help="rows of the large memory run")
    parser.add_argument("--memory-dry-run", action="store_true", help="measure the memory of --dry-run instead")
    args = parser.parse_args()
    if not Path(HYPERFINE).exists():
        raise SystemExit(f"{HYPERFINE} is not installed (apt-get install -y hyperfine)")
    started = time.monotonic()
    bin_dir = installed_wheel(args.from_head)
    print(f"{os.cpu_count()} CPUs, load average {load()} at the start; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    with tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp:
        work = Path(tmp)
        if args.which in ("validation", "all"):
            validation(bin_dir, work, runs=args.runs)
        if args.which in ("local", "all"):
            local(bin_dir, work, rounds=args.rounds)
        if args.which in ("latency", "all"):
            latency(bin_dir, work, runs=args.rounds)
        if args.which in ("memory", "all"):
            memory(bin_dir, work, large=args.large, dry_run=args.memory_dry_run)
    print(f"\nREADME \"Performance\" rows (installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}, "
          f"{time.monotonic() - started:.0f} s, {os.cpu_count()} CPUs, load average {load()} at the end):")
    print("| what | measured | baseline in the same run | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for fig in FIGURES:
        print(fig.row())
    missed = [f"{fig.what.split(' (`')[0]} ({fig.ratio}, target {fig.target})" for fig in FIGURES if not fig.ok]
    print(f"{len(FIGURES) - len(missed)} of {len(FIGURES)} targets met" + "".join(f"\nMISS  {m}" for m in missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
