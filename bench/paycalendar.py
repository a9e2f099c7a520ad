#!/usr/bin/env python3
"""The pay calendar (issue 35 §5): `python bench/paycalendar.py [--runs 10] [--checkout]`.

Measured as bench/reads.py measures: the wheel built from this working tree and installed in a venv of its
own (`--checkout` runs this checkout's .venv instead), each command that venv's `wfctl` run directly by
`hyperfine -N`, wall clock of the whole command, start-up included, against `wfctl sandbox serve --latency 50`
of the same installation. The baseline is `wfctl agency show` (one request) in the same hyperfine run:

- `calendar weeks` of a year (52 weeks, --deadline 'Mon 12:00') with `--refresh`: the agency read as
  `agency show` reads it, the bank holidays from their cache file: target <= 1.2x;
- the same within a session of work (the agency's fields kept for an hour: no request): target <= 1.2x;
- the first run on a machine (no cache at all: the agency read and the `holidays` library imported), reported.

Prints one PASS/MISS line per figure and the README "Performance" rows; exits 1 when a target is missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import importlib
import json
import shlex
import subprocess
import tempfile

from bench._service import Service, installed_bin

LATENCY_MS = 50
RATIO = 1.2

bench_import = importlib.import_module("bench.import")
figure, hyperfine = bench_import.figure, bench_import.hyperfine


def cold(command: list[str], env: dict[str, str], runs: int) -> float:
    """Median seconds of `command` with wfctl's cache folder removed before each run."""
    cache = Path(env["XDG_CACHE_HOME"]) / "wfctl"
    with tempfile.TemporaryDirectory(prefix="wfctl-hyperfine-") as tmp:
        export = Path(tmp) / "out.json"
        argv = [bench_import.HYPERFINE, "-N", "--style", "none", "--output", "null", "--runs", str(runs),
                "--prepare", f"rm -rf {shlex.quote(str(cache))}", "--export-json", str(export), shlex.join(command)]
        r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if r.returncode != 0:
            raise SystemExit(f"hyperfine failed: {r.stderr}")
        return float(json.loads(export.read_text())["results"][0]["median"])


def main() -> int:
    args, bin_dir = installed_bin(__doc__, 10, "hyperfine runs of each command")
    wfctl = str(bin_dir / "wfctl")
    print(f"sandbox --latency {LATENCY_MS} ...", flush=True)
    service = Service({}, python=str(bin_dir / "python"), latency_ms=LATENCY_MS)
    try:
        env = service.env()
        year = [wfctl, "calendar", "weeks", "--from", "2026-04-06", "--to", "2027-04-04", "--deadline", "Mon 12:00"]
        rows = subprocess.run([*year, "-o", "json"], env=env, capture_output=True, text=True, check=True).stdout
        if len(json.loads(rows)) != 52:
            raise SystemExit(f"calendar weeks gave {len(json.loads(rows))} weeks, not 52")
        times = hyperfine({"agency show": [wfctl, "agency", "show"], "weeks --refresh": [*year, "--refresh"],
                           "weeks kept": year}, env, runs=args.runs, warmup=2)
        base = times["agency show"]
        for name, what in (("weeks --refresh", "calendar weeks of a year, the agency read (--refresh)"),
                           ("weeks kept", "calendar weeks of a year, the agency kept (a session of work)")):
            ratio = times[name] / base
            figure(what, f"{times[name] * 1000:.0f} ms", f"{base * 1000:.0f} ms agency show", f"{ratio:.2f}x",
                   f"<= {RATIO}x", ratio <= RATIO)
        first = cold(year, env, max(3, args.runs // 2))
        print(f"info  the first run (no cache: the agency read, the holidays library imported): {first * 1000:.0f} ms, "
              f"{first / base:.2f}x agency show", flush=True)
    finally:
        service.stop()
    return bench_import.print_rows()


if __name__ == "__main__":
    sys.exit(main())
