"""`wfctl sites list --all -o jsonl` over 100,000 sites: constant memory, and close to a bare httpx loop.

    python bench/list_stream.py [--sites 100000] [--small 10000] [--repeat 2]

Targets (issue 4): peak RSS under 40 MB, at 100,000 sites within 10% of the peak at 10,000, and at least
80% of the records per second of a bare httpx loop reading the same pages in the same run. Both run
against the same local sandbox (one process, SQLite), pages of 100. A benchmark, not a timed test.
Measured on the installed wheel (bench/import.py `installed_wheel`): its `wfctl` console script, and the bare
loop on that venv's python, each the measured process itself (its peak RSS from os.wait4).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import importlib

from bench._service import Service, run

_bench = importlib.import_module("bench.import")  # `import` is a keyword: the module is loaded by name

BARE_LOOP = r"""
import sys, httpx
url, token, client = sys.argv[1:4]
count = 0
with httpx.Client(base_url=url, headers={"Authorization": "Bearer " + token}) as http:
    page = http.get(f"/api/clients/{client}/sites", params={"pageSize": 100}).json()
    while True:
        count += len(page["data"])
        if not page.get("nextPage"):
            break
        page = http.get(page["nextPage"]).json()
print(count)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    print(f"setting up a sandbox with {args.small:,} and {args.sites:,} sites ...", flush=True)
    bin_dir = _bench.installed_wheel()
    python = str(bin_dir / "python")
    service = Service({"small": args.small, "large": args.sites}, python=python)
    try:
        env = service.env()
        results: dict[str, tuple[float, float]] = {}
        for label, count in (("small", args.small), ("large", args.sites)):
            client = service.client_ids[label]
            wf_runs, bare_runs = [], []
            for _ in range(args.repeat):  # interleaved, so both see the same machine load
                wf = run([str(bin_dir / "wfctl"), "sites", "list", "--client", client, "--all", "--page-size", "100",
                          "-o", "jsonl"], env=env, stdout=-1)
                lines = wf.stdout.count(b"\n")
                assert wf.returncode == 0 and lines == count, (wf.returncode, lines)
                wf_runs.append(wf)
                bare = run([python, "-c", BARE_LOOP, service.url, service.token, client], env=env, stdout=-1)
                assert bare.returncode == 0 and int(bare.stdout) == count
                bare_runs.append(bare)
            wf_best = min(wf_runs, key=lambda r: r.seconds)
            bare_best = min(bare_runs, key=lambda r: r.seconds)
            peak = max(r.peak_rss_mb for r in wf_runs)
            results[label] = (peak, wf_best.seconds)
            print(f"{count:>7,} sites: wfctl {wf_best.seconds:6.2f} s ({count / wf_best.seconds:8,.0f} rec/s), "
                  f"peak RSS {peak:5.1f} MB | bare httpx loop {bare_best.seconds:6.2f} s "
                  f"({count / bare_best.seconds:8,.0f} rec/s), peak RSS {bare_best.peak_rss_mb:5.1f} MB | "
                  f"throughput ratio {bare_best.seconds / wf_best.seconds:.2f}", flush=True)
        small_peak, large_peak = results["small"][0], results["large"][0]
        growth = large_peak / small_peak - 1
        print(f"peak RSS at {args.sites:,}: {large_peak:.1f} MB (target < 40 MB); "
              f"vs {args.small:,}: {growth:+.1%} (target within 10%)")
        # `wfctl` output piped to a reader here; to /dev/null it is the same code path.
        return 0 if large_peak < 40 and abs(growth) <= 0.10 else 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
