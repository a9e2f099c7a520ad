#!/usr/bin/env python3
"""Developer tasks that need nothing but python3.

    python3 dev.py tour   # start the sandbox, log in, show real data, import a CSV
    python3 dev.py test   # lint, type-check and run the whole test suite
    python3 dev.py test tests/bulk -x   # lint, type-check, then pytest with these arguments

Both create ./.venv on first use and install wfctl into it (editable). The whole suite runs in two
passes: the tests not marked `serial` on two workers a core (pytest-xdist; they mostly wait on subprocesses,
terminals and servers; WFCTL_TEST_WORKERS=N sets the number), then the timing-sensitive `serial` ones
alone (tests/conftest.py says which and why). Given arguments, pytest runs once with them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def ensure_venv(extras: str) -> None:
    marker = VENV / f".installed-{extras.replace(',', '-')}"
    stamp = str((ROOT / "pyproject.toml").stat().st_mtime)
    if marker.exists() and marker.read_text() == stamp:
        return
    if not (BIN / "python").exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print(f"installing wfctl[{extras}] into .venv (first run only) ...", file=sys.stderr)
    subprocess.run([str(BIN / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "-e", f".[{extras}]"], cwd=ROOT, check=True)
    optimised_jq()
    marker.write_text(stamp)


def optimised_jq() -> None:
    """The `jq` package's libjq built with -O2, in place of PyPI's wheel (issue 44): the package's setup.py
    configures libjq with `CFLAGS=-fPIC -pthread`, which drops autoconf's default -O2, so its wheels run
    jq's C unoptimised (`wfctl jq` 1.5-2x slower). With no C compiler, or when the build fails, PyPI's
    wheel stays and one line says so."""
    version = subprocess.run([str(BIN / "python"), "-c", "from importlib.metadata import version; "
                              "print(version('jq'))"], capture_output=True, text=True).stdout.strip()
    wheel = jq_wheel(version, BIN / "python") if version else None
    if wheel is not None:
        subprocess.run([str(BIN / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--no-deps", "--force-reinstall", str(wheel)], cwd=ROOT, check=True)


def jq_wheel(version: str, python: Path) -> Path | None:
    """The -O2 wheel of the jq package `version` for `python` (this interpreter's version and platform).
    configure keeps CPPFLAGS from the environment and every compile line of libjq uses it. Built once a
    machine (about a minute) into a folder of its own, keyed by the version and the interpreter: pip's own
    wheel cache does not know which flags built a wheel. None, said in one line, when it cannot be built."""
    import shutil
    import sysconfig

    folder = _cache() / f"jq-{version}-O2-{sys.implementation.cache_tag}-{sysconfig.get_platform()}"
    wheels = sorted(folder.glob(f"jq-{version}-*.whl"))
    if wheels:
        return wheels[0]
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if os.name == "nt" or not compiler:
        print("dev.py: no C compiler: the jq package's wheel from PyPI stays (libjq unoptimised, "
              "`wfctl jq` 1.5-2x slower)", file=sys.stderr)
        return None
    print(f"dev.py: building libjq with -O2 (jq {version}, once a machine: about a minute) ...", file=sys.stderr)
    env = {**os.environ, "CPPFLAGS": f"{os.environ.get('CPPFLAGS', '')} -O2".strip()}
    scratch = folder / "build"
    build = subprocess.run([str(python), "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
                            "--no-binary", "jq", "--no-cache-dir", "-w", str(scratch), f"jq=={version}"],
                           env=env, capture_output=True, text=True)
    built = sorted(scratch.glob(f"jq-{version}-*.whl"))
    if build.returncode != 0 or not built:
        last = (build.stderr.strip().splitlines() or ["no wheel"])[-1]
        print(f"dev.py: the -O2 build of libjq failed ({last}): the jq package's wheel from PyPI stays "
              "(`wfctl jq` 1.5-2x slower)", file=sys.stderr)
        return None
    wheel = folder / built[0].name
    built[0].replace(wheel)  # whole, or not there: a build cut short is never taken for a good one
    shutil.rmtree(scratch, ignore_errors=True)
    return wheel


def _cache() -> Path:
    """dev.py's cache folder (the user's, as pip's: a fresh clone reuses what another built)."""
    if os.name == "nt":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "wfctl-dev" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wfctl-dev"


def run(*cmd: str) -> None:
    subprocess.run(cmd, cwd=ROOT, check=True)


def pytest(*args: str, env: dict[str, str] | None = None) -> int:
    # The suite starts thousands of Python processes (wfctl in subprocesses and terminals, pytest workers):
    # with PYTHONDONTWRITEBYTECODE set (as in some CI images and sandboxes), each would compile wfctl's
    # modules again and each pytest process rewrite the asserts of ~500 modules again (.ci/run unsets it too).
    full = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run([str(BIN / "python"), "-m", "pytest", *args], cwd=ROOT, env={**full, **(env or {})}).returncode


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def test(args: list[str]) -> int:
    # A job started in the background by a non-interactive shell (`nohup ... &` in a CI script) inherits
    # Ctrl-C ignored, and an ignored signal stays ignored in every program it starts: the tests that press
    # Ctrl-C in wfctl, or stop a sandbox's workers with it, would see nothing happen. Restored for the suite
    # (a handler, unlike "ignored", is reset to the default in each program started).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    ensure_venv("dev")
    run(str(BIN / "ruff"), "check", "wfctl", "tests", "bench", "dev.py")
    run(str(BIN / "mypy"))
    run(str(BIN / "lint-imports"))  # the layers in .importlinter (docs/architecture.md)
    if args:
        return pytest(*args)
    workers = os.environ.get("WFCTL_TEST_WORKERS") or str(2 * cores())
    # --durations: where the time goes, in every CI log (issue 22 §7: the suite within 7 minutes)
    # The parallel pass's collection names the files that hold `serial` tests (tests/conftest.py), so the
    # serial pass collects those files only, not the whole suite again (seconds of every test module's import).
    named = ROOT / ".pytest_cache" / "serial-files"
    named.unlink(missing_ok=True)
    parallel = pytest("-n", workers, "--dist", "loadfile", "-m", "not serial", "--durations=15",
                      env={"WFCTL_SERIAL_FILES": str(named)})
    print("dev.py: the timing-sensitive tests (marked serial), one at a time", file=sys.stderr, flush=True)
    files = named.read_text(encoding="utf-8").split() if named.exists() else []  # none named: collect all
    serial = pytest("-m", "serial", "--durations=5", *files)
    return parallel or serial


def tour(args: list[str]) -> int:
    ensure_venv("sandbox")
    return subprocess.run([str(BIN / "python"), str(ROOT / "examples" / "tour.py"), *args], cwd=ROOT).returncode


def main() -> int:
    tasks = {"test": test, "tour": tour}
    if len(sys.argv) < 2 or sys.argv[1] not in tasks:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        return tasks[sys.argv[1]](sys.argv[2:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
