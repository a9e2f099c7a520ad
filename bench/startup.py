#!/usr/bin/env python3
"""Start-up benchmark: wfctl against `python -c pass`, `gh --version` and httpie, in one run.

    python3 bench/startup.py            # 30 rounds, prints a table and exits 1 if a target is missed
    python3 bench/startup.py --runs 60 --json

Every command runs in every round, in turn (so a busy machine slows them all alike), and the
median of the rounds is compared. Targets (issue 6):

- `wfctl --version` at most 2x `python -c pass` of the same virtual environment, and faster
  than `gh --version`;
- `wfctl --help` and every `wfctl <group> --help` under 8x `python -c pass`.

httpie (`http --version`) is measured for comparison only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION_RATIO = 2.0
HELP_RATIO = 8.0


def venv_bin() -> Path:
    """The bin directory of the virtual environment wfctl is installed in."""
    local = ROOT / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    if (local / "wfctl").exists():
        return local
    return Path(sys.executable).parent


def groups(bin_dir: Path) -> list[str]:
    """Names of wfctl's command groups, read from the click tree."""
    code = ("import typer.main, wfctl.cli\n"
            "root = typer.main.get_command(wfctl.cli.app)\n"
            "print('\\n'.join(n for n, c in root.commands.items() if hasattr(c, 'commands')))")
    out = subprocess.run([str(bin_dir / "python"), "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def time_once(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def measure(commands: dict[str, list[str]], runs: int, warmup: int = 3) -> dict[str, float]:
    """Median seconds per command, the commands interleaved round by round."""
    for _ in range(warmup):
        for argv in commands.values():
            time_once(argv)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(time_once(argv))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="rounds (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    bin_dir = venv_bin()
    wfctl = str(bin_dir / "wfctl")
    commands: dict[str, list[str]] = {
        "python -c pass": [str(bin_dir / "python"), "-c", "pass"],
        "wfctl --version": [wfctl, "--version"],
        "wfctl --help": [wfctl, "--help"],
    }
    for group in groups(bin_dir):
        commands[f"wfctl {group} --help"] = [wfctl, group, "--help"]
    gh = shutil.which("gh")
    if gh:
        commands["gh --version"] = [gh, "--version"]
    http = bin_dir / "http" if (bin_dir / "http").exists() else shutil.which("http")
    if http:
        commands["http --version (httpie)"] = [str(http), "--version"]

    medians = measure(commands, args.runs)
    base = medians["python -c pass"]
    results = []
    for name, seconds in medians.items():
        ratio = seconds / base
        target, ok = "", True
        if name == "wfctl --version":
            target = f"<= {VERSION_RATIO:g}x python"
            ok = ratio <= VERSION_RATIO
            if "gh --version" in medians:
                target += ", < gh"
                ok = ok and seconds < medians["gh --version"]
        elif name.startswith("wfctl") and name.endswith("--help"):
            target = f"< {HELP_RATIO:g}x python"
            ok = ratio < HELP_RATIO
        results.append({"command": name, "median_ms": round(seconds * 1000, 1), "ratio": round(ratio, 2),
                        "target": target, "ok": ok})

    if args.json:
        print(json.dumps({"runs": args.runs, "results": results}, indent=2))
    else:
        print(f"start-up, median of {args.runs} interleaved runs ({bin_dir})")
        print(f"{'command':<32} {'median':>9} {'x python':>9}  target")
        for r in results:
            verdict = ("ok" if r["ok"] else "MISSED") if r["target"] else ""
            print(f"{r['command']:<32} {r['median_ms']:>6.1f} ms {r['ratio']:>8.2f}x  {r['target']} {verdict}")
        if not gh:
            print("note: gh is not installed (apt-get install gh): the `faster than gh` target was not checked")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
