"""`wfctl sites export -o jsonl` over 100,000 sites: flat memory, the first line out at once, `| head -1` stops.

    python bench/export_stream.py [--sites 100000] [--repeat 3] [--checkout]

Targets (issue 44), all against the same sandbox in the same run: the whole export's peak RSS under 60 MB;
its first line out within 1.5x the time a one-page `sites list -o jsonl` of the same client takes to finish;
`sites export -o jsonl | head -1` makes at most 20 requests (counted by the sandbox's request log), as do
`sites list --all` and `api --paginate`. Measured on the installed wheel (bench/import.py `installed_wheel`)
or, with --checkout, this checkout's .venv. A benchmark, not a timed test.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import ROOT, Service, run


def first_line(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from the start of `argv` to its first line on stdout; the pipe is then closed (`| head -1`)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    seconds = time.perf_counter() - start
    proc.stdout.close()
    proc.wait(timeout=120)
    assert line.endswith(b"\n"), line
    return seconds


def finished(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def requests_of_head_1(service: Service, argv: list[str], env: dict[str, str]) -> int:
    before = service.requests_logged()
    first_line(argv, env)
    time.sleep(0.5)  # what was in flight when the reader left is answered and logged
    return service.requests_logged() - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkout", action="store_true", help="run .venv's wfctl instead of an installed wheel")
    args = parser.parse_args()

    bin_dir = ROOT / ".venv" / "bin" if args.checkout else importlib.import_module("bench.import").installed_wheel()
    wfctl = str(bin_dir / "wfctl")
    print(f"setting up a sandbox with {args.sites:,} sites ...", flush=True)
    service = Service({"big": args.sites}, python=str(bin_dir / "python"), log_requests=True)
    try:
        env = service.env()
        client = service.client_ids["big"]
        export = [wfctl, "sites", "export", "--client", client, "-o", "jsonl"]
        one_page = [wfctl, "sites", "list", "--client", client, "-o", "jsonl"]
        print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
        firsts, pages = [], []
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            pages.append(finished(one_page, env))
            firsts.append(first_line(export, env))
        first, page = statistics.median(firsts), statistics.median(pages)
        heads = {
            "sites export -o jsonl": requests_of_head_1(service, export, env),
            "sites export (csv)": requests_of_head_1(service, export[:-2], env),
            "sites list --all -o jsonl": requests_of_head_1(
                service, [wfctl, "sites", "list", "--client", client, "--all", "-o", "jsonl"], env),
            "api --paginate -o jsonl": requests_of_head_1(
                service, [wfctl, "api", "GET", f"/api/clients/{client}/sites", "--paginate", "-o", "jsonl"], env),
        }
        whole = run(export, env=env, stdout=subprocess.PIPE)
        lines = whole.stdout.count(b"\n")
        assert whole.returncode == 0 and lines == args.sites, (whole.returncode, lines)
        print(f"first line of the export {first:.3f} s; one-page sites list {page:.3f} s; ratio {first / page:.2f} "
              f"(target <= 1.5; medians of {args.repeat})")
        for name, count in heads.items():
            print(f"{name} | head -1: {count} requests (target <= 20)")
        print(f"whole export of {args.sites:,} sites: {whole.seconds:.1f} s ({args.sites / whole.seconds:,.0f} rec/s), "
              f"peak RSS {whole.peak_rss_mb:.1f} MB (target < 60 MB)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        ok = first / page <= 1.5 and whole.peak_rss_mb < 60 and all(count <= 20 for count in heads.values())
        return 0 if ok else 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
