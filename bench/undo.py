"""Undo benchmark (issue 24 §3): `python bench/undo.py [--rows 3000] [--rounds 1]`.

What a user gets is measured, as in bench/import.py: the wheel built from this working tree, installed in a
venv of its own, its `wfctl` console script timed as a whole command (wall clock, start-up included) by
`hyperfine -N`, against `wfctl sandbox serve --latency 50` of the same installation.

Each round: a client with `--rows` sites; an untimed `sites import --on-existing update` changes the address of
every one of them; then the timed `imports undo <run> --yes` puts every address back (checked in the database
afterwards). Each restored row is three requests in sequence (GET to check the record is as the run left it,
PUT, GET to read the change back: wfctl.api.records.writes.update_record; bulk runs do not wait before the read-back).

Figure: rows/s and requests/s of the undo against Little's law for 16 requests in flight over 50 ms,
16 / 0.05 s = 320 a second: target >= 0.6, judged on rows (sites undone a second, as issue 24 asks); the
request rate is shown beside it (each restored row is three requests since every update is read back).
`--beside 32` also times an undo with `-j 32` (32 records in flight), shown for comparison, not judged.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import importlib

from bench._service import Service

_bench = importlib.import_module("bench.import")  # `import` is a keyword: the module is loaded by name
hyperfine, installed_wheel, load, check_once = (_bench.hyperfine, _bench.installed_wheel, _bench.load,
                                                _bench.check_once)

CONCURRENCY = 16  # rows an undo sends at once (wfctl.runs.undo.UNDO_CONCURRENCY)
REQUESTS_PER_ROW = 3  # GET (as the run left it?), PUT, GET (read back)


def updates_file(path: Path, rows: int) -> Path:
    """A CSV that changes the address of every site the bench's Service made (`Site 000000`, ...)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("name,address\n")
        for i in range(rows):
            f.write(f"Site {i:06d},{i} Quay Street (moved)\n")
    return path


def addresses(service: Service, client: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(service.db)) as db:
        return [row[0] for row in db.execute("SELECT address FROM sites WHERE client_id = ? ORDER BY name", (client,))]


def round_(service: Service, bin_dir: Path, work: Path, label: str, rows: int, concurrency: int = CONCURRENCY) -> float:
    client = service.client_ids[label]
    before = addresses(service, client)
    path = updates_file(work / f"{label}.csv", rows)
    summary = check_once([str(bin_dir / "wfctl"), "sites", "import", str(path), "--client", client,
                          "--on-existing", "update", "--concurrency", str(CONCURRENCY), "-o", "json"], service.env())
    if summary.get("updated") != rows:
        raise SystemExit(f"the import updated {summary.get('updated')} of {rows} sites: {summary}")
    run = str(summary["run"])
    command = [str(bin_dir / "wfctl"), "imports", "undo", run, "--yes"]
    if concurrency != CONCURRENCY:
        command += ["-j", str(concurrency)]
    seconds = hyperfine({label: command}, service.env(), runs=1)[label]
    if addresses(service, client) != before:
        raise SystemExit(f"undo {label}: not every address was put back")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3000, help="sites updated, then undone (default 3,000)")
    parser.add_argument("--rounds", type=int, default=1, help="timed undos (default 1; the median is shown)")
    parser.add_argument("--latency", type=int, default=50, help="the sandbox's --latency in ms (default 50)")
    parser.add_argument("--beside", type=int, default=0, metavar="J",
                        help="also time one undo with -j J (shown, not judged)")
    parser.add_argument("--from-head", action="store_true", help="build the wheel from git HEAD, not the tree")
    args = parser.parse_args()
    bin_dir = installed_wheel(args.from_head)
    print(f"{os.cpu_count()} CPUs, load average {load()} at the start; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    labels = [f"undo-{i}" for i in range(args.rounds)]
    extra = [f"undo-j{args.beside}"] if args.beside else []
    service = Service(dict.fromkeys(labels + extra, args.rows), python=str(bin_dir / "python"),
                      latency_ms=args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="wfctl-bench-undo-") as tmp:
            seconds = [round_(service, bin_dir, Path(tmp), label, args.rows) for label in labels]
            beside = [round_(service, bin_dir, Path(tmp), label, args.rows, args.beside) for label in extra]
    finally:
        service.stop()
    median = statistics.median(seconds)
    rows_rate = args.rows / median
    requests_rate = rows_rate * REQUESTS_PER_ROW
    limit = CONCURRENCY / (args.latency / 1000)
    ratio = rows_rate / limit
    print(f"undo of {args.rows:,} updated sites against --latency {args.latency}: "
          + ", ".join(f"{s:.2f} s" for s in seconds), flush=True)
    for value in beside:
        print(f"beside (not judged): with -j {args.beside}: {value:.2f} s, {args.rows / value:,.0f} rows/s = "
              f"{args.rows / value / limit:.2f} of Little's law for {CONCURRENCY} in flight", flush=True)
    verdict = "PASS" if ratio >= 0.6 else "MISS"
    print(f"{verdict}  `imports undo` of {args.rows:,} updated sites, whole command (`bench/undo.py`): {median:.2f} s, "
          f"{rows_rate:,.0f} rows/s = {requests_rate:,.0f} requests/s; Little's law {CONCURRENCY} / "
          f"{args.latency / 1000:g} s = {limit:,.0f}/s; ratio {ratio:.2f} of rows (target >= 0.6), "
          f"{requests_rate / limit:.2f} of requests; load average {load()} at the end")
    return 0 if ratio >= 0.6 else 1


if __name__ == "__main__":
    sys.exit(main())
