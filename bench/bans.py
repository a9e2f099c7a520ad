"""Bans across sites (issue 35 §5): `python bench/bans.py [--rounds 3] [--runs 3]`.

As bench/rates.py and bench/prune.py: the installed wheel (bench/import.py builds it: `pip wheel`, its own
venv, byte-compiled), its `wfctl` run directly, against that installation's sandbox with `--latency 50`
(bench/_service.py), baselines measured in the same run.

- add:   `bans add W-BENCH-<n> --client <id> --concurrency 8 --yes` over a client of 300 sites, a fresh
         client each round. Each site is read, written and read back (3 round trips). The send pass is the
         run's own figure (its closing line: `plan 1.2s, send 3.0s`), measured in the process, so a loaded
         machine's noise between commands does not enter it. Little's law for 300 sites x 3 requests at
         8 in flight against 50 ms: 300 x 3 x 0.05 / 8 = 5.625 s; target >= 0.85 of it (8, as bench/prune.py;
         `--concurrency` measures another). Measured 2026-11-28 on 2 cores: at load 2, 0.91 at 8 and 0.85 at
         16 (2.81 s by Little's law); at load 7-8 (other runs on the machine), 0.71 and 0.67: the client, the
         one sandbox process and the other runs share the 2 cores.
- where: `bans where W-BENCH-0` over every site of the agency (3,000 bench sites and the seed's; the add
         rounds' bans among them), `-o csv`, against `sites export --all-clients`, alternated by
         `hyperfine -N`: target <= 1.2x.

Prints one line per figure and the rows for README "Performance"; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service

bench = importlib.import_module("bench.import")  # `import` is a keyword: the module by name

SITES, BANNED, LATENCY_MS = 3_000, 300, 50
REQUESTS_A_SITE = 3  # read, write, read back


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="bans add over 300 sites (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="hyperfine runs of where and the export (default 3)")
    parser.add_argument("--concurrency", type=int, default=8, help="sites a bans add changes at once (default 8)")
    parser.add_argument("--from-head", action="store_true", help="build the wheel from git HEAD, not the tree")
    args = parser.parse_args()
    if not Path(bench.HYPERFINE).exists():
        raise SystemExit(f"{bench.HYPERFINE} is not installed (apt-get install -y hyperfine)")
    started = time.monotonic()
    bin_dir = bench.installed_wheel(args.from_head)
    wfctl = str(bin_dir / "wfctl")
    print(f"{os.cpu_count()} CPUs, load average {bench.load()} at the start", flush=True)
    adds = [f"add-{i}" for i in range(args.rounds)]
    others = (SITES - BANNED * args.rounds) // 30
    service = Service({**dict.fromkeys(adds, BANNED), **{f"where-{i:02d}": others for i in range(30)}},
                      python=str(bin_dir / "python"), latency_ms=LATENCY_MS)
    sends, runs = [], []
    try:
        env = service.env()
        for n, label in enumerate(adds):
            command = [wfctl, "bans", "add", f"W-BENCH-{n}", "--client", service.client_ids[label],
                       "--concurrency", str(args.concurrency), "--yes"]
            began = time.monotonic()
            r = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            runs.append(time.monotonic() - began)
            line = " ".join(r.stderr.split())
            if r.returncode != 0 or f"updated {BANNED}" not in line:
                raise SystemExit(f"{label}: exit {r.returncode}\n{r.stderr[-2000:]}")
            split = re.search(r"send ([0-9.]+)s", line)
            if split is None:
                raise SystemExit(f"{label}: no send pass in the run's line: {line}")
            sends.append(float(split.group(1)))
        times = bench.hyperfine({"sites export": [wfctl, "sites", "export", "--all-clients"],
                                 "bans where": [wfctl, "bans", "where", "W-BENCH-0", "-o", "csv"]},
                                env, runs=args.runs, warmup=1)
    finally:
        service.stop()
    send = statistics.median(sends)
    little = BANNED * REQUESTS_A_SITE * (LATENCY_MS / 1000) / args.concurrency
    print(f"add: runs {', '.join(f'{s:.2f}' for s in runs)} s, their send passes "
          f"{', '.join(f'{s:.2f}' for s in sends)} s", flush=True)
    bench.figure(f"`bans add` over {BANNED} sites at --concurrency {args.concurrency} against `--latency {LATENCY_MS}` "
                 "(each site read, written, read back): the run's send pass, as its closing line says it "
                 "(`bench/bans.py`)", f"{send:.2f} s ({BANNED / send:,.0f} sites/s)",
                 f"Little's law {BANNED} x {REQUESTS_A_SITE} x {LATENCY_MS / 1000:g} s / {args.concurrency} = {little:.3f} s",
                 f"{little / send:.2f}", ">= 0.85", little / send >= 0.85)
    export, where = times["sites export"], times["bans where"]
    total = BANNED * args.rounds + others * 30
    bench.figure(f"`bans where W-BENCH-0` over the agency, {total:,} sites (+ the seed's) against "
                 f"`--latency {LATENCY_MS}` (`bench/bans.py`)", f"{where:.2f} s",
                 f"`sites export --all-clients` {export:.2f} s", f"{where / export:.2f}", "<= 1.2",
                 where / export <= 1.2)
    print(f"\nREADME \"Performance\" rows (installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}, "
          f"{time.monotonic() - started:.0f} s, {os.cpu_count()} CPUs, load average {bench.load()} at the end):")
    for fig in bench.FIGURES:
        print(fig.row())
    return 0 if all(fig.ok for fig in bench.FIGURES) else 1


if __name__ == "__main__":
    sys.exit(main())
