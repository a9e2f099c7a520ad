"""Cold `wfctl sites list --client <id> -o json` (one page) against a plain httpx script and httpie.

    python bench/list_latency.py [--runs 15] [--rounds 3]

Targets (issue 4): wfctl at most 1.5x the plain Python script that imports httpx and makes the same
request, and faster than httpie making it, in the same run. What a user gets is measured: the wheel built
from this working tree and installed in a venv of its own (bench/import.py `installed_wheel`), its `wfctl`
console script; the plain script runs on that venv's python. Every run is a new process (cold start),
executed directly by `hyperfine -N` (no Python wrapper around it); `--rounds` rounds of the three, one after
the other, so that they see the same machine load; the median of each one's round medians is compared.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import importlib

from bench._service import PY, Service

_bench = importlib.import_module("bench.import")  # `import` is a keyword: the module is loaded by name

PLAIN = r"""
import sys, httpx
url, token = sys.argv[1:3]
response = httpx.get(url, headers={"Authorization": "Bearer " + token})
sys.stdout.write(response.text)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command a round (default 15)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three (default 3)")
    args = parser.parse_args()

    bin_dir = _bench.installed_wheel()
    print(f"load average {_bench.load()} at the start", flush=True)
    service = Service({"latency": 10}, python=str(bin_dir / "python"))
    try:
        env = service.env()
        client = service.client_ids["latency"]
        url = f"{service.url}/api/clients/{client}/sites"
        http = shutil.which("http", path=str(Path(PY).parent)) or shutil.which("http")
        commands = {
            "wfctl": [str(bin_dir / "wfctl"), "sites", "list", "--client", client, "-o", "json"],
            "plain httpx script": [str(bin_dir / "python"), "-c", PLAIN, url, service.token],
        }
        if http:
            commands["httpie"] = [http, "--ignore-stdin", "--body", "GET", url, f"Authorization:Bearer {service.token}"]
        rounds = [_bench.hyperfine(commands, env, runs=args.runs, warmup=2) for _ in range(args.rounds)]
        median = {name: statistics.median(r[name] for r in rounds) for name in commands}
        for name, value in median.items():
            print(f"{name:<20} median {value * 1000:7.1f} ms   rounds "
                  + ", ".join(f"{r[name] * 1000:.1f}" for r in rounds))
        ratio = median["wfctl"] / median["plain httpx script"]
        print(f"wfctl / plain httpx script: {ratio:.2f} (target <= 1.5)")
        ok = ratio <= 1.5
        if "httpie" in median:
            vs_httpie = median["wfctl"] / median["httpie"]
            print(f"wfctl / httpie:             {vs_httpie:.2f} (target < 1)")
            ok = ok and vs_httpie < 1
        print(f"load average {_bench.load()} at the end")
        return 0 if ok else 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
