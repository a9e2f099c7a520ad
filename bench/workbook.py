"""Workbook benchmarks (issue 21 §2): `python bench/workbook.py [plan|export|lists|all] [--rows N]`.

On the installed wheel (bench/import.py's cached venv), each figure a ratio against the CSV path in the
same run:

- plan:   `sites import FILE --dry-run -o json` of a 100,000-row workbook against the same rows as CSV
          (hyperfine -N, median): target <= 3x; its peak RSS (VmHWM) against the CSV plan's: <= 1.5x.
- export: `sites export --client ID -f FILE.xlsx` of 100,000 sites against `-f FILE.csv`, CPU time (user +
          system) of the wfctl process: target <= 2x.
- lists:  the CSV plan of 20,000 rows whose list cells all differ (rates, departments, banned workers, as
          real sites' do) against a 1-row plan: target <= 3x.

Prints one line per figure (PASS/MISS) and a Markdown block; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service, run

_spec = importlib.util.spec_from_file_location("bench_import", Path(__file__).with_name("import.py"))
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_import"] = bench
_spec.loader.exec_module(bench)


def as_workbook(csv_path: Path, book_path: Path, python: Path) -> Path:
    """The rows of an Excel-style CSV as a workbook a person saved: text cells, booleans as booleans."""
    code = f"""
import csv, xlsxwriter
book = xlsxwriter.Workbook({str(book_path)!r}, {{"constant_memory": True}})
sheet = book.add_worksheet()
with open({str(csv_path)!r}, encoding="utf-8-sig", newline="") as f:
    for r, row in enumerate(csv.reader(f, delimiter=";")):
        for c, cell in enumerate(row):
            if r and cell in ("TRUE", "FALSE"):
                sheet.write_boolean(r, c, cell == "TRUE")
            else:
                sheet.write_string(r, c, cell)
book.close()
"""
    subprocess.run([str(python), "-c", code], check=True)
    return book_path


def distinct_lists_file(path: Path, rows: int) -> Path:
    """Sites whose rates, departments and banned workers differ on every row."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["name", "phone", "assessmentRequired", "rates", "departments", "bannedWorkers"])
        for i in range(rows):
            writer.writerow([f"Site {i:06d}", f"0161{i:07d}", "true" if i % 2 else "false",
                             f"Forklift Driver={10 + i % 90}.{i % 100:02d}|Picker {i}={11 + i % 7}.5",
                             f"Goods In {i}:Ann Lee:ann{i}@example.com|Yard {i % 13}",
                             f"W-{i}|W-{i + 1}|{i:08d}"])
    return path


def plan(bin_dir: Path, work: Path, rows: int, runs: int) -> None:
    sheet_csv = bench.excel_file(work / f"plan-{rows}.csv", rows)
    book = as_workbook(sheet_csv, work / f"plan-{rows}.xlsx", bin_dir / "python")
    service = Service({"dry": 0}, python=str(bin_dir / "python"))
    try:
        env, client = service.env(), service.client_ids["dry"]
        commands = {"csv": bench.import_argv(bin_dir, sheet_csv, client, "--dry-run"),
                    "xlsx": bench.import_argv(bin_dir, book, client, "--dry-run")}
        for name, argv in commands.items():
            summary = bench.check_once(argv, env)["summary"]
            if summary["created"] != rows or summary["invalid"]:
                raise SystemExit(f"the {name} plan is not {rows} creates: {summary}")
        times = bench.hyperfine(commands, env, runs=runs)
        peaks = {name: run(argv, env=env).peak_rss_mb for name, argv in commands.items()}
    finally:
        service.stop()
    print(f"plan: {rows:,} rows: csv {times['csv']:.2f} s {peaks['csv']:.0f} MiB, "
          f"xlsx {times['xlsx']:.2f} s {peaks['xlsx']:.0f} MiB", flush=True)
    ratio = times["xlsx"] / times["csv"]
    bench.figure(f"`--dry-run` of a {rows:,}-row workbook (`bench/workbook.py plan`)", f"{times['xlsx']:.2f} s",
                 f"the same rows as CSV {times['csv']:.2f} s", f"{ratio:.2f}x", "<= 3x", ratio <= 3)
    ratio = peaks["xlsx"] / peaks["csv"]
    bench.figure("peak memory of that plan (`bench/workbook.py plan`)", f"{peaks['xlsx']:.0f} MiB",
                 f"CSV plan {peaks['csv']:.0f} MiB", f"{ratio:.2f}x", "<= 1.5x", ratio <= 1.5)


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one run of `argv` (its own, from wait4)."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv}: failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime


