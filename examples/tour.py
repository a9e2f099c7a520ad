#!/usr/bin/env python3
"""A guided tour of wfctl against a local sandbox: start it, log in, show real data, import a CSV.

Run it through `python3 dev.py tour` (which installs wfctl into ./.venv first). Everything happens
in a throw-away config directory; nothing touches your own wfctl config or keyring.

    python3 examples/tour.py [--port N] [--keep]

--port: the sandbox's port (default: a free one). The throw-away folder (config, a token file, the
sandbox's database) is removed when the tour ends; --keep leaves the sandbox running, and the folder
with it, and says how to stop both.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
WFCTL = [sys.executable, "-m", "wfctl"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(url: str, proc: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"tour: the sandbox exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/openapi.json", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("tour: the sandbox did not start within 30 s")


class Tour:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def step(self, title: str) -> None:
        if sys.stdout.isatty():  # within the terminal's width, each line a heading
            import textwrap

            lines = textwrap.wrap(title, width=max(shutil.get_terminal_size().columns - 2, 40))
            sys.stdout.write("\n" + "".join(f"\033[1m# {line}\033[0m\n" for line in lines))
        else:
            sys.stdout.write(f"\n# {title}\n")

    def wfctl(self, *args: str, input: str | None = None, show: bool = True) -> str:
        """Run wfctl as a user would; show the command line and its output; stop the tour on failure.

        On a terminal, what is shown is what wfctl shows on this terminal (tables fitted to its width,
        the paging footer), not the plain format of a pipe, whose long lines the terminal would wrap."""
        env = self.env
        terminal = show and input is None and sys.stdout.isatty() and sys.stderr.isatty()
        if show:
            sys.stdout.write("$ wfctl " + " ".join(shlex.quote(a) for a in args) + "\n")
            sys.stdout.flush()
        if terminal:  # stderr (progress, notes) straight to the terminal, as it comes
            env = dict(env, WFCTL_FORCE_TTY="1", COLUMNS=str(shutil.get_terminal_size().columns))
        done = subprocess.run([*WFCTL, *args], input=input, env=env, text=True, stdout=subprocess.PIPE,
                              stderr=None if terminal else subprocess.PIPE)
        if show:
            sys.stdout.write(done.stdout)
            sys.stderr.write(done.stderr or "")
        if done.returncode != 0:
            if not show:
                sys.stderr.write(done.stderr or "")
            raise SystemExit(f"tour: `wfctl {' '.join(args)}` exited with {done.returncode}")
        return done.stdout


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tour", description="A guided tour of wfctl against a local sandbox.")
    parser.add_argument("--port", type=int, default=0, help="port of the sandbox (default: a free one)")
    parser.add_argument("--keep", action="store_true",
                        help="leave the sandbox running at the end (and its folder), and say how to stop it")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    keep = args.keep
    work = Path(tempfile.mkdtemp(prefix="wfctl-tour-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFCTL_")}
    env.update({
        "WFCTL_CONFIG": str(work / "config.toml"),
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_CACHE_HOME": str(work / "cache"),
        "XDG_STATE_HOME": str(work / "state"),  # import journals (runs you can list and undo)
        "WFCTL_PROFILE": "tour",
    })
    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(work / "sandbox.log", "wb")  # noqa: SIM115 - lives as long as the server
    server = subprocess.Popen([*WFCTL, "sandbox", "serve", "--port", str(port), "--db", str(work / "sandbox.db")],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    kept = False
    try:
        wait_until_up(url, server)
        t = Tour(env)
        t.step(f"A sandbox service is running at {url} (seeded with two agencies)")
        t.step("Log in (the password comes from stdin, never from argv; tokens go to a 0600 file here)")
        t.wfctl("login", "--base-url", url, "--username", "admin@northwind.test", "--password-stdin",
                "--credential-store", "file", input="sandbox-admin\n")
        t.wfctl("auth", "status")
        t.step("Your agency and its branches")
        t.wfctl("agency", "show")
        t.wfctl("branches", "list")
        t.step("Clients, and the sites of one of them")
        t.wfctl("clients", "list", "--page-size", "5")
        clients = json.loads(t.wfctl("clients", "list", "--all", "-o", "json", show=False))
        first = clients[0]
        t.wfctl("sites", "list", "--client", first["id"], "--page-size", "5")
        t.step("Create a client and a site with its hourly rates")
        created = json.loads(t.wfctl("clients", "create", "--name", "Harbour Logistics",
                                     "--branch", first["branchId"], "--email", "ops@harbour.example",
                                     "-o", "json"))
        site = json.loads(t.wfctl("sites", "create", "--client", created["id"], "--name", "Salford Docks",
                                  "--rate", "Forklift Driver=13.25", "--rate", "Picker Packer=11.60",
                                  "--department", "Goods In:Amelia Hart:amelia@harbour.example", "-o", "json"))
        t.wfctl("sites", "get", site["id"])
        t.step("Import sites from a CSV exported by Excel (the `client` column names the client)")
        t.wfctl("sites", "import", str(HERE / "sites.csv"))
        t.wfctl("sites", "list", "--client", first["id"], "--page-size", "5", "--page", "2")
        t.step("Review a change before it happens, and take it back after")
        export = work / "pennine.csv"
        t.wfctl("sites", "export", "--client", first["id"], "--file", str(export))
        text = export.read_text(encoding="utf-8-sig")
        moved = text.replace("12 Blossom Street", "14 Blossom Street", 1)
        export.write_text(moved, encoding="utf-8")
        sys.stdout.write("(one address changed in the exported file)\n")
        t.wfctl("sites", "import", str(export), "--on-existing", "update", "--dry-run")
        t.wfctl("sites", "import", str(export), "--on-existing", "update")
        runs = json.loads(t.wfctl("imports", "list", "-o", "json", show=False))
        t.wfctl("imports", "list")
        t.wfctl("imports", "undo", runs[0]["run"], "--yes")
        t.step("JSON for pipelines")
        t.wfctl("sites", "list", "--client", first["id"], "--limit", "2", "-o", "json")
        if keep:
            kept = True
            sys.stdout.write(
                f"\nThe sandbox keeps running at {url} (pid {server.pid}), with the tour's login in {work}; try:\n"
                f"  WFCTL_CONFIG={env['WFCTL_CONFIG']} WFCTL_PROFILE=tour .venv/bin/wfctl sites --help\n"
                f"Stop it, and remove the folder (it holds a token file), with:\n"
                f"  kill {server.pid} && rm -rf {shlex.quote(str(work))}\n")
        else:
            sys.stdout.write("\nThe sandbox is stopped and the tour's folder (config, token file, data) removed.\n")
        return 0
    finally:
        if not kept:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
