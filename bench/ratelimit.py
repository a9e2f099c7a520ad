"""Issue 45: a `-j 16` import against `wfctl sandbox serve --rate-limit N` fails no row and goes at the rate
the limit allows. Runs RUNS imports of ROWS sites each (a new client each) and prints, per run, the rows
failed and the rows a second as a share of N (the run's few reads count toward N too).

    .venv/bin/python bench/ratelimit.py [--runs 5] [--rows 600] [--limit 20]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=600)
    parser.add_argument("--limit", type=int, default=20)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wfctl-ratelimit-") as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_") and k != "DBUS_SESSION_BUS_ADDRESS"}
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), WFCTL_CONFIG=str(home / "config.toml"),
                   XDG_STATE_HOME=str(home / "state"), XDG_DATA_HOME=str(home / "data"), PYTHONPATH=str(ROOT))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        wfctl = [sys.executable, "-m", "wfctl"]
        server = subprocess.Popen([*wfctl, "sandbox", "serve", "--port", str(port), "--db", str(home / "sb.db"),
                                   "--rate-limit", str(options.limit)], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)

            def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
                return subprocess.run([*wfctl, *args], env=env, input=stdin, capture_output=True, text=True,
                                      check=False)

            run("login", "--base-url", url, "--username", "admin@northwind.test", "--password-stdin",
                "--credential-store", "file", stdin="sandbox-admin").check_returncode()
            branch = json.loads(run("branches", "list", "-o", "json").stdout)[0]["id"]
            for number in range(options.runs):
                created = run("clients", "create", "--branch", branch, "--name", f"Paced {number} {time.time()}",
                              "-o", "json")
                client = json.loads(created.stdout)["id"]
                path = home / f"rows-{number}.csv"
                path.write_text("name\n" + "".join(f"Paced {i:05d}\n" for i in range(options.rows)))
                time.sleep(1.1)  # a new second: the run starts with the limit's whole budget
                started = time.monotonic()
                result = run("sites", "import", str(path), "--client", client, "-j", "16", "-o", "json")
                took = time.monotonic() - started
                summary = json.loads(result.stdout) if result.stdout else {}
                print(f"run {number + 1}: exit {result.returncode}, failed {summary.get('failed')}, "
                      f"created {summary.get('created')}, {options.rows / took:.1f} rows/s "
                      f"= {options.rows / took / options.limit:.2f} of the limit", flush=True)
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
