"""One memory bound for a whole command, not one per request (issue 45). A hostile server takes a `-j 16`
import or a list to at most 2x the answer bound (64 MiB: `wfctl.api.net.limits.ANSWERS`) above the same command's
working set against a well-behaved server, and a page whose records are more than the command can hold once
decoded stops with one line (exit 1) before anything is printed.

Each command runs as a real process; its peak RSS is the kernel's (VmHWM, written as the process exits).
Before: a `-j 16` import against 60 MiB create answers peaked at 859 MB, and a 56 MiB page of 600,000
records at 557 MB, printed whole.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fixtures.cli import REPO_ROOT
from tests.hostile.test_odd_answers import answer, page

MiB = 1024 * 1024
BOUND = 64 * MiB
CLIENT = {"id": "c-1", "name": "Acme", "branchId": "b-1", "email": "", "phone": "", "createdOn": "2026-01-01T00:00:00Z"}
SITE = {"id": "s-1", "clientId": "c-1", "name": "Depot", "address": "", "phone": "", "email": "",
        "assessmentRequired": False, "createdOn": "2026-01-01T00:00:00Z"}
ROWS = 48


#: wfctl's entry, writing at exit the process's peak RSS (VmHWM: this process's own, where a child's
#: ru_maxrss starts from the high-water mark of the process that forked it, the test's).
PEAK_RECORDER = """
import atexit, os, sys
def record():
    peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    open(os.environ["WFCTL_TEST_PEAK_FILE"], "w").write(peak.split()[1])
atexit.register(record)
from wfctl.cmdline.main import main
sys.exit(main())
"""


def measured(cli: Any, url: str, *args: str) -> tuple[int, str, str, int]:
    """`wfctl ARGS` as a real process: exit code, stdout, stderr, and its peak RSS in bytes."""
    peak_file = Path(cli.tmp_path) / "peak-rss"
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), WFCTL_ACCESS_TOKEN="memory-test-token", WFCTL_BASE_URL=url,
               WFCTL_OUTAGE_SECONDS="5", WFCTL_TEST_PEAK_FILE=str(peak_file))
    proc = subprocess.run([sys.executable, "-c", PEAK_RECORDER, *args], env=env, capture_output=True, text=True,
                          cwd=str(cli.tmp_path), timeout=300)
    return proc.returncode, proc.stdout, proc.stderr, int(peak_file.read_text()) * 1024


@functools.cache
def fat_page() -> bytes:
    """A page of 600,000 small records, about 60 MiB (the issue's was 56 MiB)."""
    rows = [{"id": f"b-{n}", "name": f"N{n}", "address": "", "phone": "", "email": "",
             "createdOn": "2026-01-01T00:00:00Z"} for n in range(600_000)]
    body = json.dumps({"data": rows, "pageNumber": 1, "pageSize": 600_000, "pageCount": 1,
                       "totalRecordCount": 600_000}, separators=(",", ":")).encode()
    return body


def _list(fat: bool) -> Callable[[str, bytes], bytes]:
    return lambda line, _: answer(200, fat_page() if fat else page([]).encode())


def test_a_page_of_600000_records_stops_with_one_line_within_the_bound(cli, server):
    _, _, _, working_set = measured(cli, server(_list(fat=False)).url, "-o", "json", "branches", "list")
    url = server(_list(fat=True)).url
    code, out, err, peak = measured(cli, url, "-o", "json", "branches", "list")
    assert (code, out) == (1, ""), (code, out[:200], err)
    assert err.count("\n") == 1, err
    error = json.loads(err)["error"]
    assert error["title"] == "the service's answer holds more than wfctl can hold at once", error
    assert error["detail"].startswith(f"{len(fat_page()) // MiB} MiB of JSON, about "), error
    assert error["detail"].endswith(" once read: more than the 64 MiB wfctl holds of answers at once"), error
    assert peak - working_set <= 2 * BOUND, f"peak {peak / MiB:.0f} MiB, working set {working_set / MiB:.0f} MiB"


def _sites_service(create_answer: bytes) -> Callable[[str, bytes], bytes]:
    def answers(line: str, _: bytes) -> bytes:
        if line.startswith("GET /api/clients/c-1/sites"):
            return answer(200, page([]))
        if line.startswith("GET /api/clients/c-1"):
            return answer(200, json.dumps(CLIENT))
        if line.startswith("POST /api/clients/c-1/sites"):
            return create_answer
        return answer(404, '{"title": "Not Found"}')

    return answers


def _import(cli: Any, url: str, tmp_path: Path) -> tuple[int, str, str, int]:
    source = tmp_path / "sites.csv"
    source.write_text("name\n" + "".join(f"Depot {n}\n" for n in range(ROWS)), encoding="utf-8")
    return measured(cli, url, "sites", "import", str(source), "--client", "c-1", "-j", "16",
                    "--report", str(tmp_path / "report.csv"))


def test_a_j16_import_against_60_mib_answers_stays_within_the_bound(cli, server, tmp_path):
    small = answer(201, json.dumps(SITE))
    code, _, err, working_set = _import(cli, server(_sites_service(small)).url, tmp_path)
    assert code == 0, err
    fat = answer(201, json.dumps(SITE).encode().ljust(60 * MiB))  # a record padded to 60 MiB: under 64 each
    code, _, err, peak = _import(cli, server(_sites_service(fat)).url, tmp_path)
    assert code == 10, err  # its rows failed, each with one line in the report; nothing else
    assert "Traceback" not in err
    assert peak - working_set <= 2 * BOUND, f"peak {peak / MiB:.0f} MiB, working set {working_set / MiB:.0f} MiB"
