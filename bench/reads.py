"""Reads that scale with the data (issue 17): `python bench/reads.py [--runs 3] [--checkout]`.

Measured as bench/import.py measures: the wheel built from this working tree and installed in a venv of
its own (bench/import.py `installed_wheel`; `--checkout` runs this checkout's .venv instead), each
command that venv's `wfctl` run directly by `hyperfine -N`, wall clock of the whole command, start-up
included; the sandbox is `wfctl sandbox serve --latency 50` of the same installation. Every figure is a
ratio against a baseline measured in the same run, on the same sandbox:

- import over many clients: 150 site rows over 150 clients (a `clientId` column, one row each) at
  `--concurrency 16`, against the same 150 rows into one client: target <= 2.5x;
- plan into a full client: a 1-row `--dry-run` into a client holding 3,000 sites, against the same row
  into an empty client: target <= 2.5x;
- `--all`: `sites list --client C --all -o jsonl` of 3,000 sites, against one page (`sites list --client
  C -o jsonl`): target <= 6x;
- export: `sites export --client C` of 3,000 sites (default --concurrency, 16), records a second against
  Little's law for 16 in flight at 50 ms (320/s): target >= 0.5.

Prints one PASS/MISS line per figure and a block for README "Performance"; exits 1 when a target is missed.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._service import Service, installed_bin

LATENCY_MS = 50
SITES = 3_000
SPREAD = 150

bench_import = importlib.import_module("bench.import")
figure, hyperfine = bench_import.figure, bench_import.hyperfine


def main() -> int:
    args, bin_dir = installed_bin(__doc__, 3, "hyperfine runs of the repeatable commands")
    wfctl = str(bin_dir / "wfctl")
    labels = {"full": SITES, "empty": 0, "one": 0, **{f"c{i:03d}": 0 for i in range(SPREAD)}}
    print(f"sandbox --latency {LATENCY_MS}: a client with {SITES:,} sites and {SPREAD + 2} empty ones ...", flush=True)
    service = Service(labels, python=str(bin_dir / "python"), latency_ms=LATENCY_MS)
    try:
        env = service.env()
        ids = service.client_ids
        with tempfile.TemporaryDirectory(prefix="wfctl-reads-") as tmp:
            work = Path(tmp)
            # -- import over 150 clients vs into one ------------------------------------------------------
            spread = work / "spread.csv"
            spread.write_text("clientId,name\n" + "".join(f"{ids[f'c{i:03d}']},Spread {i}\n" for i in range(SPREAD)))
            one = work / "one.csv"
            one.write_text("name\n" + "".join(f"Spread {i}\n" for i in range(SPREAD)))
            times = hyperfine({"one client": [wfctl, "sites", "import", str(one), "--client", ids["one"],
                                              "--concurrency", "16"]}, env, runs=1)
            times |= hyperfine({"150 clients": [wfctl, "sites", "import", str(spread), "--concurrency", "16"]},
                               env, runs=1)
            ratio = times["150 clients"] / times["one client"]
            figure(f"import of {SPREAD} rows over {SPREAD} clients (--concurrency 16)",
                   f"{times['150 clients']:.2f} s", f"{times['one client']:.2f} s into one client",
                   f"{ratio:.2f}x", "<= 2.5x", ratio <= 2.5)
            # -- a 1-row plan into a client with 3,000 sites vs an empty one -------------------------------
            row = work / "row.csv"
            row.write_text("name\nA new site\n")
            times = hyperfine({name: [wfctl, "sites", "import", str(row), "--client", ids[label], "--dry-run"]
                               for name, label in (("empty", "empty"), ("full", "full"))}, env, runs=args.runs,
                              warmup=1)
            ratio = times["full"] / times["empty"]
            figure(f"1-row plan into a client with {SITES:,} sites", f"{times['full']:.2f} s",
                   f"{times['empty']:.2f} s into an empty client", f"{ratio:.2f}x", "<= 2.5x", ratio <= 2.5)
            # -- --all of 3,000 sites vs one page ----------------------------------------------------------
            times = hyperfine({"page": [wfctl, "sites", "list", "--client", ids["full"], "-o", "jsonl"],
                               "all": [wfctl, "sites", "list", "--client", ids["full"], "--all", "-o", "jsonl"]},
                              env, runs=args.runs, warmup=1)
            ratio = times["all"] / times["page"]
            figure(f"sites list --all of {SITES:,} sites", f"{times['all']:.2f} s", f"{times['page']:.2f} s one page",
                   f"{ratio:.2f}x", "<= 6x", ratio <= 6)
            # -- export of 3,000 sites vs Little's law ------------------------------------------------------
            times = hyperfine({"export": [wfctl, "sites", "export", "--client", ids["full"], "--file",
                                          str(work / "export.csv")]}, env, runs=max(1, args.runs - 1))
            rate = SITES / times["export"]
            little = 16 / (LATENCY_MS / 1000)
            exported = (work / "export.csv").read_text(encoding="utf-8-sig").count("\n") - 1
            if exported != SITES:
                raise SystemExit(f"export wrote {exported} sites of {SITES}")
            figure(f"sites export of {SITES:,} sites (default --concurrency)", f"{rate:.0f} sites/s "
                   f"({times['export']:.2f} s)", f"{little:.0f}/s (16 / 0.05 s)", f"{rate / little:.2f}",
                   ">= 0.5", rate / little >= 0.5)
    finally:
        service.stop()
    return bench_import.print_rows()


if __name__ == "__main__":
    sys.exit(main())
