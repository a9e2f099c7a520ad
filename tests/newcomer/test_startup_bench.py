"""bench/startup.py holds its targets (a short run; the figures in docs/newcomer.md come from a long one)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import require_component
from tests.newcomer.helpers import REPO_ROOT


@pytest.mark.slow
@pytest.mark.real_component
def test_startup_targets_hold() -> None:
    require_component("gh")
    require_component("hyperfine")
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "startup.py"), "--runs", "15", "--json"],
                          capture_output=True, text=True, timeout=900)
    assert proc.stdout, proc.stderr
    results = json.loads(proc.stdout)["results"]
    names = {r["command"] for r in results}
    assert {"wfctl --version", "wfctl --help", "gh --help", "python -c pass", "wfctl sites --help",
            "wfctl sites import --help"} <= names
    assert sum(name.startswith("Tab (") for name in names) == 12  # 3 shells x 4 kinds of word
    missed = [r for r in results if not r["ok"]]
    assert not missed, json.dumps(missed, indent=2)
