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

import importlib
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import agency_sites

bench_import = importlib.import_module("bench.import")  # `import` is a keyword: no `from bench.import import`
CHARGE = "pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60"


def main() -> int:
    args, wfctl, service = agency_sites(__doc__, "audit")
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
    sites = args.sites
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"{sites:,} sites (+ the seed's), --latency {args.latency}: export {export:.2f} s, audit {audited:.2f} s "
          f"(load average {load})", flush=True)
    bench_import.figure(f"`audit --all-clients` (every check), {sites:,} sites against `--latency {args.latency}` "
                        "(`bench/audit.py`)", f"{audited:.2f} s", f"`sites export --all-clients` {export:.2f} s",
                        f"{audited / export:.2f}", "<= 1.5", audited / export <= 1.5)
    return bench_import.print_rows(f"installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    sys.exit(main())
