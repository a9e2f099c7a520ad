"""--jq and --jq-each on the installed wheel against a sandbox with --latency 50 (issue 34 §4).

    python bench/query.py [--sites 3000] [--small 10000] [--large 100000] [--repeat 3]

Targets:
- `sites list --all --jq '.[] | select(.assessmentRequired) | .name'` over 3,000 sites takes at most 1.3x
  the same command with `-o json` (the median of `--repeat` runs of each, interleaved, in the same run);
- `sites list --all -o jsonl --jq-each '{id, name}'` over 100,000 sites: peak RSS under 40 MB and within
  10% of the peak over 10,000 (the filter streams: one page at a time in memory). The same listing
  without a filter is measured in the same run, to show what the filter itself adds (libjq, and the
  compiled filter with jq's builtins: about 1 MB).

Measured on the installed wheel (bench/import.py `installed_wheel`): its `wfctl` console script is the
measured process, its peak RSS read from /proc (bench/_service.py `run`). The sandbox runs in its own
process, pages of 100, every answer delayed 50 ms as a service across a network would be.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service, run

_bench = importlib.import_module("bench.import")  # `import` is a keyword: the module is loaded by name
FILTER = ".[] | select(.assessmentRequired) | .name"
RATIO = 1.3
PEAK_MB = 40.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=3_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=int, default=50)
    args = parser.parse_args()

    print(f"setting up a sandbox (--latency {args.latency}) with {args.sites:,}, {args.small:,} and "
          f"{args.large:,} sites ...", flush=True)
    bin_dir = _bench.installed_wheel()
    wfctl = str(bin_dir / "wfctl")
    service = Service({"query": args.sites, "small": args.small, "large": args.large},
                      python=str(bin_dir / "python"), latency_ms=args.latency)
    ok = True
    try:
        env = service.env()
        listing = [wfctl, "sites", "list", "--client", service.client_ids["query"], "--all", "--page-size", "100"]
        as_json, queried = [], []
        for _ in range(args.repeat):  # interleaved: both see the same machine load
            plain = run([*listing, "-o", "json"], env=env, stdout=-1)
            assert plain.returncode == 0, plain
            jq = run([*listing, "--jq", FILTER], env=env, stdout=-1)
            assert jq.returncode == 0 and jq.stdout.count(b"\n") == args.sites // 2, jq
            as_json.append(plain.seconds)
            queried.append(jq.seconds)
        ratio = statistics.median(queried) / statistics.median(as_json)
        print(f"{args.sites:,} sites: -o json {statistics.median(as_json):.2f} s, --jq '{FILTER}' "
              f"{statistics.median(queried):.2f} s (medians of {args.repeat}): ratio {ratio:.2f} "
              f"(target <= {RATIO})", flush=True)
        ok = ok and ratio <= RATIO

        peaks = {}
        for label in ("small", "large"):
            count = args.small if label == "small" else args.large
            streamed = run([wfctl, "sites", "list", "--client", service.client_ids[label], "--all", "--page-size",
                            "100", "-o", "jsonl", "--jq-each", "{id, name}"], env=env, stdout=-1)
            assert streamed.returncode == 0 and streamed.stdout.count(b"\n") == count, streamed.returncode
            peaks[label] = streamed.peak_rss_mb
            print(f"--jq-each over {count:,} sites: {streamed.seconds:.1f} s, peak RSS {streamed.peak_rss_mb:.1f} MB",
                  flush=True)
        plain = run([wfctl, "sites", "list", "--client", service.client_ids["large"], "--all", "--page-size", "100",
                     "-o", "jsonl"], env=env, stdout=-1)
        assert plain.returncode == 0, plain.returncode
        print(f"the same listing without a filter over {args.large:,} sites: {plain.seconds:.1f} s, peak RSS "
              f"{plain.peak_rss_mb:.1f} MB (what the filter adds: {peaks['large'] - plain.peak_rss_mb:+.1f} MB)",
              flush=True)
        growth = peaks["large"] / peaks["small"] - 1
        print(f"peak RSS at {args.large:,}: {peaks['large']:.1f} MB (target < {PEAK_MB:.0f} MB); vs {args.small:,}: "
              f"{growth:+.1%} (target within 10%)")
        ok = ok and peaks["large"] < PEAK_MB and abs(growth) <= 0.10
        return 0 if ok else 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
