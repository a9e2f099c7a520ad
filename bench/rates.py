"""Rates across sites (issue 23, section 3): `python bench/rates.py [--sites 3000] [--runs 3]`.

Against `sandbox serve --latency 50` holding --sites extra sites (30 clients of sites/30 each, plus the
seed), the installed wheel (bench/import.py builds it: `pip wheel`, its own venv, byte-compiled), each
command run directly by `hyperfine -N`, whole command, stdout to /dev/null, all in the same run:

- baseline: `sites export --all-clients` (every site's full record, 16 in flight);
- `rates list --all-clients -o csv`: target <= 1.2x the export;
- `rates set --all-clients --skill picker --by +1%` (plan: read every site; run: read each again,
  write it, read it back, 64 sites at once: 4 round trips a site against the export's 1): target <= 2.5x the export. Each run changes every bench site.

Prints one line per figure and the rows for README "Performance"; exits 1 when a target is missed.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import agency_sites

bench_import = importlib.import_module("bench.import")  # `import` is a keyword: no `from bench.import import`


def main() -> int:
    args, wfctl, service = agency_sites(__doc__, "rates")
    try:
        env = service.env()
        commands = {
            "sites export": [wfctl, "sites", "export", "--all-clients"],
            "rates list": [wfctl, "rates", "list", "--all-clients", "-o", "csv"],
            "rates set": [wfctl, "rates", "set", "--all-clients", "--skill", "picker", "--by", "+1%"],
        }
        times = bench_import.hyperfine(commands, env, runs=args.runs, warmup=1)
    finally:
        service.stop()
    export, listed, changed = times["sites export"], times["rates list"], times["rates set"]
    sites = args.sites
    print(f"{sites:,} sites (+ the seed's), --latency {args.latency}: export {export:.2f} s, rates list "
          f"{listed:.2f} s, rates set {changed:.2f} s", flush=True)
    bench_import.figure(f"`rates list --all-clients`, {sites:,} sites against `--latency {args.latency}` "
                        "(`bench/rates.py`)", f"{listed:.2f} s", f"`sites export --all-clients` {export:.2f} s",
                        f"{listed / export:.2f}", "<= 1.2", listed / export <= 1.2)
    bench_import.figure(f"`rates set --all-clients --by +1%`, {sites:,} sites against `--latency {args.latency}` "
                        "(`bench/rates.py`)", f"{changed:.2f} s", f"`sites export --all-clients` {export:.2f} s",
                        f"{changed / export:.2f}", "<= 2.5", changed / export <= 2.5)
    return bench_import.print_rows(f"installed wheel, hyperfine -N, {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    sys.exit(main())
