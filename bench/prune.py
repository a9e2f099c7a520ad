"""`import --prune` benchmarks (issue 32 §4): `python bench/prune.py [--rounds 3]`.

As bench/import.py: the installed wheel (built from this tree, its own venv), its `wfctl` run directly,
wall clock of the whole command, against that installation's sandbox with `--latency 50`; baselines
measured in the same run.

- deletes:  a prune of 300 of 3,000 sites (`sites import KEEP.csv --client ID --prune --yes
            --allow-deletes 300 --concurrency 8`, the file keeping 2,700), on a fresh client each round.
            The send pass is the run's own figure (its closing line: `plan 4.1s, send 2.0s`; planning
            lists the 3,000 and reads each delete's whole record, the send pass sends the 300 DELETEs
            and journals the 2,700 rows it skips): measured in the process, so a loaded machine's noise
            between two commands does not enter it (the difference of a run and its dry run did: it
            came out negative at load 28). Little's law for 300 DELETEs at concurrency 8 against
            50 ms: 300 x 0.05 / 8 = 1.875 s; target >= 0.85 of it.
- one row:  a 1-row import into a client holding that one site, with `--prune --yes` and without,
            alternated by hyperfine: target <= 1.2x.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service

bench = importlib.import_module("bench.import")  # `import` is a keyword: the module by name

SITES, DELETES, CONCURRENCY, LATENCY_MS = 3_000, 300, 8, 50


def keep_file(path: Path, kept: int) -> Path:
    path.write_text("name\n" + "".join(f"Site {i:06d}\n" for i in range(kept)), encoding="utf-8")
    return path


def argv(bin_dir: Path, path: Path, client: str, *extra: str) -> list[str]:
    return [str(bin_dir / "wfctl"), "sites", "import", str(path), "--client", client, *extra, "-o", "json"]


def deletes(bin_dir: Path, work: Path, rounds: int) -> None:
    labels = [f"prune-{i}" for i in range(rounds)]
    service = Service({**dict.fromkeys(labels, SITES), "warm": 10}, python=str(bin_dir / "python"),
                      latency_ms=LATENCY_MS)
    path = keep_file(work / "keep.csv", SITES - DELETES)
    prune = ("--prune", "--yes", "--allow-deletes", str(DELETES), "--concurrency", str(CONCURRENCY))
    sends, runs = [], []
    try:
        env = service.env()
        for label in labels:
            client = service.client_ids[label]
            started = time.monotonic()
            r = subprocess.run(argv(bin_dir, path, client, *prune)[:-2], env=env, capture_output=True, text=True,
                               check=False)
            runs.append(time.monotonic() - started)
            if r.returncode != 0:
                raise SystemExit(f"{label}: exit {r.returncode}\n{r.stderr[-2000:]}")
            line = r.stderr.strip().splitlines()[-1]
            split = re.search(r"send ([0-9.]+)s", " ".join(r.stderr.split()))
            if split is None:
                raise SystemExit(f"{label}: no send pass in the run's line: {line}")
            sends.append(float(split.group(1)))
            with closing(sqlite3.connect(service.db)) as db:
                left = db.execute("SELECT count(*) FROM sites WHERE client_id = ?", (client,)).fetchone()[0]
            if left != SITES - DELETES:
                raise SystemExit(f"{label}: {left} sites left, expected {SITES - DELETES}")
    finally:
        service.stop()
    send = statistics.median(sends)
    little = DELETES * (LATENCY_MS / 1000) / CONCURRENCY
    print(f"deletes: runs {', '.join(f'{s:.2f}' for s in runs)} s, their send passes "
          f"{', '.join(f'{s:.2f}' for s in sends)} s", flush=True)
    bench.figure(f"`sites import --prune`, {DELETES} of {SITES:,} sites deleted at --concurrency {CONCURRENCY} "
                 f"against `--latency {LATENCY_MS}`: the run's send pass, as its closing line says it ("
                 "`bench/prune.py`)", f"{send:.2f} s ({DELETES / send:,.0f} deletes/s)",
                 f"Little's law {DELETES} x {LATENCY_MS / 1000:g} s / {CONCURRENCY} = {little:.3f} s",
                 f"{little / send:.2f}", ">= 0.85", little / send >= 0.85)


def one_row(bin_dir: Path, work: Path, runs: int) -> None:
    service = Service({"one": 1}, python=str(bin_dir / "python"), latency_ms=LATENCY_MS)
    path = keep_file(work / "one.csv", 1)
    try:
        client = service.client_ids["one"]
        times = bench.hyperfine({"without": argv(bin_dir, path, client),
                                 "prune": argv(bin_dir, path, client, "--prune", "--yes")},
                                service.env(), runs=runs, warmup=1)
    finally:
        service.stop()
    ratio = times["prune"] / times["without"]
    bench.figure(f"a 1-row `sites import` with `--prune` against `--latency {LATENCY_MS}`, whole command "
                 "(`bench/prune.py`)", f"{times['prune'] * 1000:.0f} ms",
                 f"the same without --prune {times['without'] * 1000:.0f} ms", f"{ratio:.2f}", "<= 1.2", ratio <= 1.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="prunes of 300 of 3,000 (default 3)")
    parser.add_argument("--runs", type=int, default=10, help="hyperfine runs of each 1-row import (default 10)")
    parser.add_argument("--from-head", action="store_true", help="build the wheel from git HEAD, not the tree")
    parser.add_argument("--only", choices=["deletes", "one-row"], help="run one of the two benches")
    args = parser.parse_args()
    started = time.monotonic()
    bin_dir = bench.installed_wheel(args.from_head)
    print(f"{os.cpu_count()} CPUs, load average {bench.load()} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp:
        if args.only in (None, "deletes"):
            deletes(bin_dir, Path(tmp), args.rounds)
        if args.only in (None, "one-row"):
            one_row(bin_dir, Path(tmp), args.runs)
    print(f"\nREADME \"Performance\" rows (installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}, "
          f"{time.monotonic() - started:.0f} s, {os.cpu_count()} CPUs, load average {bench.load()} at the end):")
    for fig in bench.FIGURES:
        print(fig.row())
    missed = [fig for fig in bench.FIGURES if not fig.ok]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
