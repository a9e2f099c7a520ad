"""The audit (issue 35, sections 4 and 5): `python bench/audit.py [--sites 3000] [--runs 3]`.

Against `sandbox serve --latency 50` holding --sites extra sites (30 clients of sites/30 each, plus the
seed), the installed wheel (bench/import.py builds it: `pip wheel`, its own venv, byte-compiled), each
command run directly by `hyperfine -N`, whole command, stdout to /dev/null, all in the same run:

- baseline: `sites export --all-clients` (every site's full record, 16 in flight);
- `audit --all-clients --floor 12.71 --charge-floor ...`: every check, over the same full records (16 in
  flight), then the judgement across sites (bans per client, look-alike names across clients: the bench's
  30 clients each have sites named `Site 000000`... so every name has 29 look-alikes, and half the sites
  require an assessment and hold no document: thousands of findings written). Exits 1 (findings), which
  hyperfine is told is an answer. Target <= 1.5x the export.

Prints one line per figure and the rows for README "Performance"; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service

bench_import = importlib.import_module("bench.import")  # `import` is a keyword: no `from bench.import import`
CHARGE = "pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=int, default=50)
    args = parser.parse_args()
    if not Path(bench_import.HYPERFINE).exists():
        raise SystemExit(f"{bench_import.HYPERFINE} is not installed (apt-get install -y hyperfine)")
    bin_dir = bench_import.installed_wheel()
    wfctl = str(bin_dir / "wfctl")
    per_client = args.sites // args.clients
    service = Service({f"audit-{i:02d}": per_client for i in range(args.clients)}, python=str(bin_dir / "python"),
                      latency_ms=args.latency)
    try:
        env = service.env()
        commands = {
            "sites export": [wfctl, "sites", "export", "--all-clients"],
            "audit": [wfctl, "audit", "--all-clients", "--floor", "12.71", "--charge-floor", CHARGE],
        }
        for name, argv in commands.items():  # each once, untimed: an exit other than its answer is no figure
            answer = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            if answer.returncode != (1 if name == "audit" else 0) or not answer.stdout:
                raise SystemExit(f"{shlex.join(argv)}: exit {answer.returncode}\n{answer.stderr[-3000:]}")
            print(f"{name}: exit {answer.returncode}, {len(answer.stdout.splitlines()):,} lines", flush=True)
        times = bench_import.hyperfine(commands, env, runs=args.runs, warmup=1, ignore_failure=True)
    finally:
        service.stop()
    export, audited = times["sites export"], times["audit"]
    sites = per_client * args.clients
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"{sites:,} sites (+ the seed's), --latency {args.latency}: export {export:.2f} s, audit {audited:.2f} s "
          f"(load average {load})", flush=True)
    bench_import.figure(f"`audit --all-clients` (every check), {sites:,} sites against `--latency {args.latency}` "
                        "(`bench/audit.py`)", f"{audited:.2f} s", f"`sites export --all-clients` {export:.2f} s",
                        f"{audited / export:.2f}", "<= 1.5", audited / export <= 1.5)
    print(f"\nREADME \"Performance\" rows (installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}):")
    for fig in bench_import.FIGURES:
        print(fig.row())
    return 0 if all(fig.ok for fig in bench_import.FIGURES) else 1


if __name__ == "__main__":
    sys.exit(main())
