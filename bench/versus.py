#!/usr/bin/env python3
"""Two commits of wfctl in the same run: start-up and a bulk import of each, as installed wheels (issue 46:
"start-up and bulk figures stay within noise, measured in the same run" after a change that moves every
module).

    python3 bench/versus.py 9aec6be            # that commit against the working tree
    python3 bench/versus.py 9aec6be HEAD --runs 30 --rounds 3

Both wheels are built and installed as bench/import.py installs one (`installed_wheel`: pip byte-compiles
them, the dependencies pinned to .venv's). Start-up: `wfctl --version`, `wfctl --help` and `wfctl sites list
--help` of both in ONE hyperfine run (`-N`, each process executed directly, the index built first, as a
first run after an install builds it). Bulk: a 2,000-row Excel-style `sites import` into a fresh client of
one sandbox (the newer wheel's), the two wheels alternated round by round (ABBA), the median of each.
Prints each figure, the ratio new / old, and whether it is within `--noise` (default 10%): exit 1 if not.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service

bench_import = importlib.import_module("bench.import")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the commit measured against (e.g. main before the change)")
    parser.add_argument("new", nargs="?", help="the commit measured (default: the working tree)")
    parser.add_argument("--runs", type=int, default=20, help="hyperfine runs of each start-up command")
    parser.add_argument("--rounds", type=int, default=2, help="import rounds (each: old, new, new, old)")
    parser.add_argument("--rows", type=int, default=2_000, help="rows of each import")
    parser.add_argument("--noise", type=float, default=0.10, help="the share a figure may move by")
    args = parser.parse_args()
    old = bench_import.installed_wheel(ref=args.old)
    new = bench_import.installed_wheel(ref=args.new) if args.new else bench_import.installed_wheel()
    print(f"load average {bench_import.load()}", flush=True)
    ok = True
    with tempfile.TemporaryDirectory(prefix="wfctl-versus-") as tmp:
        work = Path(tmp)
        env = {**bench_import.clean_env(), "HOME": str(work), "XDG_CACHE_HOME": str(work / "cache"),
               "XDG_CONFIG_HOME": str(work / "config"), "COLUMNS": "100"}
        commands: dict[str, list[str]] = {}
        for label, bin_dir in (("old", old), ("new", new)):
            for words in (["--version"], ["--help"], ["sites", "list", "--help"]):
                subprocess.run([str(bin_dir / "wfctl"), *words], env=env, check=True,  # the index, built once
                               stdout=subprocess.DEVNULL)
                commands[f"{label}: wfctl {' '.join(words)}"] = [str(bin_dir / "wfctl"), *words]
        medians = bench_import.hyperfine(commands, env, args.runs, warmup=3)
        for typed in ("--version", "--help", "sites list --help"):
            before, after = medians[f"old: wfctl {typed}"], medians[f"new: wfctl {typed}"]
            ok = _said(f"wfctl {typed}", after * 1000, before * 1000, "ms", args.noise, lower_is_better=True) and ok
        ok = _imports(old, new, work, args.rows, args.rounds, args.noise) and ok
    return 0 if ok else 1


def _imports(old: Path, new: Path, work: Path, rows: int, rounds: int, noise: float) -> bool:
    path = bench_import.excel_file(work / f"versus-{rows}.csv", rows)
    order = [label for _ in range(rounds) for label in ("old", "new", "new", "old")]
    labels = ["warm-old", "warm-new"] + [f"{label}-{i}" for i, label in enumerate(order)]
    service = Service(dict.fromkeys(labels, 0), python=str(new / "python"))
    rates: dict[str, list[float]] = {"old": [], "new": []}
    try:
        bin_dirs = {"old": old, "new": new}
        for label, bin_dir in bin_dirs.items():  # untimed: the first run reads the venv from disk
            one = bench_import.excel_file(work / f"warm-{label}.csv", 1)
            bench_import.check_once(bench_import.import_argv(bin_dir, one, service.client_ids[f"warm-{label}"]),
                                    service.env())
        for i, label in enumerate(order):
            seconds = bench_import.timed_import(service, bin_dirs[label], path, rows, f"{label}-{i}")
            rates[label].append(rows / seconds)
            print(f"import {i + 1} of {len(order)} ({label}): {rows / seconds:,.0f} rows/s", flush=True)
    finally:
        service.stop()
    return _said(f"sites import, {rows:,} rows", statistics.median(rates["new"]), statistics.median(rates["old"]),
                 "rows/s", noise, lower_is_better=False)


def _said(what: str, new: float, old: float, unit: str, noise: float, *, lower_is_better: bool) -> bool:
    ratio = new / old
    worse = ratio - 1 if lower_is_better else 1 - ratio
    ok = worse <= noise
    print(f"{what}: new {new:,.1f} {unit}, old {old:,.1f} {unit}: ratio {ratio:.3f} "
          f"({'within' if ok else 'OUTSIDE'} {noise:.0%})", flush=True)
    return ok


if __name__ == "__main__":
    sys.exit(main())