def export(bin_dir: Path, work: Path, rows: int, runs: int) -> None:
    service = Service({"export": rows}, python=str(bin_dir / "python"))
    try:
        env, client = service.env(), service.client_ids["export"]
        cpu: dict[str, list[float]] = {"csv": [], "xlsx": []}
        for _ in range(runs):
            for name in cpu:
                argv = [str(bin_dir / "wfctl"), "sites", "export", "--client", client, "-f", str(work / f"out.{name}")]
                cpu[name].append(cpu_seconds(argv, env))
    finally:
        service.stop()
    best = {name: min(values) for name, values in cpu.items()}
    print(f"export: {rows:,} sites, CPU (best of {runs}): csv {best['csv']:.2f} s, xlsx {best['xlsx']:.2f} s",
          flush=True)
    ratio = best["xlsx"] / best["csv"]
    bench.figure(f"`sites export -f FILE.xlsx` of {rows:,} sites, CPU (`bench/workbook.py export`)",
                 f"{best['xlsx']:.2f} s", f"`-f FILE.csv` {best['csv']:.2f} s", f"{ratio:.2f}x", "<= 2x", ratio <= 2)


def lists(bin_dir: Path, work: Path, rows: int, runs: int) -> None:
    big, one = distinct_lists_file(work / f"lists-{rows}.csv", rows), distinct_lists_file(work / "lists-1.csv", 1)
    service = Service({"dry": 0}, python=str(bin_dir / "python"))
    try:
        env, client = service.env(), service.client_ids["dry"]
        commands = {"1 row": bench.import_argv(bin_dir, one, client, "--dry-run"),
                    f"{rows} rows": bench.import_argv(bin_dir, big, client, "--dry-run")}
        bench.check_once(commands[f"{rows} rows"], env)
        times = bench.hyperfine(commands, env, runs=runs, warmup=1)
    finally:
        service.stop()
    t1, tn = times["1 row"], times[f"{rows} rows"]
    bench.figure(f"`--dry-run` {rows:,} rows of distinct list cells vs 1 row (`bench/workbook.py lists`)",
                 f"{tn:.2f} s", f"1-row plan {t1:.2f} s", f"{tn / t1:.2f}x", "<= 3x", tn / t1 <= 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", nargs="?", default="all", choices=["plan", "export", "lists", "all"])
    parser.add_argument("--rows", type=int, default=100_000, help="rows of the plan and export figures")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--checkout", action="store_true", help="run the checkout's wfctl (.venv), not a wheel")
    parser.add_argument("--head", action="store_true",
                        help="the wheel of the last commit, not of the working tree (others' edits left out)")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent if args.checkout else bench.installed_wheel(from_head=args.head)
    print(f"load {bench.load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="wfctl-bench-workbook-") as tmp:
        work = Path(tmp)
        if args.which in ("plan", "all"):
            plan(bin_dir, work, args.rows, args.runs)
        if args.which in ("export", "all"):
            export(bin_dir, work, args.rows, args.runs)
        if args.which in ("lists", "all"):
            lists(bin_dir, work, 20_000, max(args.runs, 5))
    print(f"\nworkbook figures (installed wheel, {time.strftime('%Y-%m-%d')}, load {bench.load()}):")
    print("| what | measured | baseline in the same run | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for fig in bench.FIGURES:
        print(fig.row())
    missed = [fig for fig in bench.FIGURES if not fig.ok]
    print(f"{len(bench.FIGURES) - len(missed)} of {len(bench.FIGURES)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
