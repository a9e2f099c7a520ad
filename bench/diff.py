"""Drift check benchmark (issue 32 §4): `python bench/diff.py [--runs 3] [--checkout]`.

Measured as bench/import.py measures: the wheel built from this working tree and installed in a venv of
its own (bench/import.py `installed_wheel`; `--checkout` runs this checkout's .venv instead), each command
that venv's `wfctl` run directly by `hyperfine -N`, wall clock of the whole command, start-up included; the
sandbox is `wfctl sandbox serve --latency 50` of the same installation. The figure is a ratio against a
baseline measured in the same run, on the same sandbox:

- `sites diff FILE --client C` of 3,000 sites (the file their own export: nothing differs, exit 0; each
  site's full record is read, as export reads it), against `sites export --client C --file F` of the same
  sites: target <= 1.2x.

Prints one PASS/MISS line and a block for README "Performance"; exits 1 when the target is missed.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service, installed_bin

LATENCY_MS = 50
SITES = 3_000

bench_import = importlib.import_module("bench.import")
figure, hyperfine = bench_import.figure, bench_import.hyperfine


def main() -> int:
    args, bin_dir = installed_bin(__doc__, 3, "hyperfine runs of each command")
    wfctl = str(bin_dir / "wfctl")
    print(f"sandbox --latency {LATENCY_MS}: a client with {SITES:,} sites ...", flush=True)
    service = Service({"full": SITES}, python=str(bin_dir / "python"), latency_ms=LATENCY_MS)
    try:
        env = service.env()
        client = service.client_ids["full"]
        with tempfile.TemporaryDirectory(prefix="wfctl-diff-") as tmp:
            work = Path(tmp)
            exported, again = work / "sites.csv", work / "again.csv"
            subprocess.run([wfctl, "sites", "export", "--client", client, "--file", str(exported)], env=env,
                           check=True, stdout=subprocess.DEVNULL)
            checked = subprocess.run([wfctl, "sites", "diff", str(exported), "--client", client, "-o", "json"],
                                     env=env, capture_output=True, text=True, check=False)
            if checked.returncode != 0 or json.loads(checked.stdout)["summary"]["same"] != SITES:
                raise SystemExit(f"the diff of the export is not {SITES} sites the same: {checked.returncode} "
                                 f"{checked.stdout[-300:]} {checked.stderr[-300:]}")
            times = hyperfine({"export": [wfctl, "sites", "export", "--client", client, "--file", str(again)],
                               "diff": [wfctl, "sites", "diff", str(exported), "--client", client]},
                              env, runs=args.runs, warmup=1)
    finally:
        service.stop()
    ratio = times["diff"] / times["export"]
    figure(f"sites diff of {SITES:,} sites (`bench/diff.py`)", f"{times['diff']:.2f} s",
           f"{times['export']:.2f} s sites export of the same sites", f"{ratio:.2f}x", "<= 1.2x", ratio <= 1.2)
    return bench_import.print_rows()


if __name__ == "__main__":
    sys.exit(main())
