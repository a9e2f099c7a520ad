"""`wfctl jq` against the jq binary on the same saved 20,000-record file, in the same run (issue 44 §4), with
each of the two builds of libjq a user may have.

    python bench/jq.py [--runs 5] [--checkout]

Target: `wfctl jq` takes at most 1.5x the CPU time of `jq` (the binary on PATH: its version is printed) for
each filter below, over a saved export of 20,000 sites (JSON array, and JSONL), with libjq built with -O2
(what `dev.py` installs where a C compiler is: `dev.jq_wheel`). The `jq` package's wheel from PyPI, whose
libjq is compiled without optimisation, is measured in the same runs and reported, with no target. Both
are the same wfctl (the installed wheel's venv, or with --checkout .venv) with only the jq package swapped:
a venv of its own for each build holds that jq and reads the rest from the measured venv. Each command runs
as a child process, interleaved, the median of `--runs` of each; the CPU time (user + system, from os.wait4)
is compared, since on a shared machine the wall time says more about the neighbours. The outputs are
checked to be the same bytes where jq 1.6 and 1.8 print alike. Exit 1 when the -O2 build misses a target.

Measured 2026-12-07 (`--runs 5`, the installed wheel, load average 3.7 then 3.0, jq 1.6): -O2 1.02x,
1.41x, 1.14x, 0.92x (every target met); PyPI's wheel 1.96x, 2.80x, 2.16x, 1.84x (docs/queries.md, Speed).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dev
from bench._service import installed_bin

RECORDS = 20_000
RATIO = 1.5
CASES = [  # (label, jq arguments, the file)
    ("names of assessed sites, JSON array", ["-r", ".[] | select(.assessmentRequired) | .name"], "sites.json"),
    ("{id, name} a line, JSONL", ["-c", "{id, name}"], "sites.jsonl"),
    ("whole records pretty, JSONL", ["."], "sites.jsonl"),
    ("count by client, slurped JSONL", ["-s", "group_by(.clientId) | map(length) | add"], "sites.jsonl"),
]
BUILDS = ("-O2", "PyPI")  # the target is the -O2 build's


def main() -> int:
    args, bin_dir = installed_bin(__doc__, 5, "runs of each command")
    jq = os.environ.get("JQ", "jq")
    version = subprocess.run([jq, "--version"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    print(f"{RECORDS:,} records; jq binary: {jq} ({version}); wfctl: {bin_dir}; load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)
    ok = True
    with tempfile.TemporaryDirectory(prefix="wfctl-jq-bench-") as tmp:
        folder = Path(tmp)
        _write(folder)
        wfctl = {build: str(_with_jq(bin_dir, wheel, folder / f"venv{build}")) for build, wheel in _wheels(bin_dir, folder)}
        # wfctl's modules compiled once, as an installed wheel's are: a checkout run where
        # PYTHONDONTWRITEBYTECODE is set would otherwise compile every module in every run (0.2-0.3 s of CPU)
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        for program in wfctl.values():
            _timed([program, "jq", "-n", "1"], env)
        for label, jq_args, name in CASES:
            path = str(folder / name)
            theirs: list[tuple[float, float, bytes]] = []
            ours: dict[str, list[tuple[float, float, bytes]]] = {build: [] for build in wfctl}
            for _ in range(args.runs):  # interleaved: every command sees the same machine load
                theirs.append(_timed([jq, *jq_args, path]))
                for build, program in wfctl.items():
                    ours[build].append(_timed([program, "jq", *jq_args, path], env))
            their_cpu = statistics.median(t[1] for t in theirs)
            said = []
            for build, runs in ours.items():
                assert runs[0][2] == theirs[0][2], f"{label}: the outputs of jq and wfctl jq ({build}) differ"
                cpu = statistics.median(o[1] for o in runs)
                wall = statistics.median(o[0] for o in runs) / statistics.median(t[0] for t in theirs)
                said.append(f"{build} {cpu:.2f} s: {cpu / their_cpu:.2f}x CPU, {wall:.2f}x wall")
                if build == BUILDS[0]:
                    ok = ok and cpu / their_cpu <= RATIO
            print(f"{label}: jq {their_cpu:.2f} s CPU; wfctl jq {'; '.join(said)} (target <= {RATIO}, -O2)",
                  flush=True)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          f"{'every target met' if ok else 'a target MISSED'}", flush=True)
    return 0 if ok else 1


def _wheels(bin_dir: Path, folder: Path) -> list[tuple[str, Path]]:
    """The jq package's two wheels for the measured venv's version: built with -O2 (dev.py's), and PyPI's."""
    python = bin_dir / "python"
    version = subprocess.run([str(python), "-c", "from importlib.metadata import version; print(version('jq'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    optimised = dev.jq_wheel(version, python)
    if optimised is None:
        raise SystemExit("no -O2 build of libjq (dev.py said why): nothing to hold to the target")
    subprocess.run([str(python), "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                    "--disable-pip-version-check", "-d", str(folder / "pypi"), f"jq=={version}"], check=True,
                   capture_output=True)
    (pypi,) = (folder / "pypi").glob("jq-*.whl")
    return [("-O2", optimised), ("PyPI", pypi)]


def _with_jq(bin_dir: Path, wheel: Path, venv: Path) -> Path:
    """A venv whose jq package is `wheel`'s and whose every other package is the measured venv's (a .pth
    adds its site-packages after its own); its `wfctl`, the measured one's script run by its python."""
    subprocess.run([str(bin_dir / "python"), "-m", "venv", "--without-pip", str(venv)], check=True)
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    base = subprocess.run([str(bin_dir / "python"), "-c", where], check=True, capture_output=True, text=True)
    own = subprocess.run([str(venv / "bin" / "python"), "-c", where], check=True, capture_output=True, text=True)
    site = Path(own.stdout.strip())
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    (site / "zz_measured.pth").write_text(f"import site; site.addsitedir({base.stdout.strip()!r})\n")
    script = (bin_dir / "wfctl").read_text().split("\n", 1)[1]
    program = venv / "bin" / "wfctl"
    program.write_text(f"#!{venv / 'bin' / 'python'}\n{script}")
    program.chmod(0o755)
    loaded = subprocess.run([str(venv / "bin" / "python"), "-c", "import jq, wfctl; print(jq.__file__, wfctl.__file__)"],
                            check=True, capture_output=True, text=True).stdout.split()
    assert Path(loaded[0]).is_relative_to(site) and not Path(loaded[1]).is_relative_to(venv), loaded
    return program


def _timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (user + system of exactly this child) and its stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        assert os.waitstatus_to_exitcode(status) == 0, (argv, proc.stderr.read() if proc.stderr else b"")
        if proc.stderr:
            proc.stderr.close()
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, out.read()


def _write(folder: Path) -> None:
    """20,000 sites as `sites export -o json` and `-o jsonl` write them (the shape of a full record)."""
    import random

    rng = random.Random(44)
    clients = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(200)]
    records = [{
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "clientId": rng.choice(clients),
        "name": f"Site {i}", "address": f"{i} Dock Road, Salford M5 {i % 9}AB", "phone": "0161 496 0000",
        "email": f"site{i}@example.test", "assessmentRequired": i % 2 == 0,
        "rates": [{"skill": "Forklift Driver", "hourlyRate": 13.25}, {"skill": "Picker", "hourlyRate": 11.5}],
        "departments": [{"name": "Goods In", "contactPerson": "Ann Lee", "email": "ann@example.test"}],
        "bannedWorkers": [f"w-{i % 97}", f"w-{i % 89}"], "billingAddress": "1 Quay St",
        "createdOn": "2026-01-01T00:00:00Z", "modifiedOn": "2026-01-02T00:00:00Z",
    } for i in range(RECORDS)]
    (folder / "sites.json").write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    (folder / "sites.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records),
                                        encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
