"""Cold `wfctl sites list --client <id> -o json` (one page) against a plain httpx script and httpie.

    python bench/list_latency.py [--runs 15]

Targets (issue 4): wfctl at most 1.5x the plain Python script that imports httpx and makes the same
request, and faster than httpie making it, in the same run. Every run is a new process (cold start);
the three are interleaved so that they see the same machine load; medians are compared.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import PY, Service, run

PLAIN = r"""
import sys, httpx
url, token = sys.argv[1:3]
response = httpx.get(url, headers={"Authorization": "Bearer " + token})
sys.stdout.write(response.text)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    service = Service({"latency": 10})
    try:
        env = service.env()
        client = service.client_ids["latency"]
        url = f"{service.url}/api/clients/{client}/sites"
        http = shutil.which("http", path=str(Path(PY).parent)) or shutil.which("http")
        commands = {
            "wfctl": [PY, "-m", "wfctl", "sites", "list", "--client", client, "-o", "json"],
            "plain httpx script": [PY, "-c", PLAIN, url, service.token],
        }
        if http:
            commands["httpie"] = [http, "--ignore-stdin", "--body", "GET", url, f"Authorization:Bearer {service.token}"]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(2):  # warm the page cache and the server
            for argv in commands.values():
                run(argv, env=env)
        for _ in range(args.runs):
            for name, argv in commands.items():
                result = run(argv, env=env)
                assert result.returncode == 0, name
                times[name].append(result.seconds)
        median = {name: statistics.median(values) for name, values in times.items()}
        for name, value in median.items():
            print(f"{name:<20} median {value * 1000:7.1f} ms   min {min(times[name]) * 1000:7.1f} ms")
        ratio = median["wfctl"] / median["plain httpx script"]
        print(f"wfctl / plain httpx script: {ratio:.2f} (target <= 1.5)")
        ok = ratio <= 1.5
        if "httpie" in median:
            vs_httpie = median["wfctl"] / median["httpie"]
            print(f"wfctl / httpie:             {vs_httpie:.2f} (target < 1)")
            ok = ok and vs_httpie < 1
        return 0 if ok else 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
