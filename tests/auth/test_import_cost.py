"""`wfctl --version` and `wfctl --help` must not import httpx, pydantic or keyring (start-up is measured)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.fixtures.cli import REPO_ROOT

HEAVY = ("httpx", "pydantic", "keyring", "rich.table")

PROBE = """
import sys
from wfctl.cmdline.main import main
sys.stdout = open('/dev/null', 'w')
try:
    main({args!r})
except SystemExit:
    pass
heavy = [m for m in {heavy!r} if m in sys.modules]
sys.stderr.write(repr(heavy))
"""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["login", "--help"], ["auth", "--help"],
                                  ["config", "--help"], ["agency", "update", "--help"], ["api", "--help"]])
def test_fast_paths_import_nothing_heavy(args, cli):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)], capture_output=True,
                          text=True, env=dict(cli.env, PYTHONPATH=str(REPO_ROOT)), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]", proc.stderr
