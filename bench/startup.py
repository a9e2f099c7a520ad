#!/usr/bin/env python3
"""Start-up benchmark: wfctl's help, Tab presses and --version against `gh --help` and `python -c pass`.

    python3 bench/startup.py               # 20 runs a command; prints every target with PASS/MISS
    python3 bench/startup.py --runs 40 --json

What is measured (issue 11): the INSTALLED WHEEL, not the editable checkout. A wheel is built from
this checkout and installed (with its bytecode) into a throwaway virtual environment whose
dependencies are those of .venv (a .pth line, so nothing is downloaded). Each command is executed
directly by `hyperfine -N` (no shell, no Python wrapper: timing through subprocess.run adds ~20 ms to
every command, which hides most of a ratio), and the baselines run in the same hyperfine run as
what is compared with them. The figure is the median. The help and completion index is built
before measuring (a first run after an install builds it, see wfctl/cmdline/startup.py).

Targets:
- `wfctl --help`, every `wfctl <group> --help` and every `wfctl <group> <verb> --help`: at most
  100 ms and at most 1.6x `gh --help`;
- one Tab press in bash, zsh and fish completing a command, an option, an option value and a
  resource id from the local cache: at most 100 ms and at most 1.6x `gh --help` (one hyperfine run
  per Tab press, as the shell's variables are the environment; gh runs in each);
- `wfctl --version`: at most 2x `python -c pass`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MS = 100.0
GH_RATIO = 1.6
VERSION_RATIO = 2.0
TAB_PRESSES = {  # what is completed: the words before the Tab, the word being typed
    "a command": (["sites"], "li"),
    "an option": (["sites", "list"], "--pa"),
    "an option value": (["-o"], ""),
    "a cached site id": (["sites", "get"], "s-"),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs before each command's (default 3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    hyperfine = shutil.which("hyperfine")
    gh = shutil.which("gh")
    if not hyperfine or not gh:
        sys.stderr.write("bench/startup.py needs hyperfine and gh (apt-get install hyperfine gh)\n")
        return 2

    with tempfile.TemporaryDirectory(prefix="wfctl-bench-") as tmp:
        work = Path(tmp)
        python, wfctl = install_wheel(work)
        env = bench_env(work)
        prepare(wfctl, env)
        results = measure_help(hyperfine, gh, python, wfctl, env, args.runs, args.warmup)
        results += measure_tab_presses(hyperfine, gh, wfctl, env, args.runs, args.warmup)

    if args.json:
        print(json.dumps({"runs": args.runs, "results": results}, indent=2))
    else:
        print(f"start-up, installed wheel, hyperfine -N, median of {args.runs} runs")
        print(f"{'command':<58} {'median':>9} {'baseline':>10} {'ratio':>6}  target")
        for r in results:
            verdict = ("PASS" if r["ok"] else "MISS") if r["target"] else ""
            baseline = f"{r['baseline_ms']:.1f} ms" if r["baseline_ms"] else ""
            ratio = f"{r['ratio']:.2f}x" if r["ratio"] else ""
            print(f"{r['command']:<58} {r['median_ms']:>6.1f} ms {baseline:>10} {ratio:>6}  {r['target']} {verdict}")
    return 0 if all(r["ok"] for r in results) else 1


def install_wheel(work: Path) -> tuple[Path, Path]:
    """Build the wheel and install it into a fresh venv; returns (python, wfctl) of that venv."""
    dist = work / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(ROOT)])
    wheel = next(dist.glob("wfctl-*.whl"))
    venv = work / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
    deps = run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
    # the dependencies of the environment running this script; its own wfctl (editable) is not seen:
    # a path added by a .pth line is not a site directory, so its .pth files are not run
    Path(site, "_bench_deps.pth").write_text(deps + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
         str(wheel)])
    wfctl = venv / "bin" / "wfctl"
    where = run([str(python), "-c", "import wfctl; print(wfctl.__file__)"]).strip()
    if not where.startswith(str(venv)):
        raise SystemExit(f"the bench venv imports wfctl from {where}, not from the wheel")
    return python, wfctl


def bench_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WFCTL_", "_WFCTL", "COMP_", "_TYPER"))}
    env.update({"HOME": str(work), "XDG_CACHE_HOME": str(work / "cache"), "XDG_CONFIG_HOME": str(work / "config"),
                "COLUMNS": "100"})
    return env


def prepare(wfctl: Path, env: dict[str, str]) -> None:
    """Build the index (the first help after an install does) and cache some site ids."""
    run([str(wfctl), "--help"], env=env)
    remember_ids(wfctl, env)


def remember_ids(wfctl: Path, env: dict[str, str]) -> None:
    """Cache 200 site ids, fresh: the cache answers for `completion_cache.TTL` (120 s) only, and on a slow
    machine the help rows alone take longer, so every Tab press is measured on a cache written just before."""
    code = ("from wfctl.cmdline import completion_cache as c\n"
            "c.remember(c.cache_file(None, None), 'site', [(f's-{n:04d}', f'Site {n}') for n in range(200)])\n")
    run([str(wfctl.parent / "python"), "-c", code], env=env)


def measure_help(hyperfine: str, gh: str, python: Path, wfctl: Path, env: dict[str, str],
                 runs: int, warmup: int = 3) -> list[dict]:
    commands = {"gh --help": [gh, "--help"], "python -c pass": [str(python), "-c", "pass"],
                "wfctl --version": [str(wfctl), "--version"], "wfctl --help": [str(wfctl), "--help"]}
    for path in command_paths(python, env):
        commands["wfctl " + " ".join(path) + " --help"] = [str(wfctl), *path, "--help"]
    medians = hyperfine_medians(hyperfine, commands, env, runs, warmup)
    results = []
    for name, ms in medians.items():
        if name == "wfctl --version":
            results.append(result(name, ms, medians["python -c pass"], VERSION_RATIO, None,
                                  f"<= {VERSION_RATIO:g}x python -c pass"))
        elif name.startswith("wfctl"):
            results.append(result(name, ms, medians["gh --help"], GH_RATIO, LIMIT_MS,
                                  f"<= {LIMIT_MS:g} ms and <= {GH_RATIO:g}x gh --help"))
        else:
            results.append(result(name, ms, None, None, None, ""))
    return results


def measure_tab_presses(hyperfine: str, gh: str, wfctl: Path, env: dict[str, str], runs: int,
                        warmup: int = 3) -> list[dict]:
    results = []
    for shell in ("bash", "zsh", "fish"):
        for what, (words, incomplete) in TAB_PRESSES.items():
            name = f"Tab ({shell}): {what}: wfctl {' '.join(words)} {incomplete}"
            remember_ids(wfctl, env)
            medians = hyperfine_medians(hyperfine, {"gh --help": [gh, "--help"], name: [str(wfctl)]},
                                        {**env, **tab_env(shell, words, incomplete)}, runs, warmup)
            results.append(result(name, medians[name], medians["gh --help"], GH_RATIO, LIMIT_MS,
                                  f"<= {LIMIT_MS:g} ms and <= {GH_RATIO:g}x gh --help"))
    return results


def tab_env(shell: str, words: list[str], incomplete: str) -> dict[str, str]:
    if shell == "bash":
        return {"_WFCTL_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(["wfctl", *words, incomplete]),
                "COMP_CWORD": str(len(words) + 1)}
    env = {"_WFCTL_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": " ".join(["wfctl", *words, incomplete])}
    if shell == "fish":
        env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    return env


def command_paths(python: Path, env: dict[str, str]) -> list[list[str]]:
    """Every group and every command below the root (hidden ones left out), read from the click tree."""
    code = ("import json, typer.main, wfctl.cmdline.app\n"
            "def walk(path, command):\n"
            "    for name, sub in getattr(command, 'commands', {}).items():\n"
            "        if not sub.hidden:\n"
            "            yield [*path, name]\n"
            "            yield from walk([*path, name], sub)\n"
            "print(json.dumps(list(walk([], typer.main.get_command(wfctl.cmdline.app.app)))))\n")
    return json.loads(run([str(python), "-c", code], env=env))


def hyperfine_medians(hyperfine: str, commands: dict[str, list[str]], env: dict[str, str],
                      runs: int, warmup: int = 3) -> dict[str, float]:
    """Median milliseconds of each command, all in one `hyperfine -N` run."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        argv = [hyperfine, "-N", "--warmup", str(warmup), "--runs", str(runs), "--style", "none",
                "--export-json", export.name]
        for name, command in commands.items():
            argv += ["--command-name", name, " ".join(_quote(word) for word in command)]
        run(argv, env=env)
        data = json.loads(Path(export.name).read_text())
    return {entry["command"]: entry["median"] * 1000 for entry in data["results"]}


def result(name: str, ms: float, baseline: float | None, max_ratio: float | None, limit: float | None,
           target: str) -> dict:
    ratio = ms / baseline if baseline else None
    ok = (ratio is None or max_ratio is None or ratio <= max_ratio) and (limit is None or ms <= limit)
    return {"command": name, "median_ms": round(ms, 1), "baseline_ms": round(baseline, 1) if baseline else None,
            "ratio": round(ratio, 2) if ratio else None, "target": target, "ok": ok}


def run(argv: list[str], env: dict[str, str] | None = None) -> str:
    # never from the checkout: `python -c` would import wfctl from the current directory
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])}...: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return proc.stdout


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


if __name__ == "__main__":
    sys.exit(main())
